/**
 * BACEN's API Pix v2 as this platform speaks it, in one place for both of its ends: the adapter's
 * client (a PSP's receiver) and the PSP simulator (the PSP).
 */
export * from './wire';
export * from './problems';
export { valorFrom } from './valor';
export * from './back-office';
export * from './infractions';
