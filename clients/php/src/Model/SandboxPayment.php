<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** The Pix the sandbox paid a charge with. */
final class SandboxPayment implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly string $paymentId,
        public readonly string $txid,
        public readonly string $endToEndId,
        public readonly float $amount,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            paymentId: Fields::string($data, 'paymentId'),
            txid: Fields::string($data, 'txid'),
            endToEndId: Fields::string($data, 'endToEndId'),
            amount: Fields::amount($data, 'amount'),
        );
    }
}
