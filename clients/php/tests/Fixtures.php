<?php

declare(strict_types=1);

namespace PixPayments\Tests;

/** Bodies as the API answers them (field for field the OpenAPI document's schemas). */
final class Fixtures
{
    /** @return array<string, mixed> */
    public static function payment(array $overrides = []): array
    {
        return array_replace([
            'id' => '0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01',
            'status' => 'pending',
            'amount' => 25.5,
            'storeId' => 'store_1',
            'livemode' => false,
            'createdAt' => '2026-11-26T10:00:00.000Z',
            'webhookUrl' => 'https://loja.example.com/hooks',
            'observation' => null,
            'email' => 'cliente@example.com',
            'qrCodeUrl' => 'https://pix.example.com/qr/1.png',
            'qrCopyPaste' => '00020101021226',
            'isPublic' => true,
            'refundedAmount' => 0,
            'expiresAt' => '2026-11-27T10:00:00.000Z',
        ], $overrides);
    }

    /** @return array<string, mixed> */
    public static function refund(array $overrides = []): array
    {
        return array_replace([
            'id' => '5d7c9e1a-3b2f-4c8d-9e0f-1a2b3c4d5e6f',
            'paymentId' => '0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01',
            'livemode' => false,
            'endToEndId' => 'E12345678202611261000abcdefghijk',
            'amount' => 10.0,
            'status' => 'pending',
            'reason' => 'Troca',
            'origin' => 'merchant',
            'nature' => null,
            'createdAt' => '2026-11-26T10:05:00.000Z',
            'settledAt' => null,
            'failureReason' => null,
        ], $overrides);
    }

    /** @return array<string, mixed> */
    public static function paymentWebhook(string $event = 'payment.status_changed'): array
    {
        $payment = self::payment(['status' => 'approved']);
        unset($payment['isPublic'], $payment['refundedAmount'], $payment['expiresAt']);
        return ['event' => $event] + $payment + ($event === 'payment.status_changed' ? ['previousStatus' => 'pending'] : []);
    }

    /** @return array<string, mixed> */
    public static function refundWebhook(string $event = 'refund.succeeded'): array
    {
        return ['event' => $event] + self::refund(['status' => 'succeeded', 'settledAt' => '2026-11-26T10:05:01.000Z'])
            + ['storeId' => 'store_1'];
    }

    /** @return array<string, mixed> */
    public static function event(array $body, array $overrides = []): array
    {
        return array_replace([
            'id' => 'evt_0123456789abcdef0123456789abcdef',
            'type' => $body['event'],
            'paymentId' => $body['paymentId'] ?? $body['id'],
            'livemode' => $body['livemode'],
            'createdAt' => '2026-11-26T10:05:01.000Z',
            'body' => $body,
            'status' => 'delivered',
            'attemptCount' => 1,
            'nextAttemptAt' => null,
        ], $overrides);
    }
    /** @return array<string, mixed> */
    public static function dispute(array $overrides = []): array
    {
        return array_replace([
            'status' => 'open',
            'reason' => 'Pix feito sob fraude',
            'kind' => 'golpe',
            'amountAtRisk' => 25.5,
            'openedAt' => '2026-11-26T10:00:00.000Z',
            'deadlineAt' => '2026-12-03T10:00:00.000Z',
            'defense' => null,
            'decision' => null,
            'closedAt' => null,
        ], $overrides);
    }

    /** @return array<string, mixed> A dispute webhook body as the dispatcher sends it: the dispute's fields beside its payment's. */
    public static function disputeWebhook(string $event = 'payment.dispute_opened', array $overrides = []): array
    {
        return ['event' => $event, 'paymentId' => '0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01', 'storeId' => 'store_1', 'livemode' => false]
            + self::dispute($overrides)
            + ($event === 'payment.dispute_reminder' ? ['hoursLeft' => 24] : []);
    }

    /** @return array<string, mixed> */
    public static function balanceTransaction(array $overrides = []): array
    {
        return array_replace([
            'id' => '0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01:pix_received:E12345678202611261000abcdefghijk',
            'type' => 'pix_received',
            'amount' => 25.5,
            'paymentId' => '0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01',
            'refundId' => null,
            'endToEndId' => 'E12345678202611261000abcdefghijk',
            'origin' => null,
            'nature' => null,
            'connection' => 'test',
            'livemode' => false,
            'createdAt' => '2026-11-29T02:30:00.000Z',
        ], $overrides);
    }

    /** @return array<string, mixed> */
    public static function statement(): array
    {
        return [
            'date' => '2026-11-28',
            'timeZone' => 'America/Sao_Paulo',
            'livemode' => false,
            'received' => 25.5,
            'refunded' => 0.0,
            'returnedByMed' => 12.5,
            'atRisk' => 0.0,
            'net' => 13.0,
            'counts' => ['received' => 1, 'refunded' => 0, 'returnedByMed' => 1, 'atRisk' => 0],
        ];
    }
}
