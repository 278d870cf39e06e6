<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A webhook event as the Events API lists it, its body exactly as delivered. */
final class Event implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        /** The event id (evt_…), the webhook-id every delivery of it carries */
        public readonly string $id,
        /** payment.created, payment.status_changed, refund.created, refund.succeeded, refund.failed, or a dispute's */
        public readonly string $type,
        public readonly string $paymentId,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        public readonly string $createdAt,
        public readonly PaymentWebhook|RefundWebhook|DisputeWebhook $body,
        /** pending (being delivered or retried), delivered or dead (every attempt failed) */
        public readonly string $status,
        /** Attempts made so far, over every run */
        public readonly int $attemptCount,
        /** When the next attempt is due, while pending */
        public readonly ?string $nextAttemptAt,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            id: Fields::string($data, 'id'),
            type: Fields::string($data, 'type'),
            paymentId: Fields::string($data, 'paymentId'),
            livemode: Fields::bool($data, 'livemode'),
            createdAt: Fields::string($data, 'createdAt'),
            body: Webhook::fromArray(Fields::object($data, 'body')),
            status: Fields::string($data, 'status'),
            attemptCount: Fields::int($data, 'attemptCount'),
            nextAttemptAt: Fields::nullableString($data, 'nextAttemptAt'),
        );
    }
}
