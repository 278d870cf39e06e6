<?php

declare(strict_types=1);

namespace PixPayments\Model;

/**
 * The value object as the API's JSON: the properties carry the API's field names, so an object
 * converts back field for field (to store it, log it, or json_encode it as the API sent it).
 */
trait ToArray
{
    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return array_map(self::plain(...), get_object_vars($this));
    }

    /** @return array<string, mixed> */
    public function jsonSerialize(): array
    {
        return $this->toArray();
    }

    private static function plain(mixed $value): mixed
    {
        if (is_object($value) && method_exists($value, 'toArray')) {
            return $value->toArray();
        }
        return is_array($value) ? array_map(self::plain(...), $value) : $value;
    }
}
