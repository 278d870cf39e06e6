<?php

declare(strict_types=1);

namespace PixPayments;

use PixPayments\Http\Api;
use PixPayments\Http\CurlTransport;
use PixPayments\Http\RetryPolicy;
use PixPayments\Http\Transport;
use PixPayments\Resource\BalanceTransactions;
use PixPayments\Resource\Events;
use PixPayments\Resource\Payments;
use PixPayments\Resource\Refunds;
use PixPayments\Resource\Sandbox;
use PixPayments\Resource\Statements;

/**
 * A client of the Pix Public Payments API for one store.
 *
 *     $pix = new PixPayments\Client(['baseUrl' => 'https://api.example.com', 'token' => getenv('PIX_TOKEN')]);
 *     $payment = $pix->payments->create(['amount' => 25.5, 'email' => 'cliente@example.com']);
 */
final class Client
{
    public const VERSION = '0.1.0';

    public readonly Payments $payments;
    public readonly Refunds $refunds;
    public readonly Events $events;
    public readonly BalanceTransactions $balanceTransactions;
    public readonly Statements $statements;
    public readonly Sandbox $sandbox;

    /**
     * @param array{
     *     baseUrl: string,
     *     token: string,
     *     timeout?: float|int,
     *     retry?: array{retries?: int, baseDelayMs?: int, maxDelayMs?: int},
     *     transport?: Transport,
     * } $options baseUrl: the API's address (paths are under /public-api/v1); token: the store's
     *   bearer token (pxt_…); timeout: seconds per request (30), a timeout being a connection error;
     *   retry: how creates and refunds are retried (['retries' => 0] turns it off); transport:
     *   another HTTP stack than ext-curl
     */
    public function __construct(array $options)
    {
        $baseUrl = $options['baseUrl'] ?? null;
        $token = $options['token'] ?? null;
        if (!is_string($baseUrl) || $baseUrl === '' || !is_string($token) || $token === '') {
            throw new \InvalidArgumentException('PixPayments\Client: baseUrl and token are required');
        }
        $api = new Api(
            $baseUrl,
            $token,
            $options['transport'] ?? new CurlTransport((float) ($options['timeout'] ?? 30.0)),
            RetryPolicy::fromArray($options['retry'] ?? []),
            sprintf('pix-payments-php/%s PHP/%s', self::VERSION, PHP_VERSION),
        );
        $this->payments = new Payments($api);
        $this->refunds = new Refunds($api);
        $this->events = new Events($api);
        $this->balanceTransactions = new BalanceTransactions($api);
        $this->statements = new Statements($api);
        $this->sandbox = new Sandbox($api);
    }
}
