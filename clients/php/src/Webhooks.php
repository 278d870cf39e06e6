<?php

declare(strict_types=1);

namespace PixPayments;

use PixPayments\Exception\UnexpectedResponseException;
use PixPayments\Exception\WebhookVerificationException;
use PixPayments\Model\DisputeWebhook;
use PixPayments\Model\PaymentWebhook;
use PixPayments\Model\RefundWebhook;
use PixPayments\Model\Webhook;

/**
 * Verifies the webhooks the platform sends, following Standard Webhooks (standardwebhooks.com):
 * an HMAC-SHA256 of "webhook-id.webhook-timestamp.body" with the store's secret, and a timestamp
 * within 5 minutes of now.
 */
final class Webhooks
{
    /** How far the webhook-timestamp may be from now, either way, in seconds. */
    public const TOLERANCE = 300;

    private const SECRET_PREFIX = 'whsec_';

    private function __construct()
    {
    }

    /**
     * Verifies a webhook as it arrived: the raw body (file_get_contents('php://input'), before any
     * JSON decoding), its headers (getallheaders(), a PSR-7 getHeaders(), or $_SERVER) and the
     * store's secret (whsec_…). Returns the event, a PaymentWebhook, a RefundWebhook or a
     * DisputeWebhook told apart by `event`. Deduplicate on the webhook-id header: an event may arrive more than once.
     *
     * @param array<string, string|list<string>> $headers names in any case
     * @param int|null $now Unix seconds to judge the timestamp against (time() by default), e.g. to
     *   verify a stored delivery again
     * @throws WebhookVerificationException when no signature matches, the timestamp is out of
     *   tolerance, or the body is not an event of this API
     */
    public static function verify(
        string $rawBody,
        array $headers,
        string $secret,
        ?int $now = null,
    ): PaymentWebhook|RefundWebhook|DisputeWebhook {
        $id = self::header($headers, 'webhook-id');
        $timestamp = self::header($headers, 'webhook-timestamp');
        $signatures = self::header($headers, 'webhook-signature');
        if ($id === '' || $timestamp === '' || $signatures === '') {
            throw new WebhookVerificationException(
                'webhook not verified: missing webhook-id, webhook-timestamp or webhook-signature',
            );
        }
        if (preg_match('/^\d{1,15}$/', $timestamp) !== 1) {
            throw new WebhookVerificationException('webhook not verified: invalid webhook-timestamp');
        }
        $now ??= time();
        if ($now - (int) $timestamp > self::TOLERANCE) {
            throw new WebhookVerificationException('webhook not verified: timestamp too old');
        }
        if ((int) $timestamp - $now > self::TOLERANCE) {
            throw new WebhookVerificationException('webhook not verified: timestamp too new');
        }
        $expected = base64_encode(hash_hmac('sha256', "{$id}.{$timestamp}.{$rawBody}", self::key($secret), true));
        $matched = false;
        // One "v1,<base64>" per secret in force, space-separated: any one of them will do.
        foreach (explode(' ', $signatures) as $signature) {
            [$version, $value] = array_pad(explode(',', $signature, 2), 2, '');
            if ($version === 'v1' && hash_equals($expected, $value)) {
                $matched = true;
            }
        }
        if (!$matched) {
            throw new WebhookVerificationException('webhook not verified: no matching signature');
        }
        $data = json_decode($rawBody, true);
        if (!is_array($data)) {
            throw new WebhookVerificationException('webhook not verified: the body is not a JSON object');
        }
        $event = $data['event'] ?? null;
        if (!in_array($event, Webhook::EVENTS, true)) {
            throw new WebhookVerificationException(sprintf(
                'webhook not verified: not an event of this API (%s)',
                is_string($event) ? $event : get_debug_type($event),
            ));
        }
        try {
            return Webhook::fromArray($data);
        } catch (UnexpectedResponseException $e) {
            throw new WebhookVerificationException('webhook not verified: ' . $e->getMessage(), 0, $e);
        }
    }

    private static function key(string $secret): string
    {
        if (str_starts_with($secret, self::SECRET_PREFIX)) {
            $secret = substr($secret, strlen(self::SECRET_PREFIX));
        }
        $key = base64_decode($secret, true);
        if ($key === false || $key === '') {
            throw new WebhookVerificationException('webhook not verified: the secret is not whsec_ followed by base64');
        }
        return $key;
    }

    /**
     * A header's value whatever its case, from getallheaders() or PSR-7 (a list of values) or
     * $_SERVER (HTTP_WEBHOOK_ID).
     *
     * @param array<string, string|list<string>> $headers
     */
    private static function header(array $headers, string $name): string
    {
        $server = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
        foreach ($headers as $key => $value) {
            if (strcasecmp((string) $key, $name) === 0 || $key === $server) {
                return is_array($value) ? implode(' ', $value) : (string) $value;
            }
        }
        return '';
    }
}
