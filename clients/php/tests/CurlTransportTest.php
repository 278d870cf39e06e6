<?php

declare(strict_types=1);

namespace PixPayments\Tests;

use PHPUnit\Framework\TestCase;
use PixPayments\Client;
use PixPayments\Exception\ConnectionException;
use PixPayments\Http\CurlTransport;

/** ext-curl's failures as the client sees them, on loopback sockets this test opens itself. */
final class CurlTransportTest extends TestCase
{
    public function testARefusedConnectionIsAConnectionErrorAndCreateRetriesIt(): void
    {
        // A port that was just free: bound, then closed, so nothing listens on it.
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($socket);
        $address = stream_socket_get_name($socket, false);
        fclose($socket);

        $client = new Client(['baseUrl' => "http://{$address}", 'token' => 't', 'retry' => ['retries' => 2, 'baseDelayMs' => 20, 'maxDelayMs' => 40]]);
        $start = hrtime(true);
        try {
            $client->payments->create(['amount' => 10]);
            self::fail('no exception');
        } catch (ConnectionException $e) {
            self::assertStringContainsString("POST http://{$address}/public-api/v1/payments", $e->getMessage());
        }
        // Two waits (20 ms, then 40 ms, ±20 %): the retries happened.
        self::assertGreaterThanOrEqual(48, (hrtime(true) - $start) / 1e6);
    }

    public function testAnAnswerThatNeverComesTimesOutAsAConnectionError(): void
    {
        // The kernel accepts the connection into the backlog; nobody ever reads or answers.
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($socket);
        $address = stream_socket_get_name($socket, false);
        $start = hrtime(true);
        try {
            (new CurlTransport(0.3))->send('GET', "http://{$address}/public-api/v1/payments", [], null);
            self::fail('no exception');
        } catch (ConnectionException $e) {
            self::assertSame(CURLE_OPERATION_TIMEDOUT, $e->getCode());
        } finally {
            fclose($socket);
        }
        $elapsedMs = (hrtime(true) - $start) / 1e6;
        self::assertGreaterThanOrEqual(290, $elapsedMs);
        self::assertLessThan(2000, $elapsedMs);
    }
}
