<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** The merchant's defence of a dispute, as sent to the PSP. */
final class DisputeDefense implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly string $text,
        public readonly string $sentAt,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(text: Fields::string($data, 'text'), sentAt: Fields::string($data, 'sentAt'));
    }
}
