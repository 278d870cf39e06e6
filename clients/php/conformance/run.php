<?php

declare(strict_types=1);

/*
 * The PHP SDK's player of the shared conformance scenario (clients/conformance/README.md is the
 * format): every step of scenario.json as one call of PixPayments\Client, then every case of
 * webhooks.json through PixPayments\Webhooks::verify. It loads the package the way a merchant
 * without Composer does, with only autoload.php, so it also runs from a copy of clients/php made
 * anywhere. Prints `ok <name>` per step; at the first failure `FAIL <name>: <why>` and exit 1.
 *
 *   PIX_BASE_URL=… PIX_TOKEN=… PIX_WEBHOOK_SECRET=… PIX_WEBHOOK_URL=… PIX_CONFORMANCE_DIR=… php conformance/run.php
 */

require __DIR__ . '/../autoload.php';

use PixPayments\Client;
use PixPayments\Exception\ApiException;
use PixPayments\Exception\WebhookVerificationException;
use PixPayments\Webhooks;

final class StepFailed extends RuntimeException
{
}

/** @return array<string, string> the variables the README lists, each required */
function environment(): array
{
    $env = [];
    foreach (['PIX_BASE_URL', 'PIX_TOKEN', 'PIX_WEBHOOK_SECRET', 'PIX_WEBHOOK_URL', 'PIX_CONFORMANCE_DIR'] as $name) {
        $value = getenv($name);
        if (!is_string($value) || $value === '') {
            fwrite(STDERR, "run.php: {$name} is not set\n");
            exit(2);
        }
        $env[$name] = $value;
    }
    return $env;
}

/** The scenario's JSON with objects as stdClass, so that {} and [] stay apart for matching. */
function readJson(string $dir, string $file): stdClass
{
    $data = json_decode((string) file_get_contents("{$dir}/{$file}"), false, 512, JSON_THROW_ON_ERROR);
    if (!$data instanceof stdClass) {
        throw new RuntimeException("{$file}: not a JSON object");
    }
    return $data;
}

/** An object of the scenario or a result: a stdClass, or a PHP array with string keys. */
function isObject(mixed $value): bool
{
    return $value instanceof stdClass || (is_array($value) && $value !== [] && !array_is_list($value));
}

/** Why $actual does not match $expected (README: Matching), or null when it does. */
function mismatch(mixed $expected, mixed $actual, string $at = '$'): ?string
{
    $show = static fn (mixed $v): string => json_encode($v, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION) ?: get_debug_type($v);
    if (isObject($expected)) {
        if (!is_array($actual) || (array_is_list($actual) && $actual !== [])) {
            return "{$at}: expected an object, got {$show($actual)}";
        }
        foreach ((array) $expected as $key => $value) {
            if (!array_key_exists($key, $actual)) {
                return "{$at}.{$key}: absent";
            }
            $why = mismatch($value, $actual[$key], "{$at}.{$key}");
            if ($why !== null) {
                return $why;
            }
        }
        return null;
    }
    if (is_array($expected)) {
        if (!is_array($actual) || !array_is_list($actual)) {
            return "{$at}: expected an array, got {$show($actual)}";
        }
        if (count($actual) !== count($expected)) {
            return sprintf('%s: expected %d items, got %d', $at, count($expected), count($actual));
        }
        foreach ($expected as $i => $item) {
            $why = mismatch($item, $actual[$i], "{$at}.{$i}");
            if ($why !== null) {
                return $why;
            }
        }
        return null;
    }
    // JSON has one number type: 10 matches 10.0.
    $same = (is_int($expected) || is_float($expected))
        ? (is_int($actual) || is_float($actual)) && (float) $expected === (float) $actual
        : $expected === $actual;
    return $same ? null : "{$at}: expected {$show($expected)}, got {$show($actual)}";
}

/**
 * Replaces every `$name.path` and `$env.NAME` string in $value (README: References).
 *
 * @param array<string, mixed> $saved
 * @param array<string, string> $env
 */
