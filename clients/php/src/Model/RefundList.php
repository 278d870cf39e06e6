<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A payment's refunds, newest first. */
final class RefundList implements \JsonSerializable
{
    use ToArray;

    /** @param list<Refund> $items */
    public function __construct(public readonly array $items)
    {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(Fields::list($data, 'items', Refund::fromArray(...)));
    }
}
