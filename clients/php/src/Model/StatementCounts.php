<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** How many movements a statement sums: Pix received, refunds, MED returns, open disputes. */
final class StatementCounts implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly int $received,
        public readonly int $refunded,
        public readonly int $returnedByMed,
        public readonly int $atRisk,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            received: Fields::int($data, 'received'),
            refunded: Fields::int($data, 'refunded'),
            returnedByMed: Fields::int($data, 'returnedByMed'),
            atRisk: Fields::int($data, 'atRisk'),
        );
    }
}
