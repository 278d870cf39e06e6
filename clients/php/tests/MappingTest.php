<?php

declare(strict_types=1);

namespace PixPayments\Tests;

use PHPUnit\Framework\TestCase;
use PixPayments\Exception\UnexpectedResponseException;
use PixPayments\Model\BalanceTransactionList;
use PixPayments\Model\Dispute;
use PixPayments\Model\DisputeWebhook;
use PixPayments\Model\Event;
use PixPayments\Model\EventDetail;
use PixPayments\Model\Payment;
use PixPayments\Model\PaymentWebhook;
use PixPayments\Model\Refund;
use PixPayments\Model\RefundList;
use PixPayments\Model\RefundWebhook;
use PixPayments\Model\Statement;
use PixPayments\Model\Webhook;

/** JSON to value objects: every field, its type, and a clear failure when the API's answer drifts. */
final class MappingTest extends TestCase
{
    public function testPaymentHasEveryFieldOfTheSchemaTyped(): void
    {
        $payment = Payment::fromArray(Fixtures::payment(['amount' => 40, 'refundedAmount' => 12.5, 'unknownLater' => 'ignored']));
        self::assertSame(
            [
                'id' => '0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01',
                'status' => 'pending',
                'amount' => 40.0,
                'storeId' => 'store_1',
                'livemode' => false,
                'createdAt' => '2026-11-26T10:00:00.000Z',
                'webhookUrl' => 'https://loja.example.com/hooks',
                'observation' => null,
                'email' => 'cliente@example.com',
                'qrCodeUrl' => 'https://pix.example.com/qr/1.png',
                'qrCopyPaste' => '00020101021226',
                'isPublic' => true,
                'refundedAmount' => 12.5,
                'expiresAt' => '2026-11-27T10:00:00.000Z',
                'dispute' => null,
            ],
            get_object_vars($payment),
        );
    }

    public function testAPaymentUnderDisputeCarriesItAndItsDefence(): void
    {
        $defended = Fixtures::payment(['status' => 'approved', 'refundedAmount' => 0.0, 'dispute' => Fixtures::dispute([
            'defense' => ['text' => 'Entregue; segue o comprovante.', 'sentAt' => '2026-11-26T11:00:00.000Z'],
        ])]);
        $payment = Payment::fromArray($defended);
        self::assertInstanceOf(Dispute::class, $payment->dispute);
        self::assertSame(['open', 25.5, 'Entregue; segue o comprovante.'], [$payment->dispute->status, $payment->dispute->amountAtRisk, $payment->dispute->defense?->text]);
        self::assertSame($defended, $payment->toArray());
        self::assertNull(Payment::fromArray(Fixtures::payment(['dispute' => Fixtures::dispute()]))->dispute?->defense);
    }

    public function testBalanceTransactionsAndAStatementMapBackToTheApisJson(): void
    {
        $list = ['items' => [
            Fixtures::balanceTransaction(),
            Fixtures::balanceTransaction(['type' => 'med_return', 'amount' => -12.5, 'refundId' => 'r1', 'origin' => 'psp', 'nature' => 'med_fraud']),
        ], 'page' => 1, 'limit' => 100, 'total' => 2];
        $moves = BalanceTransactionList::fromArray($list);
        self::assertSame([25.5, -12.5], array_map(static fn ($t) => $t->amount, $moves->items));
        self::assertSame(['pix_received', 'med_return'], array_map(static fn ($t) => $t->type, $moves->items));
        self::assertSame($list, $moves->toArray());

        $statement = Statement::fromArray(Fixtures::statement());
        self::assertSame([12.5, 1, 13.0], [$statement->returnedByMed, $statement->counts->returnedByMed, $statement->net]);
        self::assertSame(Fixtures::statement(), $statement->toArray());
    }

    public function testValueObjectsAreReadonly(): void
    {
        $payment = Payment::fromArray(Fixtures::payment());
        $this->expectException(\Error::class);
        $this->expectExceptionMessage('Cannot modify readonly property');
        /** @phpstan-ignore-next-line the point of the test */
        $payment->status = 'approved';
    }

    public function testRefundAndItsList(): void
    {
        $list = RefundList::fromArray(['items' => [Fixtures::refund(), Fixtures::refund(['id' => 'r2', 'status' => 'failed', 'failureReason' => 'Conta encerrada'])]]);
        self::assertContainsOnlyInstancesOf(Refund::class, $list->items);
        self::assertSame(['pending', 'failed'], array_map(static fn (Refund $r) => $r->status, $list->items));
        self::assertSame([10.0, 'merchant', 'Troca', 'Conta encerrada'], [$list->items[0]->amount, $list->items[0]->origin, $list->items[0]->reason, $list->items[1]->failureReason]);
        self::assertNull($list->items[0]->nature);
    }

    public function testARefundThePspMadeOnItsOwn(): void
    {
        $med = Refund::fromArray(Fixtures::refund(['origin' => 'psp', 'nature' => 'med_fraud', 'reason' => null, 'status' => 'succeeded']));
        self::assertSame(['psp', 'med_fraud', null], [$med->origin, $med->nature, $med->reason]);
    }

