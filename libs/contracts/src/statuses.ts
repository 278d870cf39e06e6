/** Statuses a merchant sees and may filter by (spec section 3). */
export const PUBLIC_STATUSES = ['pending', 'approved', 'review', 'not_approved'] as const;
/** Statuses used inside the platform; readable and listable, never accepted as a filter. */
export const INTERNAL_STATUSES = ['paid', 'withdrawal_processing', 'receipt_sent', 'rejected'] as const;
export const PAYMENT_STATUSES = [...PUBLIC_STATUSES, ...INTERNAL_STATUSES] as const;

export type PublicStatus = (typeof PUBLIC_STATUSES)[number];
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
