/**
 * The simulated PSP's state and behaviour: its books (MongoDB), its receiver side as API Pix defines
 * it (psp.ts), its payer side (payer.ts), its refunds' settlement, and its infractions (MED claims, as Efí
 * reports them: infractions.ts).
 */
export * from './books';
export * from './ids';
export * from './infractions';
export * from './owed-callbacks';
export * from './payer';
export * from './psp';
export * from './settlements';
