<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A return the sandbox PSP made on its own (MED): the Pix returned, how much and why. */
final class SandboxMedReturn implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly string $paymentId,
        public readonly string $txid,
        public readonly string $endToEndId,
        public readonly float $amount,
        /** med_fraud or med_operational */
        public readonly string $nature,
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
            nature: Fields::string($data, 'nature'),
        );
    }
}
