import {
  CancelCommandSchema,
  modeName,
  RefundCommandSchema,
  Subjects,
  type CancelCommand,
  type PixCommandKind,
  type RefundCommand,
} from '@pix/contracts';
import {
  publishEvent,
  retryDelay,
  traceCarrier,
  type HandlerOutcome,
  type JetStreamClient,
  type JsMsg,
} from '@pix/messaging';
import type { Counter, Logger } from '@pix/observability';
import type { z } from 'zod';
import { factFromRefund } from './api-pix/transformers';
import { PspRefusal, type PixProvider, type RefundAtPsp } from './providers/provider';

/** The PSP of a command's mode: it throws when that mode has no open connection (tried again later). */
export type ProviderOf = (livemode: boolean) => PixProvider;

const ACK: HandlerOutcome = { ack: true };
/** A command the PSP could not take (away, timed out, 5xx) is tried again after 1 s, doubling to a minute. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;
/** A refund the PSP is processing is read back after 5 s, doubling to 10 minutes, until it settles. */
const READ_BACK_FIRST_MS = 5000;
const READ_BACK_MAX_MS = 10 * 60_000;

/** How a command ended, as pix_commands_total counts it. */
export type CommandOutcome = 'done' | 'refused' | 'processing' | 'retried';

/**
 * payments' commands to the PSP (the PIX_COMMANDS work queue), each handled once however often it
 * arrives: a refund reaches the PSP as one devolução, a cancelled payment's charge is removed.
 *
 * A refund is sent with its derived devolução id. From its second try on (a retry, a redelivered
 * message, a read-back) it is read first (GET), and sent only if the PSP has none, so a PUT that
 * timed out but landed is not sent again (PSPs answer a repeated PUT differently, bacen/pix-api
 * #277). A settled refund becomes a fact on the PIX stream (pix.events.refunded or refund_failed),
 * the same one a PSP's callback makes; one still processing is read back later until it settles. A
 * PSP that is away delays a command (a scheduled retry), never loses it; a PSP that refuses a
 * refund (4xx) settles it as failed, with the PSP's detail as its motivo. Each command goes to the
 * PSP connection of its payment's mode; a mode whose connection is not open delays it the same way.
 */
export class PspCommands {
  constructor(
    private readonly providerOf: ProviderOf,
    private readonly js: JetStreamClient,
    private readonly logger: Logger,
    private readonly outcomes: Counter<'connection' | 'kind' | 'outcome'>,
  ) {}

  /** The trace context a scheduled command carries in its body. */
  static traceOf(msg: JsMsg): Record<string, string> | undefined {
    return (msg.json() as { trace?: Record<string, string> }).trace;
  }

  async handle(msg: JsMsg): Promise<HandlerOutcome> {
    const redelivered = msg.info.deliveryCount > 1;
    switch (msg.subject) {
      case Subjects.pixCommand('refund'): {
        const command = this.parsed(RefundCommandSchema, msg);
        return command ? this.counted(command, 'refund', await this.refund(command, redelivered)) : ACK;
      }
      case Subjects.pixCommand('cancel'): {
        const command = this.parsed(CancelCommandSchema, msg);
        return command ? this.counted(command, 'cancel', await this.cancel(command)) : ACK;
      }
      default:
        this.logger.error({ subject: msg.subject }, 'unknown PSP command; dropped');
        return ACK;
    }
  }

