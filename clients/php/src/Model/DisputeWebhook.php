<?php

declare(strict_types=1);

namespace PixPayments\Model;

/**
 * A dispute's webhook body: payment.dispute_opened, payment.dispute_reminder (which adds hoursLeft)
 * or payment.dispute_closed. The body carries the dispute's fields beside its payment's id; here
 * they are the `dispute`, and toArray() gives them back flat, as they were sent.
 */
final class DisputeWebhook implements \JsonSerializable
{
    use ToArray {
        toArray as private allFields;
    }

    public function __construct(
        /** payment.dispute_opened, payment.dispute_reminder or payment.dispute_closed */
        public readonly string $event,
        public readonly string $paymentId,
        public readonly string $storeId,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        public readonly Dispute $dispute,
        /** Hours left to the deadline (48, 24 or 6): payment.dispute_reminder only, null otherwise */
        public readonly ?int $hoursLeft,
    ) {
    }

    /**
     * The body as it was sent: the dispute's fields beside the payment's, and hoursLeft only in a reminder.
     *
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        $fields = $this->allFields();
        unset($fields['dispute'], $fields['hoursLeft']);
        $fields += $this->dispute->toArray();
        if ($this->hoursLeft !== null) {
            $fields['hoursLeft'] = $this->hoursLeft;
        }
        return $fields;
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        $event = Fields::string($data, 'event');
        return new self(
            event: $event,
            paymentId: Fields::string($data, 'paymentId'),
            storeId: Fields::string($data, 'storeId'),
            livemode: Fields::bool($data, 'livemode'),
            dispute: Dispute::fromArray($data),
            hoursLeft: $event === 'payment.dispute_reminder' ? Fields::int($data, 'hoursLeft') : null,
        );
    }
}
