import { z } from '@pix/config';

/** Each API Pix operation the simulator serves, as its journal and its faults name it. */
export const API_OPERATIONS = [
  'token',
  'cob.put',
  'cob.get',
  'cob.patch',
  'pix.list',
  'pix.get',
  'devolucao.put',
  'devolucao.get',
  'webhook.put',
  'webhook.get',
  'webhook.delete',
  'infracoes.list',
  'infracoes.defesa',
] as const;
export type ApiOperation = (typeof API_OPERATIONS)[number];

/** The callbacks it sends: of a Pix (received, held, cleared, rejected) and of a refund's settlement. */
export const CALLBACK_KINDS = ['callback.pix', 'callback.devolucao'] as const;
export type CallbackKind = (typeof CALLBACK_KINDS)[number];

/** What a fault can be set on: an API operation or a kind of callback. */
export const FaultTargetSchema = z.enum([...API_OPERATIONS, ...CALLBACK_KINDS]);
export type FaultTarget = z.infer<typeof FaultTargetSchema>;

/**
 * How the PSP misbehaves, as the back office sets it (PUT /faults/{target}), for the next `times`
 * requests (absent: until removed):
 *  - unavailable: an operation answers 503 ServicoIndisponivel and does nothing (a PSP down);
 *  - slow: an operation does its work at once and answers `delayMs` later (a client times out on
 *    a request the PSP took);
 *  - drop: a callback is lost (never sent, and never sent again), as a PSP loses one.
 */
export const FaultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('unavailable'), times: z.number().int().positive().optional() }),
  z.object({
    kind: z.literal('slow'),
    delayMs: z.number().int().positive().max(120_000),
    times: z.number().int().positive().optional(),
  }),
  z.object({ kind: z.literal('drop'), times: z.number().int().positive().optional() }),
]);
export type Fault = z.infer<typeof FaultSchema>;

/** A fault and the kind of target it fits: unavailable and slow answer requests, drop loses callbacks. */
export function faultFits(target: FaultTarget, fault: Fault): boolean {
  const callback = (CALLBACK_KINDS as readonly string[]).includes(target);
  return callback === (fault.kind === 'drop');
}

/** The faults in force, in memory: a restart of the simulator clears them. */
export class Faults {
  private readonly active = new Map<FaultTarget, Fault>();

  set(target: FaultTarget, fault: Fault): void {
    this.active.set(target, { ...fault });
  }

  clear(target?: FaultTarget): void {
    if (target) this.active.delete(target);
    else this.active.clear();
  }

  /** The fault that applies to one request or callback to `target`, counted against its `times`. */
  take(target: FaultTarget): Fault | null {
    const fault = this.active.get(target);
    if (!fault) return null;
    if (fault.times !== undefined) {
      if (fault.times <= 1) this.active.delete(target);
      else fault.times -= 1;
    }
    return fault;
  }
}