  private async refund(command: RefundCommand, redelivered: boolean): Promise<CommandOutcome> {
    const line = {
      connection: modeName(command.livemode),
      paymentId: command.paymentId,
      refundId: command.refundId,
      pspRefundId: command.pspRefundId,
    };
    const again = command.accepted || command.attempt > 1 || redelivered;
    let refund: RefundAtPsp | null = null;
    try {
      if (again) refund = await this.providerOf(command.livemode).readRefund(command.endToEndId, command.pspRefundId);
      refund ??= await this.send(command, again);
    } catch (err) {
      if (err instanceof PspRefusal) {
        this.logger.warn({ ...line, status: err.status, detail: err.detail }, 'the PSP refused the refund');
        await this.settled(command, {
          pspRefundId: command.pspRefundId,
          rtrId: null,
          status: 'failed',
          settledAt: new Date().toISOString(),
          failureReason: err.detail,
          amountCents: command.amountCents,
          nature: 'other',
        });
        return 'refused';
      }
      this.logger.warn(
        { ...line, err, attempt: command.attempt },
        'refund not taken by the PSP now; tried again later',
      );
      await this.later('refund', command, retryDelay(command.attempt, RETRY_FIRST_MS, RETRY_MAX_MS), {});
      return 'retried';
    }
    if (refund.status === 'processing') {
      await this.later('refund', command, retryDelay(command.attempt, READ_BACK_FIRST_MS, READ_BACK_MAX_MS), {
        accepted: true,
      });
      return 'processing';
    }
    await this.settled(command, refund);
    this.logger.info({ ...line, status: refund.status }, 'refund settled at the PSP');
    return 'done';
  }

  /**
   * PUT devolução. Sent again, a refusal may be the PSP's way of saying it has this devolução
   * already (PSPs disagree on what a repeated PUT answers): it is read back once before it counts.
   */
  private async send(command: RefundCommand, again: boolean): Promise<RefundAtPsp> {
    const provider = this.providerOf(command.livemode);
    try {
      return await provider.sendRefund({
        pspRefundId: command.pspRefundId,
        endToEndId: command.endToEndId,
        amountCents: command.amountCents,
        description: command.description,
      });
    } catch (err) {
      if (!again || !(err instanceof PspRefusal)) throw err;
      const found = await provider.readRefund(command.endToEndId, command.pspRefundId);
      if (found) return found;
      throw err;
    }
  }

  private async cancel(command: CancelCommand): Promise<CommandOutcome> {
    const line = { connection: modeName(command.livemode), paymentId: command.paymentId, txid: command.txid };
    try {
      const removal = await this.providerOf(command.livemode).removeCharge(command.txid);
      // A charge already paid, expired or removed cannot be paid any more either: nothing to do.
      this.logger.info({ ...line, removal }, 'charge of a cancelled payment removed at the PSP');
      return 'done';
    } catch (err) {
      this.logger.warn(
        { ...line, err, attempt: command.attempt },
        'charge removal not taken by the PSP now; tried again later',
      );
      await this.later('cancel', command, retryDelay(command.attempt, RETRY_FIRST_MS, RETRY_MAX_MS), {});
      return 'retried';
    }
  }

  /** The settlement as a fact on the PIX stream; its id is the devolução's and outcome's, so telling it twice makes one. */
  private async settled(command: RefundCommand, refund: RefundAtPsp): Promise<void> {
    const fact = factFromRefund(refund, command, command.livemode);
    if (fact) await publishEvent(this.js, fact.subject, fact.payload, fact.msgId);
  }

  /**
   * The command's next try, as a scheduled message that falls due on its subject after `delayMs`:
   * acked now, so a long PSP outage leaves nothing unacknowledged on the consumer. One schedule per
   * command (a schedule replaces the one before it on its subject).
   */
  private async later<C extends RefundCommand | CancelCommand>(
    kind: PixCommandKind,
    command: C,
    delayMs: number,
    change: Partial<C>,
  ): Promise<void> {
    const next = { ...command, ...change, attempt: command.attempt + 1, trace: traceCarrier() };
    const key = 'pspRefundId' in command ? command.pspRefundId : command.txid;
    await publishEvent(this.js, Subjects.pixCommandSchedule(kind, key), next, `${kind}:${key}:${next.attempt}`, {
      schedule: { at: new Date(Date.now() + delayMs), target: Subjects.pixCommand(kind) },
    });
  }

  private counted(command: { livemode: boolean }, kind: PixCommandKind, outcome: CommandOutcome): HandlerOutcome {
    this.outcomes.inc({ connection: modeName(command.livemode), kind, outcome });
    return ACK;
  }

  private parsed<S extends z.ZodType>(schema: S, msg: JsMsg): z.infer<S> | null {
    const parsed = schema.safeParse(msg.json());
    if (parsed.success) return parsed.data;
    this.logger.error({ subject: msg.subject, issues: parsed.error.issues }, 'malformed PSP command; dropped');
    return null;
  }
}
