<?php

declare(strict_types=1);

namespace PixPayments\Tests;

use PHPUnit\Framework\TestCase;
use PixPayments\Client;
use PixPayments\Exception\ApiException;
use PixPayments\Exception\ConnectionException;
use PixPayments\Exception\UnexpectedResponseException;
use PixPayments\Http\Response;
use PixPayments\Model\Payment;

/** The client's requests and its handling of answers, over a scripted transport (no server). */
final class ClientTest extends TestCase
{
    private const UUID_V4 = '/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/';

    private function client(FakeTransport $transport): Client
    {
        return new Client([
            'baseUrl' => 'https://api.example.com/',
            'token' => 'pxt_secret',
            'transport' => $transport,
            'retry' => ['baseDelayMs' => 1, 'maxDelayMs' => 4],
        ]);
    }

    public function testCreateSendsTheBodyTheTokenAndANewUuidKey(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, Fixtures::payment()), FakeTransport::json(200, Fixtures::payment())]);
        $client = $this->client($transport);
        $payment = $client->payments->create(['amount' => 25.5, 'email' => 'cliente@example.com', 'observation' => 'Pedido nº 7']);
        $client->payments->create(['amount' => 25.5]);

        self::assertInstanceOf(Payment::class, $payment);
        [$first, $second] = $transport->sent;
        self::assertSame('POST', $first['method']);
        self::assertSame('https://api.example.com/public-api/v1/payments', $first['url']);
        self::assertSame('{"amount":25.5,"email":"cliente@example.com","observation":"Pedido nº 7"}', $first['body']);
        self::assertSame('Bearer pxt_secret', $first['headers']['Authorization']);
        self::assertSame('application/json', $first['headers']['Content-Type']);
        self::assertMatchesRegularExpression(self::UUID_V4, $first['headers']['Idempotency-Key']);
        self::assertMatchesRegularExpression(self::UUID_V4, $second['headers']['Idempotency-Key']);
        self::assertNotSame($first['headers']['Idempotency-Key'], $second['headers']['Idempotency-Key']);
    }

    public function testCreateRetriesConnectionErrorsAnd5xxWithTheSameKey(): void
    {
        $transport = new FakeTransport([
            new ConnectionException('connection reset'),
            FakeTransport::json(503, ['statusCode' => 503, 'message' => 'Serviço indisponível.']),
            new Response(502, '<html>Bad Gateway</html>'),
            FakeTransport::json(200, Fixtures::payment()),
        ]);
        $payment = $this->client($transport)->payments->create(['amount' => 25.5], idempotencyKey: 'pedido-42');

        self::assertSame(25.5, $payment->amount);
        self::assertCount(4, $transport->sent);
        self::assertSame(['pedido-42'], array_values(array_unique(array_map(static fn ($r) => $r['headers']['Idempotency-Key'], $transport->sent))));
    }

    public function testCreateGivesUpAfterThreeRetries(): void
    {
        $transport = new FakeTransport(array_fill(0, 4, FakeTransport::json(500, ['statusCode' => 500, 'message' => 'Erro interno.'])));
        try {
            $this->client($transport)->payments->create(['amount' => 10]);
            self::fail('no exception');
        } catch (ApiException $e) {
            self::assertSame([500, 'Erro interno.'], [$e->getStatusCode(), $e->getMessage()]);
        }
        self::assertCount(4, $transport->sent);
    }

    public function testA4xxIsThrownAtOnceWithTheApisMessage(): void
    {
        $message = 'Valor mínimo permitido para geração de pagamentos é R$ 5,00.';
        $transport = new FakeTransport([FakeTransport::json(400, ['statusCode' => 400, 'message' => $message])]);
        try {
            $this->client($transport)->payments->create(['amount' => 1]);
            self::fail('no exception');
        } catch (ApiException $e) {
            self::assertSame([400, $message], [$e->getStatusCode(), $e->getMessage()]);
        }
        self::assertCount(1, $transport->sent);
    }

    public function testReadsAndCancelAreNeverRetried(): void
    {
        $down = static fn () => FakeTransport::json(503, ['statusCode' => 503, 'message' => 'Indisponível.']);
        $transport = new FakeTransport([$down(), new ConnectionException('timeout'), $down(), $down()]);
        $client = $this->client($transport);
        $calls = [
            static fn () => $client->payments->get('p1'),
            static fn () => $client->payments->list(),
            static fn () => $client->payments->cancel('p1'),
            static fn () => $client->events->redeliver('evt_1'),
        ];
        foreach ($calls as $call) {
            try {
                $call();
                self::fail('no exception');
            } catch (ApiException | ConnectionException) {
            }
        }
        self::assertCount(4, $transport->sent);
        self::assertSame([], array_filter(array_map(static fn ($r) => $r['headers']['Idempotency-Key'] ?? null, $transport->sent)));
    }

    public function testRefundsAreIdempotentAndAnEmptyBodyIsAJsonObject(): void
    {
        $transport = new FakeTransport([
            new ConnectionException('refused'),
            FakeTransport::json(200, Fixtures::refund(['amount' => 25.5])),
            FakeTransport::json(200, Fixtures::refund()),
        ]);
        $client = $this->client($transport);
        $all = $client->refunds->create('p/1');
        $part = $client->refunds->create('p1', ['amount' => 10, 'reason' => 'Troca'], 'rf-1');

        self::assertSame([25.5, 10.0], [$all->amount, $part->amount]);
        [$first, $retry, $third] = $transport->sent;
        self::assertSame('https://api.example.com/public-api/v1/payments/p%2F1/refunds', $first['url']);
        self::assertSame('{}', $first['body']);
        self::assertSame($first['headers']['Idempotency-Key'], $retry['headers']['Idempotency-Key']);
        self::assertSame('{"amount":10,"reason":"Troca"}', $third['body']);
        self::assertSame('rf-1', $third['headers']['Idempotency-Key']);
    }

    public function testListSendsOnlyTheGivenQuery(): void
    {
        $page = ['items' => [Fixtures::payment()], 'page' => 2, 'limit' => 1, 'total' => 5];
        $transport = new FakeTransport([FakeTransport::json(200, $page)]);
        $list = $this->client($transport)->payments->list(['status' => 'pending', 'page' => 2, 'limit' => 1, 'other' => null]);

        self::assertSame('https://api.example.com/public-api/v1/payments?status=pending&page=2&limit=1', $transport->sent[0]['url']);
        self::assertSame([2, 1, 5], [$list->page, $list->limit, $list->total]);
        self::assertSame('0b8f5a8e-6d0c-4a43-9f3e-2d1c6f1e9a01', $list->items[0]->id);
    }

    public function testListAllAsksForEachPageOnlyWhenTheIterationReachesIt(): void
    {
        $page = static fn (int $n, array $ids) => FakeTransport::json(200, [
            'items' => array_map(static fn ($id) => Fixtures::payment(['id' => $id]), $ids),
            'page' => $n,
            'limit' => 2,
            'total' => 5,
        ]);
        $transport = new FakeTransport([$page(1, ['a', 'b']), $page(2, ['c', 'd']), $page(3, ['e'])]);
        $all = $this->client($transport)->payments->listAll(['status' => 'approved', 'limit' => 2]);

        self::assertCount(0, $transport->sent);
        self::assertSame('a', $all->current()->id);
        self::assertCount(1, $transport->sent);
        $ids = [];
        foreach ($all as $payment) {
            $ids[] = $payment->id;
        }
        self::assertSame(['a', 'b', 'c', 'd', 'e'], $ids);
        self::assertSame([
            'https://api.example.com/public-api/v1/payments?page=1&limit=2&status=approved',
            'https://api.example.com/public-api/v1/payments?page=2&limit=2&status=approved',
            'https://api.example.com/public-api/v1/payments?page=3&limit=2&status=approved',
        ], array_column($transport->sent, 'url'));
    }

    public function testEventsListAllStopsAtAnEmptyPageAndDefaultsTo100APage(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, ['items' => [], 'page' => 1, 'limit' => 100, 'total' => 0])]);
        self::assertSame([], iterator_to_array($this->client($transport)->events->listAll(['type' => 'refund.failed'])));
        self::assertSame('https://api.example.com/public-api/v1/events?page=1&limit=100&type=refund.failed', $transport->sent[0]['url']);
    }

    public function testSandboxRoutes(): void
    {
        $analysis = static fn (string $a) => FakeTransport::json(200, ['paymentId' => 'p1', 'txid' => 't', 'endToEndId' => 'E1', 'analysis' => $a]);
        $transport = new FakeTransport([
            FakeTransport::json(200, ['paymentId' => 'p1', 'txid' => 't', 'endToEndId' => 'E1', 'amount' => 25.5]),
            FakeTransport::json(200, ['paymentId' => 'p1', 'txid' => 't', 'endToEndId' => 'E2', 'amount' => 20]),
            $analysis('review'),
            $analysis('cleared'),
            $analysis('rejected'),
            FakeTransport::json(200, ['paymentId' => 'p1', 'txid' => 't', 'failureReason' => 'Conta encerrada']),
        ]);
        $sandbox = $this->client($transport)->sandbox;
        self::assertSame(25.5, $sandbox->pay('p1')->amount);
        self::assertSame(20.0, $sandbox->pay('p1', ['amount' => 20])->amount);
        self::assertSame('review', $sandbox->review('p1')->analysis);
        self::assertSame('cleared', $sandbox->clear('p1')->analysis);
        self::assertSame('rejected', $sandbox->reject('p1')->analysis);
        self::assertSame('Conta encerrada', $sandbox->failNextRefund('p1')->failureReason);

        $base = 'https://api.example.com/public-api/v1/sandbox/payments/p1/';
        self::assertSame(
            [$base . 'pay', $base . 'pay', $base . 'review', $base . 'clear', $base . 'reject', $base . 'fail-next-refund'],
            array_column($transport->sent, 'url'),
        );
        self::assertSame([null, '{"amount":20}', null, null, null, null], array_column($transport->sent, 'body'));
    }

    public function testDefendDisputePostsTheTextOnceAndA409IsThrown(): void
    {
        $refused = ['statusCode' => 409, 'message' => 'Este pagamento não tem uma contestação aberta.'];
        $transport = new FakeTransport([
            FakeTransport::json(200, Fixtures::payment(['status' => 'approved', 'dispute' => Fixtures::dispute()])),
            FakeTransport::json(409, $refused),
        ]);
        $client = $this->client($transport);
        self::assertSame('open', $client->payments->defendDispute('p1', 'Entregue; segue o comprovante.')->dispute?->status);
        try {
            $client->payments->defendDispute('p/2', 'Entregue.');
            self::fail('no exception');
        } catch (ApiException $e) {
            self::assertSame([409, $refused['message']], [$e->getStatusCode(), $e->getMessage()]);
        }
        self::assertSame([
            ['POST', 'https://api.example.com/public-api/v1/payments/p1/dispute/defense', '{"text":"Entregue; segue o comprovante."}'],
            ['POST', 'https://api.example.com/public-api/v1/payments/p%2F2/dispute/defense', '{"text":"Entregue."}'],
        ], array_map(static fn ($r) => [$r['method'], $r['url'], $r['body']], $transport->sent));
        self::assertArrayNotHasKey('Idempotency-Key', $transport->sent[0]['headers']);
    }

    public function testBalanceTransactionsSendSaoPauloDaysAndListAllWalksThePages(): void
    {
        $page = static fn (int $n, array $ends) => FakeTransport::json(200, [
            'items' => array_map(static fn ($e) => Fixtures::balanceTransaction(['endToEndId' => $e]), $ends),
            'page' => $n,
            'limit' => 2,
            'total' => 3,
        ]);
        $transport = new FakeTransport([
            FakeTransport::json(200, ['items' => [], 'page' => 1, 'limit' => 100, 'total' => 0]),
            $page(1, ['E1', 'E2']),
            $page(2, ['E3']),
        ]);
        $client = $this->client($transport);
        self::assertSame(0, $client->balanceTransactions->list()->total);
        // 02:30 UTC is still the evening before in São Paulo (UTC−3).
        $evening = new \DateTimeImmutable('2026-11-29T02:30:00Z');
        $all = $client->balanceTransactions->listAll(['type' => 'pix_received', 'from' => '2026-11-01', 'to' => $evening, 'limit' => 2]);
        self::assertSame('E1', $all->current()->endToEndId);
        self::assertCount(2, $transport->sent);
        $ends = [];
        foreach ($all as $move) {
            $ends[] = $move->endToEndId;
        }
        self::assertSame(['E1', 'E2', 'E3'], $ends);
        $base = 'https://api.example.com/public-api/v1/balance-transactions';
        self::assertSame([
            $base,
            "{$base}?page=1&limit=2&type=pix_received&from=2026-11-01&to=2026-11-28",
            "{$base}?page=2&limit=2&type=pix_received&from=2026-11-01&to=2026-11-28",
        ], array_column($transport->sent, 'url'));
    }

    public function testAStatementIsAskedForByItsDayInSaoPaulo(): void
    {
        $transport = new FakeTransport(array_fill(0, 4, FakeTransport::json(200, Fixtures::statement())));
        $statements = $this->client($transport)->statements;
        self::assertSame(12.5, $statements->retrieve('2026-11-28')->returnedByMed);
        $statements->retrieve(new \DateTimeImmutable('2026-11-29T02:59:59Z'));
        $statements->retrieve(new \DateTime('2026-11-29T03:00:00+00:00'));
        $statements->retrieve(new \DateTimeImmutable('2026-11-29T23:30:00', new \DateTimeZone('America/Sao_Paulo')));
        $base = 'https://api.example.com/public-api/v1/statements/';
        self::assertSame(
            [$base . '2026-11-28', $base . '2026-11-28', $base . '2026-11-29', $base . '2026-11-29'],
            array_column($transport->sent, 'url'),
        );
    }

    public function testAnErrorWithoutAJsonBodyKeepsItsText(): void
    {
        $transport = new FakeTransport([new Response(502, 'Bad Gateway'), new Response(504, '')]);
        $client = $this->client($transport);
        foreach (['Bad Gateway', 'HTTP 504'] as $message) {
            try {
                $client->payments->get('p1');
                self::fail('no exception');
            } catch (ApiException $e) {
                self::assertSame($message, $e->getMessage());
            }
        }
    }

    public function testA2xxThatIsNotThePaymentIsReportedByField(): void
    {
        $payment = Fixtures::payment();
        unset($payment['storeId']);
        $transport = new FakeTransport([FakeTransport::json(200, $payment), new Response(200, 'ok')]);
        $client = $this->client($transport);
        try {
            $client->payments->get('p1');
            self::fail('no exception');
        } catch (UnexpectedResponseException $e) {
            self::assertStringContainsString('"storeId" is missing', $e->getMessage());
        }
        $this->expectException(UnexpectedResponseException::class);
        $client->payments->get('p1');
    }

    public function testRequiresBaseUrlAndToken(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new Client(['baseUrl' => 'https://api.example.com', 'token' => '']);
    }
}
