<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** One delivery attempt of an event. */
final class EventAttempt implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        /** 1 for the first delivery, then one more per redelivery */
        public readonly int $run,
        /** The attempt within its run, from 1 */
        public readonly int $attempt,
        public readonly string $at,
        /** success, failure or refused; null while the attempt is in flight */
        public readonly ?string $outcome,
        /** The endpoint's HTTP status, if it answered */
        public readonly ?int $statusCode,
        public readonly ?int $latencyMs,
        public readonly ?string $error,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            run: Fields::int($data, 'run'),
            attempt: Fields::int($data, 'attempt'),
            at: Fields::string($data, 'at'),
            outcome: Fields::nullableString($data, 'outcome'),
            statusCode: Fields::nullableInt($data, 'statusCode'),
            latencyMs: Fields::nullableInt($data, 'latencyMs'),
            error: Fields::nullableString($data, 'error'),
        );
    }
}
