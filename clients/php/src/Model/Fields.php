<?php

declare(strict_types=1);

namespace PixPayments\Model;

use PixPayments\Exception\UnexpectedResponseException;

/**
 * Reads one field of a decoded JSON object with its documented type, so that an answer that drifts
 * from the API's document fails where it is read, naming the field, rather than later as a TypeError.
 *
 * @internal
 */
final class Fields
{
    /** @param array<string, mixed> $data */
    public static function string(array $data, string $key): string
    {
        $value = self::present($data, $key);
        if (!is_string($value)) {
            throw self::unexpected($key, 'a string', $value);
        }
        return $value;
    }

    /** @param array<string, mixed> $data */
    public static function nullableString(array $data, string $key): ?string
    {
        $value = self::present($data, $key);
        if ($value !== null && !is_string($value)) {
            throw self::unexpected($key, 'a string or null', $value);
        }
        return $value;
    }

    /** @param array<string, mixed> $data */
    public static function int(array $data, string $key): int
    {
        $value = self::present($data, $key);
        if (!is_int($value)) {
            throw self::unexpected($key, 'an integer', $value);
        }
        return $value;
    }

    /** @param array<string, mixed> $data */
    public static function nullableInt(array $data, string $key): ?int
    {
        $value = self::present($data, $key);
        if ($value !== null && !is_int($value)) {
            throw self::unexpected($key, 'an integer or null', $value);
        }
        return $value;
    }

    /**
     * An amount in BRL: JSON has one number type, so 40 arrives as an int and 25.5 as a float.
     *
     * @param array<string, mixed> $data
     */
    public static function amount(array $data, string $key): float
    {
        $value = self::present($data, $key);
        if (!is_int($value) && !is_float($value)) {
            throw self::unexpected($key, 'a number', $value);
        }
        return (float) $value;
    }

    /** @param array<string, mixed> $data */
    public static function bool(array $data, string $key): bool
    {
        $value = self::present($data, $key);
        if (!is_bool($value)) {
            throw self::unexpected($key, 'a boolean', $value);
        }
        return $value;
    }

    /**
     * @param array<string, mixed> $data
     * @return array<string, mixed>
     */
    public static function object(array $data, string $key): array
    {
        $value = self::present($data, $key);
        if (!is_array($value) || (array_is_list($value) && $value !== [])) {
            throw self::unexpected($key, 'an object', $value);
        }
        return $value;
    }

    /**
     * @param array<string, mixed> $data
     * @return array<string, mixed>|null
     */
    public static function nullableObject(array $data, string $key): ?array
    {
        return self::present($data, $key) === null ? null : self::object($data, $key);
    }

    /**
     * The items of a list, each mapped by $map.
     *
     * @template T
     * @param array<string, mixed> $data
     * @param callable(array<string, mixed>): T $map
     * @return list<T>
     */
    public static function list(array $data, string $key, callable $map): array
    {
        $value = self::present($data, $key);
        if (!is_array($value) || !array_is_list($value)) {
            throw self::unexpected($key, 'a list', $value);
        }
        $items = [];
        foreach ($value as $i => $item) {
            if (!is_array($item)) {
                throw self::unexpected("{$key}[{$i}]", 'an object', $item);
            }
            $items[] = $map($item);
        }
        return $items;
    }

    /** @param array<string, mixed> $data */
    private static function present(array $data, string $key): mixed
    {
        if (!array_key_exists($key, $data)) {
            throw new UnexpectedResponseException(sprintf('unexpected JSON: "%s" is missing', $key));
        }
        return $data[$key];
    }

    private static function unexpected(string $key, string $expected, mixed $value): UnexpectedResponseException
    {
        return new UnexpectedResponseException(
            sprintf('unexpected JSON: "%s" should be %s, got %s', $key, $expected, get_debug_type($value)),
        );
    }
}
