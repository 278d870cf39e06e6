<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A sandbox Pix held for analysis (review), or its analysis' outcome (cleared, rejected). */
final class SandboxAnalysis implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        public readonly string $paymentId,
        public readonly string $txid,
        public readonly string $endToEndId,
        /** review, cleared or rejected */
        public readonly string $analysis,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        return new self(
            paymentId: Fields::string($data, 'paymentId'),
            txid: Fields::string($data, 'txid'),
            endToEndId: Fields::string($data, 'endToEndId'),
            analysis: Fields::string($data, 'analysis'),
        );
    }
}
