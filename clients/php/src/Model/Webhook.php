<?php

declare(strict_types=1);

namespace PixPayments\Model;

use PixPayments\Exception\UnexpectedResponseException;

/** Any webhook body, a payment's, a refund's or a dispute's, told apart by its `event`. */
final class Webhook
{
    public const PAYMENT_EVENTS = ['payment.created', 'payment.status_changed'];
    public const REFUND_EVENTS = ['refund.created', 'refund.succeeded', 'refund.failed'];
    public const DISPUTE_EVENTS = ['payment.dispute_opened', 'payment.dispute_reminder', 'payment.dispute_closed'];
    /** Every event this API sends. */
    public const EVENTS = [...self::PAYMENT_EVENTS, ...self::REFUND_EVENTS, ...self::DISPUTE_EVENTS];

    private function __construct()
    {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): PaymentWebhook|RefundWebhook|DisputeWebhook
    {
        $event = Fields::string($data, 'event');
        if (in_array($event, self::PAYMENT_EVENTS, true)) {
            return PaymentWebhook::fromArray($data);
        }
        if (in_array($event, self::REFUND_EVENTS, true)) {
            return RefundWebhook::fromArray($data);
        }
        if (in_array($event, self::DISPUTE_EVENTS, true)) {
            return DisputeWebhook::fromArray($data);
        }
        throw new UnexpectedResponseException(sprintf('not an event of this API (%s)', $event));
    }
}
