import { z } from 'zod';
import { LivemodeSchema } from './modes';

/**
 * A dispute (docs/decisions/disputes.md): the payer claimed fraud from their bank (MED), the
 * payer's PSP filed an infraction against the Pix, and the receiving PSP blocked `amountAtRisk` of
 * it until it decides. The merchant may answer with a defence before `deadlineAt`. `open` until the
 * PSP decides, then `closed` with its decision: `accepted` (the claim was upheld: the PSP returns
 * the money with a MED devolução, which reaches the payment as a refund of origin psp), `rejected`
 * (the merchant keeps the money) or `cancelled` (the claim was withdrawn).
 */
export const DISPUTE_STATUSES = ['open', 'closed'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export const DISPUTE_DECISIONS = ['accepted', 'rejected', 'cancelled'] as const;
export type DisputeDecision = (typeof DISPUTE_DECISIONS)[number];

/** The most a defence's text holds (characters): what a PSP takes (PayZu's limit; Efí states none). */
export const MAX_DISPUTE_DEFENSE_CHARS = 1000;

/** The reminders before a dispute's deadline, in hours before it: each one webhook, once. */
export const DISPUTE_REMINDER_HOURS = [48, 24, 6] as const;
export type DisputeReminderHours = (typeof DISPUTE_REMINDER_HOURS)[number];

/** A payment's dispute, as the public API shows it (only on a payment that has one) and its webhooks carry it. */
export const DisputeSchema = z.object({
  status: z.enum(DISPUTE_STATUSES),
  reason: z.string().meta({ description: "The payer's claim, as their PSP reported it" }),
  kind: z.string().meta({ description: "What the payer claims happened, in the PSP's words (golpe, outro, …)" }),
  amountAtRisk: z.number().meta({ description: 'BRL blocked by the PSP until it decides' }),
  openedAt: z.iso.datetime({ precision: 3 }),
  deadlineAt: z.iso
    .datetime({ precision: 3 })
    .meta({ description: 'The last moment to send a defence (POST …/dispute/defense)' }),
  defense: z
    .object({ text: z.string(), sentAt: z.iso.datetime({ precision: 3 }) })
    .nullable()
    .meta({ description: "The merchant's defence, once sent; null before" }),
  decision: z
    .enum(DISPUTE_DECISIONS)
    .nullable()
    .meta({
      description:
        "The PSP's decision, once closed: accepted (the claim was upheld; the money goes back to the payer as a " +
        'refund of origin psp), rejected (the merchant keeps it), cancelled (the claim was withdrawn); null while open',
    }),
  closedAt: z.iso.datetime({ precision: 3 }).nullable(),
});
export type Dispute = z.infer<typeof DisputeSchema>;

/** What a dispute webhook carries besides `event`: the dispute, and its payment. */
const disputeWebhook = <E extends string>(event: E) =>
  z.object({
    event: z.literal(event),
    paymentId: z.uuid(),
    storeId: z.string(),
    livemode: LivemodeSchema,
    ...DisputeSchema.shape,
  });
export const DisputeOpenedWebhookSchema = disputeWebhook('payment.dispute_opened');
export const DisputeClosedWebhookSchema = disputeWebhook('payment.dispute_closed');
/** Sent 48, 24 and 6 hours before the deadline of a dispute still open without a defence. */
export const DisputeReminderWebhookSchema = disputeWebhook('payment.dispute_reminder').extend({
  hoursLeft: z.union([z.literal(48), z.literal(24), z.literal(6)]).meta({
    description: 'Hours left to the deadline when it was scheduled: 48, 24 or 6',
  }),
});
export const DisputeWebhookSchema = z.discriminatedUnion('event', [
  DisputeOpenedWebhookSchema,
  DisputeClosedWebhookSchema,
  DisputeReminderWebhookSchema,
]);

/** The most open disputes the dashboard's list shows at once: far more than a store has. */
export const OPEN_DISPUTES_LIST_MAX = 200;

/** A store's open disputes (the dashboard's Contestações), the nearest deadline first. */
export const OpenDisputeListSchema = z.object({
  items: z.array(z.object({ paymentId: z.uuid(), amount: z.number(), dispute: DisputeSchema })),
});
export type OpenDisputeList = z.infer<typeof OpenDisputeListSchema>;
