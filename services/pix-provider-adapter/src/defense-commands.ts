import { DefenseCommandSchema, modeName, Subjects, type DefenseCommand } from '@pix/contracts';
import {
  publishEvent,
  retryDelay,
  traceCarrier,
  type HandlerOutcome,
  type JetStreamClient,
  type JsMsg,
} from '@pix/messaging';
import type { Counter, Logger } from '@pix/observability';
import { PspRefusal, type InfractionProvider } from './providers/provider';

const ACK: HandlerOutcome = { ack: true };
/** A defence the PSP could not take (away, timed out, 5xx) is tried again after 1 s, doubling to a minute. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;

/**
 * payments' defences of disputes (pix.commands.run.defense), forwarded to the PSP's infraction
 * (Efí's `POST /v2/gn/infracoes/{id}/defesa`). A command is published with the payment write that
 * recorded the defence, under the infraction's id, so JetStream holds one; the PSP takes one defence
 * per infraction, so a try after one that may have landed (a retry, a redelivery) that the PSP
 * refuses is the first one's answer, not a failure. A PSP away delays it (a scheduled retry), never
 * loses it.
 */
export class DefenseCommands {
  constructor(
    private readonly providerOf: (livemode: boolean) => InfractionProvider,
    private readonly js: JetStreamClient,
    private readonly logger: Logger,
    private readonly outcomes: Counter<'connection' | 'kind' | 'outcome'>,
  ) {}

  static handles(msg: JsMsg): boolean {
    return msg.subject === Subjects.pixCommand('defense');
  }

  async handle(msg: JsMsg): Promise<HandlerOutcome> {
    const parsed = DefenseCommandSchema.safeParse(msg.json());
    if (!parsed.success) {
      this.logger.error({ subject: msg.subject, issues: parsed.error.issues }, 'malformed PSP command; dropped');
      return ACK;
    }
    const command = parsed.data;
    const connection = modeName(command.livemode);
    const line = { connection, paymentId: command.paymentId, pspDisputeId: command.pspDisputeId };
    const again = command.attempt > 1 || msg.info.deliveryCount > 1;
    let outcome: 'done' | 'refused' | 'retried' = 'done';
    try {
      await this.providerOf(command.livemode).sendDefense(command.pspDisputeId, command.text);
      this.logger.info(line, 'dispute defence taken by the PSP');
    } catch (err) {
      if (err instanceof PspRefusal) {
        outcome = 'refused';
        // Sent again, a refusal is most likely the PSP holding the first try's defence already.
        const message = again
          ? 'the PSP refused a defence sent again (it holds one already, most likely)'
          : 'the PSP refused the dispute defence; needs an operator';
        this.logger[again ? 'warn' : 'error']({ ...line, status: err.status, detail: err.detail }, message);
      } else {
        outcome = 'retried';
        this.logger.warn(
          { ...line, err, attempt: command.attempt },
          'defence not taken by the PSP now; tried again later',
        );
        await this.later(command);
      }
    }
    this.outcomes.inc({ connection, kind: 'defense', outcome });
    return ACK;
  }

  /** The next try, a scheduled message on the payment's own subject (its charge's txid: a subject token). */
  private async later(command: DefenseCommand): Promise<void> {
    const next: DefenseCommand = { ...command, attempt: command.attempt + 1, trace: traceCarrier() };
    const delay = retryDelay(command.attempt, RETRY_FIRST_MS, RETRY_MAX_MS);
    await publishEvent(
      this.js,
      Subjects.pixCommandSchedule('defense', command.txid),
      next,
      `defense:${command.pspDisputeId}:${next.attempt}`,
      { schedule: { at: new Date(Date.now() + delay), target: Subjects.pixCommand('defense') } },
    );
  }
}