function resolve(mixed $value, array $saved, array $env): mixed
{
    if ($value instanceof stdClass) {
        $copy = new stdClass();
        foreach ((array) $value as $key => $item) {
            $copy->{$key} = resolve($item, $saved, $env);
        }
        return $copy;
    }
    if (is_array($value)) {
        return array_map(static fn (mixed $item) => resolve($item, $saved, $env), $value);
    }
    if (!is_string($value) || preg_match('/^\$[A-Za-z_]\w*(\.[\w-]+)*$/', $value) !== 1) {
        return $value;
    }
    $path = explode('.', substr($value, 1));
    $name = array_shift($path);
    if ($name === 'env') {
        $found = $env[array_shift($path) ?? ''] ?? null;
    } elseif (array_key_exists($name, $saved)) {
        $found = $saved[$name];
    } else {
        throw new StepFailed("{$value}: nothing saved as {$name}");
    }
    foreach ($path as $step) {
        $found = is_array($found) ? ($found[$step] ?? null) : null;
    }
    if ($found === null) {
        throw new StepFailed("{$value}: refers to nothing");
    }
    return $found;
}

/** The scenario's params as the SDK takes them: PHP arrays, names unchanged (the SDK uses the API's camelCase). */
function plainParams(mixed $value): mixed
{
    if ($value instanceof stdClass) {
        $value = (array) $value;
    }
    return is_array($value) ? array_map('plainParams', $value) : $value;
}

/** A result as the API's JSON: value objects through toArray(), listAll's generator drained. */
function plainResult(mixed $result): mixed
{
    if ($result instanceof Generator) {
        return array_map('plainResult', iterator_to_array($result, false));
    }
    return $result instanceof JsonSerializable ? $result->jsonSerialize() : $result;
}

/**
 * @param array<string, mixed> $params
 * @return array<string, mixed>
 */
function without(array $params, string ...$names): array
{
    return array_diff_key($params, array_flip($names));
}

/** Each `call` of the scenario as the SDK's method. */
function calls(): array
{
    return [
        'payments.create' => static fn (Client $c, array $p) => $c->payments->create(without($p, 'idempotencyKey'), $p['idempotencyKey'] ?? null),
        'payments.get' => static fn (Client $c, array $p) => $c->payments->get($p['id']),
        'payments.list' => static fn (Client $c, array $p) => $c->payments->list($p),
        'payments.listAll' => static fn (Client $c, array $p) => $c->payments->listAll($p),
        'payments.cancel' => static fn (Client $c, array $p) => $c->payments->cancel($p['id']),
        'payments.defendDispute' => static fn (Client $c, array $p) => $c->payments->defendDispute($p['id'], $p['text']),
        'refunds.create' => static fn (Client $c, array $p) => $c->refunds->create($p['paymentId'], without($p, 'paymentId', 'idempotencyKey'), $p['idempotencyKey'] ?? null),
        'refunds.list' => static fn (Client $c, array $p) => $c->refunds->list($p['paymentId']),
        'refunds.get' => static fn (Client $c, array $p) => $c->refunds->get($p['paymentId'], $p['refundId']),
        'events.list' => static fn (Client $c, array $p) => $c->events->list($p),
        'events.listAll' => static fn (Client $c, array $p) => $c->events->listAll($p),
        'events.get' => static fn (Client $c, array $p) => $c->events->get($p['id']),
        'events.redeliver' => static fn (Client $c, array $p) => $c->events->redeliver($p['id']),
        'balanceTransactions.list' => static fn (Client $c, array $p) => $c->balanceTransactions->list($p),
        'balanceTransactions.listAll' => static fn (Client $c, array $p) => $c->balanceTransactions->listAll($p),
        // `at`, an instant: the SDK reads the statement of its day in America/Sao_Paulo.
        'statements.retrieve' => static fn (Client $c, array $p) => $c->statements->retrieve(isset($p['at']) ? new DateTimeImmutable($p['at']) : $p['date']),
        'sandbox.pay' => static fn (Client $c, array $p) => $c->sandbox->pay($p['paymentId'], without($p, 'paymentId')),
        'sandbox.review' => static fn (Client $c, array $p) => $c->sandbox->review($p['paymentId']),
        'sandbox.clear' => static fn (Client $c, array $p) => $c->sandbox->clear($p['paymentId']),
        'sandbox.reject' => static fn (Client $c, array $p) => $c->sandbox->reject($p['paymentId']),
        'sandbox.failNextRefund' => static fn (Client $c, array $p) => $c->sandbox->failNextRefund($p['paymentId']),
        'sandbox.med' => static fn (Client $c, array $p) => $c->sandbox->med($p['paymentId'], without($p, 'paymentId')),
    ];
}

