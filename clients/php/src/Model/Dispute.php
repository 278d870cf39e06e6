<?php

declare(strict_types=1);

namespace PixPayments\Model;

/** A payer's fraud claim (MED) against the Pix that paid a payment, as the PSP reports it. */
final class Dispute implements \JsonSerializable
{
    use ToArray;

    public function __construct(
        /** open or closed */
        public readonly string $status,
        /** The payer's claim, as their PSP reported it */
        public readonly string $reason,
        /** What the payer claims happened, in the PSP's words (golpe, outro, …) */
        public readonly string $kind,
        /** BRL blocked by the PSP until it decides */
        public readonly float $amountAtRisk,
        public readonly string $openedAt,
        /** The last moment to send a defence (payments->defendDispute) */
        public readonly string $deadlineAt,
        /** The merchant's defence, once sent */
        public readonly ?DisputeDefense $defense,
        /** Once closed: accepted (the money goes back to the payer), rejected or cancelled; null while open */
        public readonly ?string $decision,
        public readonly ?string $closedAt,
    ) {
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        $defense = Fields::nullableObject($data, 'defense');
        return new self(
            status: Fields::string($data, 'status'),
            reason: Fields::string($data, 'reason'),
            kind: Fields::string($data, 'kind'),
            amountAtRisk: Fields::amount($data, 'amountAtRisk'),
            openedAt: Fields::string($data, 'openedAt'),
            deadlineAt: Fields::string($data, 'deadlineAt'),
            defense: $defense === null ? null : DisputeDefense::fromArray($defense),
            decision: Fields::nullableString($data, 'decision'),
            closedAt: Fields::nullableString($data, 'closedAt'),
        );
    }
}
