<?php

declare(strict_types=1);

namespace PixPayments\Exception;

/**
 * The API answered with an error: its HTTP status and its message, in the API's language
 * (pt-BR, e.g. "Pagamento não encontrado.").
 */
final class ApiException extends \RuntimeException implements PixException
{
    public function __construct(private readonly int $statusCode, string $message)
    {
        parent::__construct($message, $statusCode);
    }

    public function getStatusCode(): int
    {
        return $this->statusCode;
    }
}
