import { randomBytes, randomUUID } from 'node:crypto';
import { RetiredSealingKey, type SealedBinding, type Sealer } from '@pix/runtime';
import { StoreModel, type SecretEntry, type StoreDoc } from './records';
import { StoreNotFound, type Tokens } from './tokens';

/** A Standard Webhooks signing secret: whsec_ + base64 of 24 random bytes. */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** How long a replaced webhook secret keeps signing deliveries, so merchants can switch without a gap. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Rotations racing on one store retry a few times, then fail rather than spin. */
const ROTATION_TRIES = 5;
/** Stores read per page by a re-seal. */
const RESEAL_PAGE = 100;

type Secrets = Pick<StoreDoc, 'webhookSecrets' | 'liveWebhookSecrets'>;

/** Where a mode's webhook secrets are kept: each mode signs its deliveries with its own. */
type SecretsField = 'webhookSecrets' | 'liveWebhookSecrets';
const SECRETS_FIELDS: readonly SecretsField[] = ['webhookSecrets', 'liveWebhookSecrets'];
function secretsField(livemode: boolean): SecretsField {
  return livemode ? 'liveWebhookSecrets' : 'webhookSecrets';
}

/** How many stores with an unreadable secret a check or a re-seal names (the count covers them all). */
const UNREADABLE_LISTED = 1000;

/** A store's secret that cannot be opened: under a key SECRETS_KEYS no longer holds, or altered. */
export interface UnreadableSecret {
  /** The key id its sealed value names (a clear value always opens). */
  kid: string;
  reason: 'retired_key' | 'does_not_open';
}

/** A store whose unexpired webhook secrets include unreadable ones, as a check or a re-seal reports it. */
interface StoreWithUnreadableSecrets {
  storeId: string;
  /** The keys its unreadable secrets name, each once. */
  kids: string[];
  /**
   * Whether, in a mode, none of its unexpired secrets opens: that mode's deliveries cannot be
   * signed until a rotation.
   */
  none: boolean;
}

/** What a store's secrets are now, read: the open ones (newest first) and the unreadable ones. */
export interface ReadSecrets {
  secrets: string[];
  unreadable: UnreadableSecret[];
}

/** The report of a pass over every store (check or re-seal). */
interface SecretsPass {
  stores: number;
  /** Stores with an unexpired secret that does not open; the first UNREADABLE_LISTED in `unreadable`. */
  unreadableStores: number;
  unreadable: StoreWithUnreadableSecrets[];
}

/**
 * What a sealed secret is bound to: its store and mode, and its expiry (so none can be changed in
 * the record: a test secret copied into the live field does not open).
 */
function binding(storeId: string, field: SecretsField, expiresAt: Date | null): SealedBinding {
  return { context: `stores/${storeId}/${field}`, expiresAt };
}

/**
 * The condition that the store's secrets are still those read: the newest entry, unique as sealed
 * (a fresh IV) or in clear, changes with every rotation and re-seal.
 */
function unchangedSecrets(field: SecretsField, entries: readonly SecretEntry[]): Record<string, unknown> {
  const [first] = entries;
  if (!first) return { [`${field}.0`]: { $exists: false } };
  return first.sealed ? { [`${field}.0.sealed`]: first.sealed } : { [`${field}.0.secret`]: first.secret };
}

const unexpired = (entry: SecretEntry, now: Date) => !entry.expiresAt || entry.expiresAt > now;

/** An entry opened, or why it does not open. */
type Opened = { entry: SecretEntry; secret: string } | { entry: SecretEntry; unreadable: UnreadableSecret };

/** The stores' secrets as a pass over them finds them. */
class PassReport {
  stores = 0;
  unreadableStores = 0;
  readonly unreadable: StoreWithUnreadableSecrets[] = [];

  /** A store, with its secrets opened in each mode. */
  add(storeId: string, modes: readonly (readonly Opened[])[]): void {
    this.stores++;
    const bad = modes.flat().flatMap((o) => ('unreadable' in o ? [o.unreadable.kid] : []));
    if (bad.length === 0) return;
    this.unreadableStores++;
    const none = modes.some((opened) => opened.length > 0 && opened.every((o) => 'unreadable' in o));
    if (this.unreadable.length < UNREADABLE_LISTED) this.unreadable.push({ storeId, kids: [...new Set(bad)], none });
  }

  result(): SecretsPass {
    return { stores: this.stores, unreadableStores: this.unreadableStores, unreadable: this.unreadable };
  }
}

/**
 * The merchants' stores: whether each is active, its name, its webhook signing secrets (sealed at
 * rest, bound to their store and expiry). A secret under a key SECRETS_KEYS no longer holds cannot
 * sign again: reads leave it out and name it, a re-seal leaves it as it is and lists its store, a
 * rotation drops it (docs/security.md, rotating each secret).
 */
