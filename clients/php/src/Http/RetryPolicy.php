<?php

declare(strict_types=1);

namespace PixPayments\Http;

use PixPayments\Exception\ApiException;
use PixPayments\Exception\ConnectionException;

/**
 * How creates and refunds are retried, as the TypeScript SDK does: up to `retries` more tries after
 * the first, waiting `baseDelayMs` doubled each time up to `maxDelayMs`, with ±20 % jitter so that
 * clients that failed together do not come back together.
 */
final class RetryPolicy
{
    public function __construct(
        public readonly int $retries = 3,
        public readonly int $baseDelayMs = 250,
        public readonly int $maxDelayMs = 4000,
    ) {
        if ($retries < 0 || $baseDelayMs < 0 || $maxDelayMs < $baseDelayMs) {
            throw new \InvalidArgumentException(
                'retry: retries and baseDelayMs at least 0, maxDelayMs at least baseDelayMs',
            );
        }
    }

    /** @param array{retries?: int, baseDelayMs?: int, maxDelayMs?: int} $options */
    public static function fromArray(array $options): self
    {
        return new self(
            $options['retries'] ?? 3,
            $options['baseDelayMs'] ?? 250,
            $options['maxDelayMs'] ?? 4000,
        );
    }

    /** Worth another try: no answer at all, or the server failed (5xx). A 4xx would fail the same again. */
    public static function isRetryable(\Throwable $error): bool
    {
        return $error instanceof ConnectionException
            || ($error instanceof ApiException && $error->getStatusCode() >= 500);
    }

    /** The wait before retry number $retry (0 for the first retry), in milliseconds, jitter included. */
    public function delayMs(int $retry): float
    {
        $delay = min($this->baseDelayMs * 2 ** $retry, $this->maxDelayMs);
        return $delay * (0.8 + 0.4 * (random_int(0, PHP_INT_MAX) / PHP_INT_MAX));
    }

    /**
     * Runs $attempt until it succeeds, fails for good, or the retries are spent.
     *
     * @template T
     * @param callable(): T $attempt
     * @return T
     */
    public function run(callable $attempt): mixed
    {
        for ($tries = 0; ; $tries++) {
            try {
                return $attempt();
            } catch (ApiException | ConnectionException $error) {
                if ($tries >= $this->retries || !self::isRetryable($error)) {
                    throw $error;
                }
                usleep((int) round($this->delayMs($tries) * 1000));
            }
        }
    }
}
