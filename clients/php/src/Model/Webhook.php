<?php

declare(strict_types=1);

namespace PixPayments\Model;

use PixPayments\Exception\UnexpectedResponseException;

/** Any webhook body, a payment's or a refund's, told apart by its `event`. */
final class Webhook
{
    public const PAYMENT_EVENTS = ['payment.created', 'payment.status_changed'];
    public const REFUND_EVENTS = ['refund.created', 'refund.succeeded', 'refund.failed'];

    private function __construct()
    {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): PaymentWebhook|RefundWebhook
    {
        $event = Fields::string($data, 'event');
        if (in_array($event, self::PAYMENT_EVENTS, true)) {
            return PaymentWebhook::fromArray($data);
        }
        if (in_array($event, self::REFUND_EVENTS, true)) {
            return RefundWebhook::fromArray($data);
        }
        throw new UnexpectedResponseException(sprintf('not an event of this API (%s)', $event));
    }
}
