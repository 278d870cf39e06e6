<?php

declare(strict_types=1);

namespace PixPayments\Resource;

use PixPayments\Model\BalanceTransactionList;
use PixPayments\Model\EventList;
use PixPayments\Model\PaymentList;

/** @internal the page walk listAll shares */
final class Pages
{
    /**
     * Every item of every page from `page` (1 by default) on, one request per page, made only when
     * the iteration reaches it; `yield from` keeps keys running on across pages.
     *
     * @template T of PaymentList|EventList|BalanceTransactionList
     * @param callable(array<string, mixed>): T $list
     * @param array<string, mixed> $query
     */
    public static function walk(callable $list, array $query): \Generator
    {
        $limit = $query['limit'] ?? 100;
        for ($page = $query['page'] ?? 1; ; $page++) {
            $result = $list(['page' => $page, 'limit' => $limit] + $query);
            foreach ($result->items as $item) {
                yield $item;
            }
            if ($result->items === [] || $page * $result->limit >= $result->total) {
                return;
            }
        }
    }
}
