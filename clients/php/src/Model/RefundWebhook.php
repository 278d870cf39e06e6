<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A refund's webhook body: refund.created, refund.succeeded or refund.failed, with the refund's fields. */
final class RefundWebhook implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        /** refund.created, refund.succeeded or refund.failed */
        public readonly string $event,
        /** The refund's id */
        public readonly string $id,
        public readonly string $paymentId,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        public readonly string $endToEndId,
        public readonly float $amount,
        /** pending, succeeded or failed */
        public readonly string $status,
        public readonly ?string $reason,
        /** merchant, platform or psp (returned by the PSP on its own, such as a MED return) */
        public readonly string $origin,
        /** For origin psp: med_fraud, med_operational or other; null otherwise */
        public readonly ?string $nature,
        public readonly string $createdAt,
        public readonly ?string $settledAt,
        public readonly ?string $failureReason,
        public readonly string $storeId,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            event: Fields::string($data, 'event'),
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
            storeId: Fields::string($data, 'storeId'),
        );
    }
}
