<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A refund of a payment: pending, then succeeded or failed. */
final class Refund implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly string $id,
        public readonly string $paymentId,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        /** The Pix this refund returns (API Pix endToEndId) */
        public readonly string $endToEndId,
        /** BRL, at most two decimal places */
        public readonly float $amount,
        /** pending, succeeded or failed */
        public readonly string $status,
        /** The merchant's reason, sent to the PSP as the devolução's descricao */
        public readonly ?string $reason,
        /** merchant (asked through the API or the dashboard), platform (returned by the platform itself) or psp (returned by the PSP on its own, such as a MED return) */
        public readonly string $origin,
        /** For origin psp: med_fraud, med_operational or other; null otherwise */
        public readonly ?string $nature,
        public readonly string $createdAt,
        /** When it succeeded or failed */
        public readonly ?string $settledAt,
        /** The PSP's motivo, when it failed */
        public readonly ?string $failureReason,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            id: Fields::string($data, 'id'),
            paymentId: Fields::string($data, 'paymentId'),
            livemode: Fields::bool($data, 'livemode'),
            endToEndId: Fields::string($data, 'endToEndId'),
            amount: Fields::amount($data, 'amount'),
            status: Fields::string($data, 'status'),
            reason: Fields::nullableString($data, 'reason'),
            origin: Fields::string($data, 'origin'),
            nature: Fields::nullableString($data, 'nature'),
            createdAt: Fields::string($data, 'createdAt'),
            settledAt: Fields::nullableString($data, 'settledAt'),
            failureReason: Fields::nullableString($data, 'failureReason'),
        );
    }
}
