<?php

declare(strict_types=1);

namespace PixPayments\Resource;

use PixPayments\Http\Api;
use PixPayments\Model\BalanceTransaction;
use PixPayments\Model\BalanceTransactionList;

/** Every movement of the store's money, in signed BRL: $client->balanceTransactions. */
final class BalanceTransactions
{
    /** @internal built by Client */
    public function __construct(private readonly Api $api)
    {
    }

    /**
     * One page, newest first. `from` and `to` are days in America/Sao_Paulo, inclusive: AAAA-MM-DD,
     * or a DateTimeInterface, whose day there is sent; without them, the 31 days up to today. `type`:
     * pix_received, refund, med_return, late_pix_received or late_pix_returned.
     *
     * @param array{
     *     type?: ?string,
     *     from?: string|\DateTimeInterface|null,
     *     to?: string|\DateTimeInterface|null,
     *     page?: ?int,
     *     limit?: ?int,
     * } $query
     */
    public function list(array $query = []): BalanceTransactionList
    {
        foreach (['from', 'to'] as $day) {
            if (isset($query[$day])) {
                $query[$day] = SaoPauloDay::of($query[$day]);
            }
        }
        return BalanceTransactionList::fromArray($this->api->request('GET', Api::V1 . '/balance-transactions', $query));
    }

    /**
     * Every balance transaction matching the query, page after page (100 a page unless `limit` says
     * otherwise), each asked for when the iteration reaches it.
     *
     * @param array{
     *     type?: ?string,
     *     from?: string|\DateTimeInterface|null,
     *     to?: string|\DateTimeInterface|null,
     *     limit?: ?int,
     * } $query
     * @return \Generator<int, BalanceTransaction, mixed, void>
     */
    public function listAll(array $query = []): \Generator
    {
        return Pages::walk(fn (array $q) => $this->list($q), $query);
    }
}
