<?php

declare(strict_types=1);

namespace PixPayments\Exception;

/** Every exception this package throws, for a single catch. */
interface PixException extends \Throwable
{
}
