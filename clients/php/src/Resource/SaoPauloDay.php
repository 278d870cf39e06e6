<?php

declare(strict_types=1);

namespace PixPayments\Resource;

/** @internal the days balance transactions and statements take */
final class SaoPauloDay
{
    /**
     * AAAA-MM-DD as given, or the day an instant falls on in America/Sao_Paulo, whatever its own
     * time zone (PHP has no date without a time: a DateTimeInterface is always an instant).
     */
    public static function of(string|\DateTimeInterface $day): string
    {
        if (is_string($day)) {
            return $day;
        }
        return \DateTimeImmutable::createFromInterface($day)
            ->setTimezone(new \DateTimeZone('America/Sao_Paulo'))
            ->format('Y-m-d');
    }
}
