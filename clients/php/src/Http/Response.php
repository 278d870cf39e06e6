<?php

declare(strict_types=1);

namespace PixPayments\Http;

/** An HTTP answer: its status and its body as received. */
final class Response
{
    public function __construct(
        public readonly int $status,
        public readonly string $body,
    ) {
    }
}