export class Stores {
  constructor(
    private readonly tokens: Tokens,
    private readonly sealer: Sealer,
  ) {}

  private sealed(
    storeId: string,
    field: SecretsField,
    secret: string,
    createdAt: Date,
    expiresAt: Date | null,
  ): SecretEntry {
    return { sealed: this.sealer.seal(secret, binding(storeId, field, expiresAt)), createdAt, expiresAt };
  }

  private open(storeId: string, field: SecretsField, entry: SecretEntry): Opened {
    if (!entry.sealed) {
      if (entry.secret) return { entry, secret: entry.secret };
      throw new Error(`a webhook secret of store ${storeId} holds no value`);
    }
    try {
      return { entry, secret: this.sealer.open(entry.sealed, binding(storeId, field, entry.expiresAt)) };
    } catch (err) {
      if (err instanceof RetiredSealingKey) return { entry, unreadable: { kid: err.kid, reason: 'retired_key' } };
      const kid = entry.sealed.split('.')[1] ?? '';
      return { entry, unreadable: { kid, reason: 'does_not_open' } };
    }
  }

  /** Every unexpired entry, opened or not. */
  private openAll(storeId: string, field: SecretsField, entries: readonly SecretEntry[], now: Date): Opened[] {
    return entries.filter((e) => unexpired(e, now)).map((e) => this.open(storeId, field, e));
  }

  /** A new active store with its first token and webhook secret in each mode. */
  async create(name: string): Promise<{
    storeId: string;
    token: string;
    webhookSecret: string;
    liveToken: string;
    liveWebhookSecret: string;
  }> {
    const storeId = randomUUID();
    const webhookSecret = newWebhookSecret();
    const liveWebhookSecret = newWebhookSecret();
    const now = new Date();
    await StoreModel.create({
      _id: storeId,
      name,
      active: true,
      webhookSecrets: [this.sealed(storeId, 'webhookSecrets', webhookSecret, now, null)],
      liveWebhookSecrets: [this.sealed(storeId, 'liveWebhookSecrets', liveWebhookSecret, now, null)],
      createdAt: now,
    });
    const { token } = await this.tokens.issue(storeId, false);
    const { token: liveToken } = await this.tokens.issue(storeId, true);
    return { storeId, token, webhookSecret, liveToken, liveWebhookSecret };
  }

  async setActive(storeId: string, active: boolean): Promise<void> {
    const result = await StoreModel.updateOne({ _id: { $eq: storeId } }, { $set: { active } });
    if (result.matchedCount === 0) throw new StoreNotFound(storeId);
  }

  /** Whether a store is active; null when it does not exist. */
  async isActive(storeId: string): Promise<boolean | null> {
    const store = await StoreModel.findById(storeId).select({ active: 1 }).lean<Pick<StoreDoc, 'active'>>();
    return store ? store.active : null;
  }

  /** A store's name; null when it does not exist. */
  async name(storeId: string): Promise<string | null> {
    const store = await StoreModel.findById(storeId).select({ name: 1 }).lean<Pick<StoreDoc, 'name'>>();
    return store ? store.name : null;
  }

  /**
   * The secrets deliveries of a store are signed with: every one not yet expired that opens, and
   * those that do not. A store whose secrets are not all current (in clear from before sealing,
   * in the v1 format, under an older key, or with expired ones beside them) is sealed again on
   * this read, so a clear value does not outlive its first read.
   */
  async webhookSecrets(storeId: string, livemode: boolean, now = new Date()): Promise<ReadSecrets> {
    const field = secretsField(livemode);
    const store = await StoreModel.findById(storeId)
      .select({ [field]: 1 })
      .lean<Secrets>();
    if (!store) throw new StoreNotFound(storeId);
    const entries = store[field] ?? [];
    const opened = this.openAll(storeId, field, entries, now);
    if (this.resealable(entries, opened, now)) await this.writeResealed(storeId, field, entries, opened);
    return {
      secrets: opened.flatMap((o) => ('secret' in o ? [o.secret] : [])),
      unreadable: opened.flatMap((o) => ('unreadable' in o ? [o.unreadable] : [])),
    };
  }

