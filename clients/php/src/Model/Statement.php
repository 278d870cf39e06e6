<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** The store's statement of a day in America/Sao_Paulo; the sums are those of the day's balance transactions. */
final class Statement implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        /** The day, AAAA-MM-DD */
        public readonly string $date,
        /** America/Sao_Paulo */
        public readonly string $timeZone,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        /** BRL: Pix received (pix_received and late_pix_received) */
        public readonly float $received,
        /** BRL: refunds that succeeded, MED returns apart, as a positive sum */
        public readonly float $refunded,
        /** BRL: returned by the PSP under MED, as a positive sum */
        public readonly float $returnedByMed,
        /** BRL: at risk in the store's open disputes */
        public readonly float $atRisk,
        /** BRL: received − refunded − returnedByMed */
        public readonly float $net,
        public readonly StatementCounts $counts,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            date: Fields::string($data, 'date'),
            timeZone: Fields::string($data, 'timeZone'),
            livemode: Fields::bool($data, 'livemode'),
            received: Fields::amount($data, 'received'),
            refunded: Fields::amount($data, 'refunded'),
            returnedByMed: Fields::amount($data, 'returnedByMed'),
            atRisk: Fields::amount($data, 'atRisk'),
            net: Fields::amount($data, 'net'),
            counts: StatementCounts::fromArray(Fields::object($data, 'counts')),
        );
    }
}
