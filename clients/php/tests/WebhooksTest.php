<?php

declare(strict_types=1);

namespace PixPayments\Tests;

use PHPUnit\Framework\TestCase;
use PixPayments\Exception\WebhookVerificationException;
use PixPayments\Model\DisputeWebhook;
use PixPayments\Model\PaymentWebhook;
use PixPayments\Model\RefundWebhook;
use PixPayments\Webhooks;

final class WebhooksTest extends TestCase
{
    private const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    private const ROTATED = 'whsec_dGhlIG5leHQgc2VjcmV0IG9mIHRoZSBzdG9yZSE=';
    private const NOW = 1_764_151_200;

    /** @return array<string, string> headers as the platform sends them, signed with each secret given */
    private static function signed(string $body, int $timestamp, string ...$secrets): array
    {
        $id = 'evt_0123456789abcdef0123456789abcdef';
        $signatures = array_map(
            static fn (string $secret) => 'v1,' . base64_encode(hash_hmac('sha256', "{$id}.{$timestamp}.{$body}", base64_decode(substr($secret, 6)), true)),
            $secrets,
        );
        return ['webhook-id' => $id, 'webhook-timestamp' => (string) $timestamp, 'webhook-signature' => implode(' ', $signatures)];
    }

    private static function body(array $data): string
    {
        return json_encode($data, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
    }

    private static function refused(string $body, array $headers, string $secret, string $reason, ?int $now = self::NOW): void
    {
        try {
            Webhooks::verify($body, $headers, $secret, $now);
            self::fail('verified');
        } catch (WebhookVerificationException $e) {
            self::assertStringContainsString($reason, $e->getMessage());
        }
    }

    public function testTheStandardWebhooksReferenceSignatureMatches(): void
    {
        // The specification's own example (github.com/standard-webhooks/standard-webhooks): the
        // signature matches, and then the body is refused for not being an event of this API.
        $headers = ['webhook-id' => 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp' => '1614265330', 'webhook-signature' => 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='];
        self::refused('{"test": 2432232314}', $headers, self::SECRET, 'not an event of this API', 1614265330);
        self::refused('{"test": 2432232315}', $headers, self::SECRET, 'no matching signature', 1614265330);
    }

    public function testAPaymentEventVerifies(): void
    {
        $body = self::body(Fixtures::paymentWebhook());
        $event = Webhooks::verify($body, self::signed($body, self::NOW, self::SECRET), self::SECRET, self::NOW);
        self::assertInstanceOf(PaymentWebhook::class, $event);
        self::assertSame(['payment.status_changed', 'approved', 'pending', 25.5], [$event->event, $event->status, $event->previousStatus, $event->amount]);
    }

    public function testRefundEventsVerify(): void
    {
        foreach (['refund.created', 'refund.succeeded', 'refund.failed'] as $type) {
            $body = self::body(Fixtures::refundWebhook($type));
            $event = Webhooks::verify($body, self::signed($body, self::NOW, self::SECRET), self::SECRET, self::NOW);
            self::assertInstanceOf(RefundWebhook::class, $event);
            self::assertSame($type, $event->event);
        }
    }

    public function testDisputeEventsVerify(): void
    {
        foreach (['payment.dispute_opened', 'payment.dispute_reminder', 'payment.dispute_closed'] as $type) {
            $body = self::body(Fixtures::disputeWebhook($type));
            $event = Webhooks::verify($body, self::signed($body, self::NOW, self::SECRET), self::SECRET, self::NOW);
            self::assertInstanceOf(DisputeWebhook::class, $event);
            self::assertSame([$type, 'open', 25.5], [$event->event, $event->dispute->status, $event->dispute->amountAtRisk]);
            self::assertSame($type === 'payment.dispute_reminder' ? 24 : null, $event->hoursLeft);
        }
    }

    public function testATamperedBodyIsRefused(): void
    {
        $body = self::body(Fixtures::paymentWebhook());
        $headers = self::signed($body, self::NOW, self::SECRET);
        self::refused(str_replace('25.5', '2.55', $body), $headers, self::SECRET, 'no matching signature');
        self::refused($body . ' ', $headers, self::SECRET, 'no matching signature');
    }

    public function testAnotherSecretIsRefused(): void
    {
        $body = self::body(Fixtures::paymentWebhook());
        self::refused($body, self::signed($body, self::NOW, self::SECRET), self::ROTATED, 'no matching signature');
    }

    public function testDuringARotationEitherSignatureWillDo(): void
    {
        $body = self::body(Fixtures::refundWebhook());
        $headers = self::signed($body, self::NOW, self::ROTATED, self::SECRET);
        self::assertSame('refund.succeeded', Webhooks::verify($body, $headers, self::SECRET, self::NOW)->event);
        self::assertSame('refund.succeeded', Webhooks::verify($body, $headers, self::ROTATED, self::NOW)->event);
    }

    public function testTheTimestampMustBeWithinFiveMinutes(): void
    {
        $body = self::body(Fixtures::paymentWebhook('payment.created'));
        $headers = self::signed($body, self::NOW, self::SECRET);
        self::assertSame('payment.created', Webhooks::verify($body, $headers, self::SECRET, self::NOW + 300)->event);
        self::assertSame('payment.created', Webhooks::verify($body, $headers, self::SECRET, self::NOW - 300)->event);
        self::refused($body, $headers, self::SECRET, 'timestamp too old', self::NOW + 301);
        self::refused($body, $headers, self::SECRET, 'timestamp too new', self::NOW - 301);
        // Without a clock of the caller's: now. A fixture signed long ago is too old.
        self::refused($body, $headers, self::SECRET, 'timestamp too old', null);
        $fresh = self::signed($body, time(), self::SECRET);
        self::assertSame('payment.created', Webhooks::verify($body, $fresh, self::SECRET)->event);
    }

    public function testHeadersAreFoundInEveryShapePhpHandsThem(): void
    {
        $body = self::body(Fixtures::paymentWebhook());
        $headers = self::signed($body, self::NOW, self::SECRET);
        $shapes = [
            'getallheaders()' => array_combine(array_map('ucwords', array_keys($headers), array_fill(0, 3, '-')), $headers),
            'PSR-7 getHeaders()' => array_map(static fn ($v) => [$v], $headers),
            '$_SERVER' => ['HTTP_WEBHOOK_ID' => $headers['webhook-id'], 'HTTP_WEBHOOK_TIMESTAMP' => $headers['webhook-timestamp'], 'HTTP_WEBHOOK_SIGNATURE' => $headers['webhook-signature'], 'REQUEST_METHOD' => 'POST'],
        ];
        self::assertArrayHasKey('Webhook-Signature', $shapes['getallheaders()']);
        foreach ($shapes as $shape => $given) {
            self::assertSame('payment.status_changed', Webhooks::verify($body, $given, self::SECRET, self::NOW)->event, $shape);
        }
    }

    public function testMalformedDeliveriesAreRefused(): void
    {
        $body = self::body(Fixtures::paymentWebhook());
        $headers = self::signed($body, self::NOW, self::SECRET);
        $without = $headers;
        unset($without['webhook-signature']);
        self::refused($body, $without, self::SECRET, 'missing webhook-id, webhook-timestamp or webhook-signature');
        self::refused($body, ['webhook-timestamp' => 'soon'] + $headers, self::SECRET, 'invalid webhook-timestamp');
        $v2 = ['webhook-signature' => 'v2,' . substr($headers['webhook-signature'], 3)] + $headers;
        self::refused($body, $v2, self::SECRET, 'no matching signature');
        self::refused($body, $headers, 'whsec_not base64!', 'the secret is not whsec_ followed by base64');

        $notAnEvent = self::body(['event' => 'payment.deleted', 'id' => 'p1']);
        self::refused($notAnEvent, self::signed($notAnEvent, self::NOW, self::SECRET), self::SECRET, 'not an event of this API (payment.deleted)');
        $incomplete = self::body(['event' => 'refund.failed', 'id' => 'r1']);
        self::refused($incomplete, self::signed($incomplete, self::NOW, self::SECRET), self::SECRET, '"paymentId" is missing');
    }
}
