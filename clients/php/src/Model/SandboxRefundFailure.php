<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** The sandbox PSP will settle the payment's next refund as failed, with this motivo. */
final class SandboxRefundFailure implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly string $paymentId,
        public readonly string $txid,
        public readonly string $failureReason,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            paymentId: Fields::string($data, 'paymentId'),
            txid: Fields::string($data, 'txid'),
            failureReason: Fields::string($data, 'failureReason'),
        );
    }
}
