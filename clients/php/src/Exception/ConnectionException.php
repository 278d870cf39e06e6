<?php

declare(strict_types=1);

namespace PixPayments\Exception;

/** No answer came: the connection failed or the request timed out (after the retries, for a create or a refund). */
final class ConnectionException extends \RuntimeException implements PixException
{
}
