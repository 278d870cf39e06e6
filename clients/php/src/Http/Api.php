<?php

declare(strict_types=1);

namespace PixPayments\Http;

use PixPayments\Exception\ApiException;
use PixPayments\Exception\UnexpectedResponseException;

/**
 * The API's conventions over a Transport: the bearer token, JSON both ways, errors as exceptions,
 * and the idempotent, retried POST of creates and refunds.
 *
 * @internal the resources' shared plumbing; use Client
 */
final class Api
{
    public const V1 = '/public-api/v1';

    public function __construct(
        private readonly string $baseUrl,
        private readonly string $token,
        private readonly Transport $transport,
        private readonly RetryPolicy $retry,
        private readonly string $userAgent,
    ) {
    }

    /**
     * One exchange, never retried: the decoded JSON object of a 2xx, an ApiException for any other
     * status, a ConnectionException when no answer came.
     *
     * @param array<string, scalar|null> $query null values are left out
     * @param array<string, mixed>|null $body sent as a JSON object; null: no body
     * @param array<string, string> $headers
     * @return array<string, mixed>
     */
    public function request(
        string $method,
        string $path,
        array $query = [],
        ?array $body = null,
        array $headers = [],
    ): array {
        $url = rtrim($this->baseUrl, '/') . $path;
        $query = array_filter($query, static fn ($value) => $value !== null);
        if ($query !== []) {
            $url .= '?' . http_build_query(array_map(self::queryValue(...), $query), '', '&', PHP_QUERY_RFC3986);
        }
        $headers = [
            'Accept' => 'application/json',
            'Authorization' => 'Bearer ' . $this->token,
            'User-Agent' => $this->userAgent,
        ] + $headers;
        $payload = null;
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
            // An empty array would encode as [], and the API takes a JSON object.
            $payload = json_encode(
                $body === [] ? new \stdClass() : $body,
                JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE,
            );
        }
        $response = $this->transport->send($method, $url, $headers, $payload);
        $json = json_decode($response->body, true);
        if ($response->status >= 200 && $response->status < 300) {
            if (!is_array($json)) {
                throw new UnexpectedResponseException(
                    sprintf('%s %s: HTTP %d without a JSON object', $method, $path, $response->status),
                );
            }
            return $json;
        }
        $message = is_array($json) && is_string($json['message'] ?? null)
            ? $json['message']
            : ($response->body !== '' ? $response->body : "HTTP {$response->status}");
        throw new ApiException($response->status, $message);
    }

    /**
     * A POST that creates something, safe to send again: it carries an Idempotency-Key (a new random
     * one unless given) and is retried on network errors and 5xx with that same key, so that a retry
     * never makes a second payment or refund; a 4xx is thrown at once.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public function idempotentPost(string $path, array $body, ?string $idempotencyKey): array
    {
        $key = $idempotencyKey ?? self::uuid4();
        return $this->retry->run(fn () => $this->request('POST', $path, [], $body, ['Idempotency-Key' => $key]));
    }

    /** A path segment: an id the caller gave, encoded so it stays one segment. */
    public static function segment(string $value): string
    {
        return rawurlencode($value);
    }

    /** A random UUID (version 4, RFC 9562). */
    public static function uuid4(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0f) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }

    private static function queryValue(string|int|float|bool $value): string
    {
        return is_bool($value) ? ($value ? 'true' : 'false') : (string) $value;
    }
}