  /**
   * Gives the store a new webhook secret. Secrets still in use without an expiry get one 24 hours
   * away, so deliveries carry both signatures meanwhile; expired ones are dropped, and so are the
   * ones that do not open (they can sign nothing: `dropped` counts them, and the merchant then has
   * no overlap). The kept ones are sealed again with their expiry. The update is conditional on
   * the secrets read, so two rotations at once cannot lose one another's.
   */
  async rotateWebhookSecret(
    storeId: string,
    livemode: boolean,
    now = new Date(),
  ): Promise<{ webhookSecret: string; dropped: number }> {
    const field = secretsField(livemode);
    for (let tries = 0; tries < ROTATION_TRIES; tries++) {
      const store = await StoreModel.findById(storeId)
        .select({ [field]: 1 })
        .lean<Secrets>();
      if (!store) throw new StoreNotFound(storeId);
      const entries = store[field] ?? [];
      const webhookSecret = newWebhookSecret();
      const overlapEnds = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS);
      const opened = this.openAll(storeId, field, entries, now);
      const kept = opened.flatMap((o) =>
        'secret' in o
          ? [this.sealed(storeId, field, o.secret, o.entry.createdAt, o.entry.expiresAt ?? overlapEnds)]
          : [],
      );
      const result = await StoreModel.updateOne(
        { _id: { $eq: storeId }, ...unchangedSecrets(field, entries) },
        { $set: { [field]: [this.sealed(storeId, field, webhookSecret, now, null), ...kept] } },
      );
      if (result.modifiedCount === 1) return { webhookSecret, dropped: opened.length - kept.length };
    }
    throw new Error(`webhook secret of store ${storeId} changed under ${ROTATION_TRIES} rotations in a row`);
  }

  /**
   * Seals again, under the current key and format, every store's secrets that are in clear, in the
   * v1 format or under an older key (after SECRETS_KEYS gained a new first key), and drops expired
   * ones; a store rotated meanwhile is left as its rotation wrote it. A secret that does not open
   * is left as it is, and its store listed: the pass goes on. Pages through the stores by _id;
   * idempotent.
   */
  async resealWebhookSecrets(now = new Date()): Promise<SecretsPass & { resealed: number }> {
    let resealed = 0;
    const report = await this.eachStore(now, async (storeId, field, entries, opened) => {
      if (this.resealable(entries, opened, now)) resealed += await this.writeResealed(storeId, field, entries, opened);
    });
    return { ...report, resealed };
  }

  /** Reads every store's unexpired secrets and reports the stores whose secrets do not all open; writes nothing. */
  async checkWebhookSecrets(now = new Date()): Promise<SecretsPass & { toReseal: number }> {
    let toReseal = 0;
    const report = await this.eachStore(now, async (_storeId, _field, entries, opened) => {
      if (this.resealable(entries, opened, now)) toReseal++;
    });
    return { ...report, toReseal };
  }

  /**
   * Pages through every store by _id, opening its unexpired secrets of both modes (each mode's
   * visited apart), and reports what did not open.
   */
  private async eachStore(
    now: Date,
    visit: (storeId: string, field: SecretsField, entries: SecretEntry[], opened: Opened[]) => Promise<void>,
  ): Promise<SecretsPass> {
    const report = new PassReport();
    for (let after = ''; ;) {
      const page = await StoreModel.find({ _id: { $gt: after } })
        .sort({ _id: 1 })
        .limit(RESEAL_PAGE)
        .select({ webhookSecrets: 1, liveWebhookSecrets: 1 })
        .lean<(Secrets & { _id: string })[]>();
      for (const store of page) {
        const modes = SECRETS_FIELDS.map((field) => {
          const entries = store[field] ?? [];
          return { field, entries, opened: this.openAll(store._id, field, entries, now) };
        });
        report.add(
          store._id,
          modes.map((m) => m.opened),
        );
        for (const { field, entries, opened } of modes) await visit(store._id, field, entries, opened);
      }
      const last = page[page.length - 1];
      if (!last || page.length < RESEAL_PAGE) return report.result();
      after = last._id;
    }
  }

  /**
   * Whether writing the entries again changes them: an expired one goes, or one that opens is not
   * sealed in the current format under the current key. One that does not open changes nothing.
   */
  private resealable(entries: readonly SecretEntry[], opened: readonly Opened[], now: Date): boolean {
    return (
      entries.some((e) => !unexpired(e, now)) ||
      opened.some((o) => 'secret' in o && !(o.entry.sealed && this.sealer.isCurrent(o.entry.sealed)))
    );
  }

  /**
   * Writes the unexpired entries back, each that opens sealed under the current key (kept as it is
   * when it already is), each that does not as it is; conditional on nothing having changed.
   * Returns 1 when written, 0 when a rotation or another re-seal came first.
   */
  private async writeResealed(
    storeId: string,
    field: SecretsField,
    entries: readonly SecretEntry[],
    opened: Opened[],
  ): Promise<number> {
    const next = opened.map((o) =>
      'unreadable' in o || (o.entry.sealed && this.sealer.isCurrent(o.entry.sealed))
        ? { sealed: o.entry.sealed, createdAt: o.entry.createdAt, expiresAt: o.entry.expiresAt }
        : this.sealed(storeId, field, o.secret, o.entry.createdAt, o.entry.expiresAt),
    );
    const result = await StoreModel.updateOne(
      { _id: { $eq: storeId }, ...unchangedSecrets(field, entries) },
      { $set: { [field]: next } },
    );
    return result.modifiedCount;
  }
}
