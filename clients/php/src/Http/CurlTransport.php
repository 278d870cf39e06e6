<?php

declare(strict_types=1);

namespace PixPayments\Http;

use PixPayments\Exception\ConnectionException;

/** HTTP over ext-curl, one handle kept for the client's life so that connections are reused. */
final class CurlTransport implements Transport
{
    private ?\CurlHandle $handle = null;

    /** @param float $timeout seconds for the whole exchange; a timeout is a connection error */
    public function __construct(private readonly float $timeout = 30.0)
    {
    }

    public function send(string $method, string $url, array $headers, ?string $body): Response
    {
        $this->handle ??= curl_init();
        $handle = $this->handle;
        curl_reset($handle);
        $lines = [];
        foreach ($headers as $name => $value) {
            $lines[] = "{$name}: {$value}";
        }
        // curl would otherwise send Expect: 100-continue for larger bodies and wait for an answer to it.
        $lines[] = 'Expect:';
        $options = [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT_MS => (int) round($this->timeout * 1000),
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
        ];
        if ($body !== null) {
            $options[CURLOPT_POSTFIELDS] = $body;
        }
        curl_setopt_array($handle, $options);
        $answer = curl_exec($handle);
        if (!is_string($answer)) {
            throw new ConnectionException(
                sprintf('%s %s: %s', $method, $url, curl_error($handle)),
                curl_errno($handle),
            );
        }
        return new Response((int) curl_getinfo($handle, CURLINFO_RESPONSE_CODE), $answer);
    }
}
