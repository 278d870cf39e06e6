<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A payment's webhook body: payment.created, or payment.status_changed (which adds previousStatus). */
final class PaymentWebhook implements \JsonSerializable
{
    use ToArray {
        toArray as private allFields;
    }

    public function __construct(
        /** payment.created or payment.status_changed */
        public readonly string $event,
        /** The payment's id */
        public readonly string $id,
        public readonly string $status,
        public readonly float $amount,
        public readonly string $storeId,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        public readonly string $createdAt,
        public readonly ?string $webhookUrl,
        public readonly ?string $observation,
        public readonly ?string $email,
        public readonly ?string $qrCodeUrl,
        public readonly ?string $qrCopyPaste,
        /** The status before the change: payment.status_changed only, null for payment.created */
        public readonly ?string $previousStatus,
    ) {
    }

    /**
     * The body as it was sent: payment.created has no previousStatus at all.
     *
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        $fields = $this->allFields();
        if ($this->previousStatus === null) {
            unset($fields['previousStatus']);
        }
        return $fields;
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        $event = Fields::string($data, 'event');
        return new self(
            event: $event,
            id: Fields::string($data, 'id'),
            status: Fields::string($data, 'status'),
            amount: Fields::amount($data, 'amount'),
            storeId: Fields::string($data, 'storeId'),
            livemode: Fields::bool($data, 'livemode'),
            createdAt: Fields::string($data, 'createdAt'),
            webhookUrl: Fields::nullableString($data, 'webhookUrl'),
            observation: Fields::nullableString($data, 'observation'),
            email: Fields::nullableString($data, 'email'),
            qrCodeUrl: Fields::nullableString($data, 'qrCodeUrl'),
            qrCopyPaste: Fields::nullableString($data, 'qrCopyPaste'),
            previousStatus: $event === 'payment.status_changed' ? Fields::string($data, 'previousStatus') : null,
        );
    }
}
