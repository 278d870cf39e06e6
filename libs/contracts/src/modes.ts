import { z } from 'zod';

/**
 * Test mode and live mode (docs/decisions/livemode.md): every store has test tokens and live
 * tokens, and every payment, refund and event belongs to the mode of the token that created it.
 * A token sees only its own mode's data; the sandbox routes answer test tokens only.
 */

/**
 * How a token names its mode, for the people who handle it (a live token in a test script is seen
 * at a glance). The mode a token has is the one its record holds (the prefix is part of the hashed
 * token, so it cannot be changed without making another token). Tokens issued before modes
 * existed are `pxt_` + 43 base64url characters, with no mode in their record: test tokens.
 */
export const TokenPrefixes = { test: 'pxt_test_', live: 'pxt_live_' } as const;

/** The prefix a new token of the mode is minted with. */
export function tokenPrefix(livemode: boolean): string {
  return livemode ? TokenPrefixes.live : TokenPrefixes.test;
}

/**
 * The name of a store's data in one mode, as the payments' list keys and counters spell it. Test
 * mode keeps the bare store id, so what was written before modes existed (all of it test) is read
 * unchanged; live mode's name can never be a store id (those are UUIDs) nor a prefix of one.
 */
export function modeScope(storeId: string, livemode: boolean): string {
  return livemode ? `${storeId}~live` : storeId;
}

/**
 * `livemode` in every body: true for live data, false for test data. An event or record written
 * before modes has none and is read as test data (false), so a redelivery of it carries one too.
 */
export const LivemodeSchema = z.boolean().default(false).meta({
  description: 'true for live data (real money, a live token), false for test data (a test token)',
});

/**
 * The mode in a service's request: a caller that predates modes (or the operator's CLI for a
 * test store's internal payment) sends none and means test.
 */
export const RequestLivemodeSchema = z.boolean().default(false);

/**
 * A mode's name: the adapter's PSP connection that serves it (`test`: the PSP simulator or a PSP's
 * homologation; `live`: the PSP that moves real money), as settings, logs and the `connection`
 * label of metrics spell it.
 */
export const MODE_NAMES = ['test', 'live'] as const;
export type ModeName = (typeof MODE_NAMES)[number];

export function modeName(livemode: boolean): ModeName {
  return livemode ? 'live' : 'test';
}
