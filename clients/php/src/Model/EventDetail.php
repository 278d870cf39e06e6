<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** One event with every delivery attempt. */
final class EventDetail implements \JsonSerializable
{
    use ToArray;

    /** @param list<EventAttempt> $attempts */
    public function __construct(
        public readonly string $id,
        public readonly string $type,
        public readonly string $paymentId,
        /** true for live data (a live token), false for test data (a test token) */
        public readonly bool $livemode,
        public readonly string $createdAt,
        public readonly PaymentWebhook|RefundWebhook|DisputeWebhook $body,
        public readonly string $status,
        public readonly int $attemptCount,
        public readonly ?string $nextAttemptAt,
        public readonly array $attempts,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        $event = Event::fromArray($data);
        return new self(
            id: $event->id,
            type: $event->type,
            paymentId: $event->paymentId,
            livemode: $event->livemode,
            createdAt: $event->createdAt,
            body: $event->body,
            status: $event->status,
            attemptCount: $event->attemptCount,
            nextAttemptAt: $event->nextAttemptAt,
            attempts: Fields::list($data, 'attempts', EventAttempt::fromArray(...)),
        );
    }
}
