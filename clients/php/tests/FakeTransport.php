<?php

declare(strict_types=1);

namespace PixPayments\Tests;

use PixPayments\Exception\ConnectionException;
use PixPayments\Http\Response;
use PixPayments\Http\Transport;

/** Answers from a script, one entry per request (a Response, or a ConnectionException to throw), and records what was sent. */
final class FakeTransport implements Transport
{
    /** @var list<array{method: string, url: string, headers: array<string, string>, body: ?string}> */
    public array $sent = [];

    /** @param list<Response|ConnectionException> $answers */
    public function __construct(private array $answers)
    {
    }

    public function send(string $method, string $url, array $headers, ?string $body): Response
    {
        $this->sent[] = ['method' => $method, 'url' => $url, 'headers' => $headers, 'body' => $body];
        $answer = array_shift($this->answers);
        if ($answer === null) {
            throw new \LogicException("no answer scripted for {$method} {$url}");
        }
        if ($answer instanceof ConnectionException) {
            throw $answer;
        }
        return $answer;
    }

    /** @param array<string, mixed> $body */
    public static function json(int $status, array $body): Response
    {
        return new Response($status, json_encode($body, JSON_THROW_ON_ERROR));
    }
}
