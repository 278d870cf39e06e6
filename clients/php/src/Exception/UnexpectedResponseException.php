<?php

declare(strict_types=1);

namespace PixPayments\Exception;

/** A 2xx answer (or a webhook body) whose JSON is not what the API documents: a field missing or of another type. */
final class UnexpectedResponseException extends \UnexpectedValueException implements PixException
{
}
