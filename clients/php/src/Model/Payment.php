<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A payment, as create, get, list and cancel answer it. Dates are ISO 8601 strings in UTC, as the API sends them. */
final class Payment implements \JsonSerializable
{
    use ToArray {
        toArray as private allFields;
    }

    public function __construct(
        public readonly string $id,
        /** pending, approved, review or not_approved (paid, withdrawal_processing, receipt_sent, rejected: internal) */
        public readonly string $status,
        /** BRL, at most two decimal places */
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
        public readonly bool $isPublic,
        /** BRL returned to the payer: the sum of its succeeded refunds (0 before any) */
        public readonly float $refundedAmount,
        /** When a payment still pending becomes not_approved */
        public readonly string $expiresAt,
        /** The payer's fraud claim (MED), only on a payment that has one */
        public readonly ?Dispute $dispute = null,
    ) {
    }

    /**
     * The API's JSON: `dispute` appears only on a payment that has one, as the API sends it.
     *
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        $fields = $this->allFields();
        if ($this->dispute === null) {
            unset($fields['dispute']);
        }
        return $fields;
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        // Absent, not null, on a payment without a dispute.
        $dispute = array_key_exists('dispute', $data) ? Fields::nullableObject($data, 'dispute') : null;
        return new self(
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
            isPublic: Fields::bool($data, 'isPublic'),
            refundedAmount: Fields::amount($data, 'refundedAmount'),
            expiresAt: Fields::string($data, 'expiresAt'),
            dispute: $dispute === null ? null : Dispute::fromArray($dispute),
        );
    }
}
