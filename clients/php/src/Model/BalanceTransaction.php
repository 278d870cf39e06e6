<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** One movement of the store's money, in signed BRL: money in positive, money out negative. */
final class BalanceTransaction implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        /** Stable: the same movement always has the same id */
        public readonly string $id,
        /** pix_received (+), refund (−), med_return (−), late_pix_received (+) or late_pix_returned (−) */
        public readonly string $type,
        /** BRL, signed, at most two decimal places */
        public readonly float $amount,
        public readonly string $paymentId,
        /** The refund that moved the money out; null for money in */
        public readonly ?string $refundId,
        /** The Pix moved (API Pix endToEndId) */
        public readonly string $endToEndId,
        /** The refund's origin (merchant, platform, psp); null for money in */
        public readonly ?string $origin,
        /** Why the PSP returned it, for origin psp: med_fraud, med_operational or other */
        public readonly ?string $nature,
        /** The PSP connection that moved it: test or live */
        public readonly string $connection,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        /** When the money moved: the Pix settled at the PSP, or the refund was settled */
        public readonly string $createdAt,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            id: Fields::string($data, 'id'),
            type: Fields::string($data, 'type'),
            amount: Fields::amount($data, 'amount'),
            paymentId: Fields::string($data, 'paymentId'),
            refundId: Fields::nullableString($data, 'refundId'),
            endToEndId: Fields::string($data, 'endToEndId'),
            origin: Fields::nullableString($data, 'origin'),
            nature: Fields::nullableString($data, 'nature'),
            connection: Fields::string($data, 'connection'),
            livemode: Fields::bool($data, 'livemode'),
            createdAt: Fields::string($data, 'createdAt'),
        );
    }
}