    public function testEventBodiesArePaymentOrRefundWebhooks(): void
    {
        $changed = Event::fromArray(Fixtures::event(Fixtures::paymentWebhook()));
        self::assertInstanceOf(PaymentWebhook::class, $changed->body);
        self::assertSame(['payment.status_changed', 'approved', 'pending'], [$changed->body->event, $changed->body->status, $changed->body->previousStatus]);

        $created = Webhook::fromArray(Fixtures::paymentWebhook('payment.created'));
        self::assertInstanceOf(PaymentWebhook::class, $created);
        self::assertNull($created->previousStatus);

        foreach (['refund.created', 'refund.succeeded', 'refund.failed'] as $type) {
            $event = Event::fromArray(Fixtures::event(Fixtures::refundWebhook($type)));
            self::assertInstanceOf(RefundWebhook::class, $event->body);
            self::assertSame([$type, $type, '0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01', 'store_1'], [$event->type, $event->body->event, $event->paymentId, $event->body->storeId]);
        }

        $closed = Fixtures::disputeWebhook('payment.dispute_closed', [
            'status' => 'closed',
            'decision' => 'accepted',
            'closedAt' => '2026-11-28T10:00:00.000Z',
            'defense' => ['text' => 'Entregue', 'sentAt' => '2026-11-27T10:00:00.000Z'],
        ]);
        $event = Event::fromArray(Fixtures::event($closed));
        self::assertInstanceOf(DisputeWebhook::class, $event->body);
        self::assertSame(['payment.dispute_closed', 'accepted', 'Entregue', null], [$event->body->event, $event->body->dispute->decision, $event->body->dispute->defense?->text, $event->body->hoursLeft]);
        // Back to the body as it was sent, field for field.
        self::assertSame($closed, json_decode(json_encode($event->body, JSON_THROW_ON_ERROR), true, 512, JSON_THROW_ON_ERROR));
        $reminder = Fixtures::disputeWebhook('payment.dispute_reminder');
        self::assertSame($reminder, Webhook::fromArray($reminder)->toArray());
    }

    public function testEventDetailCarriesItsAttempts(): void
    {
        $detail = EventDetail::fromArray(Fixtures::event(Fixtures::paymentWebhook('payment.created'), [
            'attemptCount' => 2,
            'attempts' => [
                ['run' => 1, 'attempt' => 1, 'at' => '2026-11-26T10:00:01.000Z', 'outcome' => 'failure', 'statusCode' => 500, 'latencyMs' => 12, 'error' => null],
                ['run' => 2, 'attempt' => 1, 'at' => '2026-11-26T10:01:00.000Z', 'outcome' => null, 'statusCode' => null, 'latencyMs' => null, 'error' => null],
            ],
        ]));
        self::assertSame(2, $detail->attemptCount);
        self::assertSame([[1, 1, 'failure', 500], [2, 1, null, null]], array_map(static fn ($a) => [$a->run, $a->attempt, $a->outcome, $a->statusCode], $detail->attempts));
    }

    /** @return iterable<string, array{array<string, mixed>, string}> */
    public static function drifts(): iterable
    {
        $without = static function (string $key): array {
            $payment = Fixtures::payment();
            unset($payment[$key]);
            return $payment;
        };
        yield 'a required field gone' => [$without('expiresAt'), '"expiresAt" is missing'];
        yield 'a nullable field gone' => [$without('qrCodeUrl'), '"qrCodeUrl" is missing'];
        yield 'a required field null' => [Fixtures::payment(['storeId' => null]), '"storeId" should be a string, got null'];
        yield 'an amount as a string' => [Fixtures::payment(['amount' => '25.50']), '"amount" should be a number, got string'];
        yield 'a boolean as a number' => [Fixtures::payment(['isPublic' => 1]), '"isPublic" should be a boolean, got int'];
    }

    /**
     * @dataProvider drifts
     * @param array<string, mixed> $data
     */
    public function testADriftNamesTheField(array $data, string $message): void
    {
        $this->expectException(UnexpectedResponseException::class);
        $this->expectExceptionMessage($message);
        Payment::fromArray($data);
    }

    public function testAnUnknownEventTypeIsNotMapped(): void
    {
        $this->expectException(UnexpectedResponseException::class);
        $this->expectExceptionMessage('not an event of this API (payment.deleted)');
        Webhook::fromArray(['event' => 'payment.deleted'] + Fixtures::payment());
    }

    public function testToArrayGivesBackTheApisJson(): void
    {
        $payment = Fixtures::payment(['amount' => 25.5, 'refundedAmount' => 0.0]);
        self::assertSame($payment, Payment::fromArray($payment)->toArray());
        self::assertSame(json_encode($payment), json_encode(Payment::fromArray($payment)));

        foreach ([Fixtures::paymentWebhook('payment.created'), Fixtures::paymentWebhook(), Fixtures::refundWebhook('refund.failed')] as $body) {
            $event = Fixtures::event($body);
            self::assertSame($event, Event::fromArray($event)->toArray(), $body['event']);
        }
        $detail = Fixtures::event(Fixtures::paymentWebhook(), ['attempts' => [
            ['run' => 1, 'attempt' => 1, 'at' => '2026-11-26T10:00:01.000Z', 'outcome' => 'success', 'statusCode' => 200, 'latencyMs' => 3, 'error' => null],
        ]]);
        self::assertSame($detail, EventDetail::fromArray($detail)->toArray());
        $list = ['items' => [Fixtures::refund(['amount' => 10.0])]];
        self::assertSame($list, RefundList::fromArray($list)->toArray());
    }
}
