<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** One page of the store's balance transactions, newest first, and how many match the filter in all. */
final class BalanceTransactionList implements \JsonSerializable
{
    use ToArray;

    /** @param list<BalanceTransaction> $items */
    public function __construct(
        public readonly array $items,
        public readonly int $page,
        public readonly int $limit,
        public readonly int $total,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            items: Fields::list($data, 'items', BalanceTransaction::fromArray(...)),
            page: Fields::int($data, 'page'),
            limit: Fields::int($data, 'limit'),
            total: Fields::int($data, 'total'),
        );
    }
}
