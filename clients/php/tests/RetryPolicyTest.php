<?php

declare(strict_types=1);

namespace PixPayments\Tests;

use PHPUnit\Framework\TestCase;
use PixPayments\Exception\ApiException;
use PixPayments\Exception\ConnectionException;
use PixPayments\Http\RetryPolicy;

final class RetryPolicyTest extends TestCase
{
    public function testDefaultsAreTheTypeScriptSdks(): void
    {
        $policy = new RetryPolicy();
        self::assertSame([3, 250, 4000], [$policy->retries, $policy->baseDelayMs, $policy->maxDelayMs]);
        self::assertEquals($policy, RetryPolicy::fromArray([]));
    }

    public function testDelaysDoubleFrom250MsUpTo4SWithin20PercentJitter(): void
    {
        $policy = new RetryPolicy(retries: 8);
        foreach ([250, 500, 1000, 2000, 4000, 4000, 4000] as $retry => $nominal) {
            $samples = array_map(static fn () => $policy->delayMs($retry), range(1, 200));
            self::assertGreaterThanOrEqual($nominal * 0.8, min($samples), "retry {$retry}");
            self::assertLessThanOrEqual($nominal * 1.2, max($samples), "retry {$retry}");
            // Jittered: 200 draws are not one value, and they reach past ±10 % of the nominal wait.
            self::assertLessThan($nominal * 0.9, min($samples), "retry {$retry} spread below");
            self::assertGreaterThan($nominal * 1.1, max($samples), "retry {$retry} spread above");
        }
    }

    public function testOnlyConnectionErrorsAnd5xxAreRetryable(): void
    {
        self::assertTrue(RetryPolicy::isRetryable(new ConnectionException('refused')));
        self::assertTrue(RetryPolicy::isRetryable(new ApiException(500, 'Erro interno.')));
        self::assertTrue(RetryPolicy::isRetryable(new ApiException(503, 'Indisponível.')));
        foreach ([400, 401, 403, 404, 409, 422, 429] as $status) {
            self::assertFalse(RetryPolicy::isRetryable(new ApiException($status, 'não')), "HTTP {$status}");
        }
        self::assertFalse(RetryPolicy::isRetryable(new \RuntimeException('other')));
    }

    public function testRunRetriesThreeTimesThenThrowsTheLastError(): void
    {
        $policy = new RetryPolicy(baseDelayMs: 1, maxDelayMs: 4);
        $calls = 0;
        try {
            $policy->run(static function () use (&$calls): never {
                $calls++;
                throw new ApiException(502, "falha {$calls}");
            });
            self::fail('no exception');
        } catch (ApiException $e) {
            self::assertSame('falha 4', $e->getMessage());
        }
        self::assertSame(4, $calls);
    }

    public function testRunReturnsTheFirstSuccess(): void
    {
        $policy = new RetryPolicy(baseDelayMs: 1, maxDelayMs: 4);
        $calls = 0;
        $result = $policy->run(static function () use (&$calls): string {
            if (++$calls < 3) {
                throw new ConnectionException('reset');
            }
            return 'ok';
        });
        self::assertSame(['ok', 3], [$result, $calls]);
    }

    public function testRunDoesNotRetryA4xx(): void
    {
        $policy = new RetryPolicy(baseDelayMs: 1, maxDelayMs: 4);
        $calls = 0;
        try {
            $policy->run(static function () use (&$calls): never {
                $calls++;
                throw new ApiException(400, 'Valor mínimo');
            });
            self::fail('no exception');
        } catch (ApiException $e) {
            self::assertSame(400, $e->getStatusCode());
        }
        self::assertSame(1, $calls);
    }

    public function testRetriesZeroTriesOnce(): void
    {
        $calls = 0;
        try {
            RetryPolicy::fromArray(['retries' => 0])->run(static function () use (&$calls): never {
                $calls++;
                throw new ConnectionException('timeout');
            });
            self::fail('no exception');
        } catch (ConnectionException) {
        }
        self::assertSame(1, $calls);
    }

    public function testWaitsBetweenTries(): void
    {
        $policy = new RetryPolicy(retries: 2, baseDelayMs: 50, maxDelayMs: 100);
        $start = hrtime(true);
        try {
            $policy->run(static fn (): never => throw new ConnectionException('refused'));
        } catch (ConnectionException) {
        }
        $elapsedMs = (hrtime(true) - $start) / 1e6;
        // 50 ms then 100 ms, each within ±20 %.
        self::assertGreaterThanOrEqual(120, $elapsedMs);
        self::assertLessThan(1000, $elapsedMs);
    }

    public function testRefusesANonsensicalPolicy(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new RetryPolicy(retries: -1);
    }
}
