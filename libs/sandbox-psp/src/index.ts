/**
 * The sandbox PSP: its books (MongoDB), its receiver side as API Pix defines it (psp.ts), its payer
 * side and back office (payer.ts), and its refunds' settlement. One home for two users while the
 * adapter still embeds it (PIX_PROVIDER=sandbox): the PSP simulator (services/psp-simulator)
 * serves it over API Pix. Once the adapter speaks only API Pix, this moves into the simulator
 * (docs/decisions/psp-simulator.md).
 */
export * from './books';
export * from './ids';
export * from './owed-callbacks';
export * from './payer';
export * from './psp';
export * from './settlements';