/**
 * @param array<string, mixed> $saved
 * @param array<string, string> $env
 */
function playStep(stdClass $step, array $env, array &$saved): void
{
    $call = calls()[$step->call] ?? throw new StepFailed("unknown call {$step->call}");
    $client = new Client(['baseUrl' => $env['PIX_BASE_URL'], 'token' => $step->token ?? $env['PIX_TOKEN']]);
    $params = plainParams(resolve($step->params, $saved, $env));
    $run = static fn () => plainResult($call($client, $params));

    if (isset($step->error)) {
        try {
            $result = $run();
        } catch (ApiException $e) {
            $why = mismatch($step->error, ['status' => $e->getStatusCode(), 'message' => $e->getMessage()]);
            if ($why !== null) {
                throw new StepFailed("error {$why}");
            }
            return;
        }
        throw new StepFailed(sprintf('expected %d, got %s', $step->error->status, json_encode($result, JSON_UNESCAPED_UNICODE)));
    }

    $expected = resolve($step->expect ?? null, $saved, $env);
    $deadline = hrtime(true) + (int) (($step->poll->timeoutMs ?? 0) * 1e6);
    $result = $run();
    $why = mismatch($expected, $result);
    while ($why !== null && isset($step->poll) && hrtime(true) < $deadline) {
        usleep((int) $step->poll->intervalMs * 1000);
        $result = $run();
        $why = mismatch($expected, $result);
    }
    if ($why !== null) {
        throw new StepFailed($why . (isset($step->poll) ? " (after {$step->poll->timeoutMs} ms)" : ''));
    }
    if (isset($step->save)) {
        $saved[$step->save] = $result;
    }
}

function checkWebhook(stdClass $case, string $secret): void
{
    try {
        $event = Webhooks::verify($case->body, (array) $case->headers, $secret, $case->now);
    } catch (WebhookVerificationException $e) {
        if (($case->error ?? false) === true) {
            return;
        }
        throw new StepFailed('refused, but should have verified: ' . $e->getMessage());
    }
    if (($case->error ?? false) === true) {
        throw new StepFailed('verified, but should have been refused: ' . json_encode($event, JSON_UNESCAPED_UNICODE));
    }
    $why = mismatch($case->expect ?? null, $event->toArray());
    if ($why !== null) {
        throw new StepFailed($why);
    }
}

$env = environment();
$scenario = readJson($env['PIX_CONFORMANCE_DIR'], 'scenario.json');
$hooks = readJson($env['PIX_CONFORMANCE_DIR'], 'webhooks.json');
$saved = [];
$checks = [];
foreach ($scenario->steps as $step) {
    $checks[] = [$step->name, static function () use ($step, $env, &$saved): void {
        playStep($step, $env, $saved);
    }];
}
foreach ($hooks->cases as $case) {
    $checks[] = ["webhook: {$case->name}", static fn () => checkWebhook($case, $hooks->secret)];
}
foreach ($checks as [$name, $check]) {
    try {
        $check();
    } catch (Throwable $e) {
        // Anything else than a mismatch (a TypeError, an unexpected exception) is a failure of the step too, with its class.
        $why = $e instanceof StepFailed ? $e->getMessage() : get_class($e) . ': ' . $e->getMessage();
        echo "FAIL {$name}: {$why}\n";
        exit(1);
    }
    echo "ok {$name}\n";
}
