<?php

declare(strict_types=1);

namespace PixPayments\Http;

use PixPayments\Exception\ConnectionException;

/**
 * Sends one HTTP request and returns whatever status came back. The client uses CurlTransport;
 * another implementation (a proxy, a PSR-18 client in an adapter) can be passed as the `transport` option.
 */
interface Transport
{
    /**
     * @param array<string, string> $headers
     * @throws ConnectionException when no answer came (connection refused, reset, timed out)
     */
    public function send(string $method, string $url, array $headers, ?string $body): Response;
}
