<?php

declare(strict_types=1);

namespace PixPayments\Resource;

use PixPayments\Http\Api;
use PixPayments\Model\Statement;

/** The store's statement of a day in America/Sao_Paulo: $client->statements. */
final class Statements
{
    /** @internal built by Client */
    public function __construct(private readonly Api $api)
    {
    }

    /**
     * The statement of a day: AAAA-MM-DD, or a DateTimeInterface, whose day in America/Sao_Paulo is
     * asked for (a balance transaction's `new DateTimeImmutable($t->createdAt)` reads the statement it
     * counts in).
     */
    public function retrieve(string|\DateTimeInterface $date): Statement
    {
        return Statement::fromArray(
            $this->api->request('GET', Api::V1 . '/statements/' . Api::segment(SaoPauloDay::of($date))),
        );
    }
}
