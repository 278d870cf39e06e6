<?php

declare(strict_types=1);

namespace PixPayments\Exception;

/** A webhook that is not signed with the secret, is too old or too new, or is not an event of this API. */
final class WebhookVerificationException extends \RuntimeException implements PixException
{
}
