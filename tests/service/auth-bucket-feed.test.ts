import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { AuthBucket, Subjects } from '@pix/contracts';
import { connectAs } from '@pix/devstack';
import { createLogger } from '@pix/observability';
import { AuthBucketFeed, type AuthBucketEntry } from '../../services/gateway/src/auth-bucket-feed';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';

/**
 * The gateway's view of its AUTH bucket without a consumer: the entries the bucket holds, read with
 * batched direct gets, then each change from the bucket's feed (its republish), each once and in
 * revision order, with the gateway's own credentials on the stack's NATS.
 */
describe('AuthBucketFeed', () => {
  const stack = sharedStack();
  let gateway: NatsConnection;
  const feed = () => new AuthBucketFeed(gateway, createLogger('test', 'silent'));
  beforeAll(async () => {
    gateway = await connectAs(stack.natsUrl, 'gateway', stack.natsCredentials);
  });
  afterAll(() => gateway.close());

  it("applies the bucket's entries, then its changes, in revision order; nothing but the bucket's own", async () => {
    const prefix = `probe-feed.${Date.now()}`;
    const kv = await new Kvm(gateway).open(AuthBucket.name);
    // More than one batch of the bucket's entries before the feed is followed.
    for (let i = 0; i < 1005; i++) await kv.put(`${prefix}.before-${i}`, JSON.stringify({ i }));
    await kv.put(`${prefix}.before-0`, JSON.stringify({ i: 'again' }));
    await kv.delete(`${prefix}.before-1`);

    const applied: AuthBucketEntry[] = [];
    let forgotten = 0;
    const following = feed();
    await following.follow(
      () => forgotten++,
      (entry) => {
        if (entry.key.startsWith(prefix)) applied.push(entry);
      },
    );
    try {
      const mine = () => applied.map((entry) => entry.key.slice(prefix.length + 1));
      expect(forgotten).toBe(1);
      // Each key once, with its latest entry: before-0 rewritten after the others, before-1 deleted.
      expect(mine()).toHaveLength(1005);
      expect(mine().at(-2)).toBe('before-0');
      expect(applied.at(-2)!.json()).toEqual({ i: 'again' });
      expect(applied.at(-1)).toMatchObject({ key: `${prefix}.before-1`, deleted: true });
      const revisions = applied.map((entry) => entry.revision);
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));

      await kv.put(`${prefix}.after`, JSON.stringify({ after: true }));
      // An answer the gateway asks onto its own feed's subject lands there in its own account, but
      // it is not the bucket's republish (JetStream's API answers name no stream).
      gateway.publish(`$JS.API.STREAM.INFO.KV_${AuthBucket.name}`, '', {
        reply: `${Subjects.authFeedAll.slice(0, -1)}${prefix}.forged`,
      });
      await eventually(
        async () => mine(),
        (keys) => keys.includes('after'),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(mine()).not.toContain('forged');
    } finally {
      following.stop();
    }
  });
});
