<?php

declare(strict_types=1);

namespace PixPayments\Resource;

use PixPayments\Http\Api;
use PixPayments\Model\SandboxAnalysis;
use PixPayments\Model\SandboxMedReturn;
use PixPayments\Model\SandboxPayment;
use PixPayments\Model\SandboxRefundFailure;

/** Sandbox deployments only: act as the customer and the PSP would ($client->sandbox). */
final class Sandbox
{
    /** @internal built by Client */
    public function __construct(private readonly Api $api)
    {
    }

    /**
     * The customer pays: approved. Another `amount` sends the payment to review; `late: true` pays
     * even a charge that can no longer be paid, a new Pix each time, which the platform returns to
     * its payer; `dropCallback: true`: the PSP never calls back, and the payment changes when the
     * platform reconciles with the PSP, within about a minute.
     *
     * @param array{amount?: float|int, late?: bool, dropCallback?: bool} $params
     */
    public function pay(string $paymentId, array $params = []): SandboxPayment
    {
        return SandboxPayment::fromArray(
            $this->api->request('POST', $this->path($paymentId, 'pay'), [], $params === [] ? null : $params),
        );
    }

    /** The customer pays and the PSP holds the Pix for analysis. */
    public function review(string $paymentId): SandboxAnalysis
    {
        return SandboxAnalysis::fromArray($this->api->request('POST', $this->path($paymentId, 'review')));
    }

    /** The analysis clears the held Pix: approved. */
    public function clear(string $paymentId): SandboxAnalysis
    {
        return SandboxAnalysis::fromArray($this->api->request('POST', $this->path($paymentId, 'clear')));
    }

    /** The analysis rejects it: refunded, not approved. */
    public function reject(string $paymentId): SandboxAnalysis
    {
        return SandboxAnalysis::fromArray($this->api->request('POST', $this->path($paymentId, 'reject')));
    }

    /** The PSP settles the payment's next refund as not done (refund.failed, with its motivo). */
    public function failNextRefund(string $paymentId): SandboxRefundFailure
    {
        return SandboxRefundFailure::fromArray(
            $this->api->request('POST', $this->path($paymentId, 'fail-next-refund')),
        );
    }

    /**
     * The PSP returns the payment's Pix on its own, as after an upheld fraud claim (MED): the payment
     * gains a refund of origin `psp`. `amount`: all that is left of the Pix when absent; `nature`:
     * med_fraud (the default) or med_operational.
     *
     * @param array{amount?: float|int, nature?: string} $params
     */
    public function med(string $paymentId, array $params = []): SandboxMedReturn
    {
        return SandboxMedReturn::fromArray(
            $this->api->request('POST', $this->path($paymentId, 'med'), [], $params === [] ? null : $params),
        );
    }

    private function path(string $paymentId, string $action): string
    {
        return Api::V1 . '/sandbox/payments/' . Api::segment($paymentId) . '/' . $action;
    }
}
