<?php

declare(strict_types=1);

namespace PixPayments\Resource;

use PixPayments\Http\Api;
use PixPayments\Model\Refund;
use PixPayments\Model\RefundList;

/** Refunds of approved payments: $client->refunds. */
final class Refunds
{
    /** @internal built by Client */
    public function __construct(private readonly Api $api)
    {
    }

    /**
     * Refunds all (no `amount`) or part of an approved payment. Idempotent and retried with its key,
     * as payments->create is: a retry never refunds twice.
     *
     * @param array{amount?: float|int|null, reason?: ?string} $params
     */
    public function create(string $paymentId, array $params = [], ?string $idempotencyKey = null): Refund
    {
        return Refund::fromArray($this->api->idempotentPost($this->path($paymentId), $params, $idempotencyKey));
    }

    /** The payment's refunds, newest first. */
    public function list(string $paymentId): RefundList
    {
        return RefundList::fromArray($this->api->request('GET', $this->path($paymentId)));
    }

    public function get(string $paymentId, string $refundId): Refund
    {
        return Refund::fromArray($this->api->request('GET', $this->path($paymentId) . '/' . Api::segment($refundId)));
    }

    private function path(string $paymentId): string
    {
        return Api::V1 . '/payments/' . Api::segment($paymentId) . '/refunds';
    }
}
