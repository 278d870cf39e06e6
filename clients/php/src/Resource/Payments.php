<?php

declare(strict_types=1);

namespace PixPayments\Resource;

use PixPayments\Http\Api;
use PixPayments\Model\Payment;
use PixPayments\Model\PaymentList;

/** The store's payments: $client->payments. */
final class Payments
{
    /** @internal built by Client */
    public function __construct(private readonly Api $api)
    {
    }

    /**
     * Creates a payment. Sends an Idempotency-Key (a new random UUID unless you give one: an order id
     * makes the create safe to repeat across restarts) and retries network errors, timeouts and 5xx
     * with that same key; the API answers a repeated key with the same payment.
     *
     * @param array{
     *     amount: float|int,
     *     email?: ?string,
     *     observation?: ?string,
     *     webhookUrl?: ?string,
     *     expiresIn?: ?int,
     * } $params
     */
    public function create(array $params, ?string $idempotencyKey = null): Payment
    {
        return Payment::fromArray($this->api->idempotentPost(Api::V1 . '/payments', $params, $idempotencyKey));
    }

    public function get(string $id): Payment
    {
        return Payment::fromArray($this->api->request('GET', Api::V1 . '/payments/' . Api::segment($id)));
    }

    /**
     * One page, newest first.
     *
     * @param array{status?: ?string, page?: ?int, limit?: ?int} $query
     */
    public function list(array $query = []): PaymentList
    {
        return PaymentList::fromArray($this->api->request('GET', Api::V1 . '/payments', $query));
    }

    /**
     * Every payment matching the query, asking for the next page (100 a page unless `limit` says
     * otherwise) only when the iteration reaches it.
     *
     * @param array{status?: ?string, limit?: ?int} $query
     * @return \Generator<int, Payment, mixed, void>
     */
    public function listAll(array $query = []): \Generator
    {
        return Pages::walk(fn (array $q) => $this->list($q), $query);
    }

    /** Cancels a pending payment: not_approved at once, its charge removed at the PSP. Not retried. */
    public function cancel(string $id): Payment
    {
        return Payment::fromArray($this->api->request('POST', Api::V1 . '/payments/' . Api::segment($id) . '/cancel'));
    }

    /**
     * Answers the payment's open dispute (MED) with a defence of 1 to 1000 characters, sent to the PSP
     * once; the same text again answers the payment as it is. Answers the payment, its dispute with
     * the defence; a payment without an open dispute is an ApiException 409. Not retried.
     */
    public function defendDispute(string $id, string $text): Payment
    {
        $path = Api::V1 . '/payments/' . Api::segment($id) . '/dispute/defense';
        return Payment::fromArray($this->api->request('POST', $path, [], ['text' => $text]));
    }
}
