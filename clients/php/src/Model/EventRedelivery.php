<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A redelivery under way: the event's id, pending, and the run it started. */
final class EventRedelivery implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly string $id,
        public readonly string $status,
        public readonly int $run,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            id: Fields::string($data, 'id'),
            status: Fields::string($data, 'status'),
            run: Fields::int($data, 'run'),
        );
    }
}
