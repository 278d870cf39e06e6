import {
  createStore,
  rotateWebhookSecret,
  SECRET_ROTATION_OVERLAP_MS,
  webhookSecretsOf,
} from '../../services/gateway/src/stores';
import { useOwnDatabase } from './helpers';

/** Which secrets sign deliveries around a rotation, against the real FerretDB (a database of its own). */
describe('webhook secret rotation', () => {
  useOwnDatabase('secret_rotation_test');

  it('signs with the old secret too for 24 hours, then with the new one only', async () => {
    const { storeId, webhookSecret: first } = await createStore('Rotation');
    const rotatedAt = new Date();
    const second = await rotateWebhookSecret(storeId, rotatedAt);
    const at = (ms: number) => new Date(rotatedAt.getTime() + ms);

    expect(await webhookSecretsOf(storeId, at(0))).toEqual([second, first]);
    expect(await webhookSecretsOf(storeId, at(SECRET_ROTATION_OVERLAP_MS - 1000))).toEqual([second, first]);
    expect(await webhookSecretsOf(storeId, at(SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([second]);
  });

  it('keeps each replaced secret its own 24 hours across several rotations', async () => {
    const { storeId, webhookSecret: first } = await createStore('Rotation twice');
    const t0 = new Date();
    const second = await rotateWebhookSecret(storeId, t0);
    const t1 = new Date(t0.getTime() + 12 * 3_600_000);
    const third = await rotateWebhookSecret(storeId, t1);

    expect(await webhookSecretsOf(storeId, t1)).toEqual([third, second, first]);
    // The first expires 24 h after the first rotation, the second 24 h after the second.
    expect(await webhookSecretsOf(storeId, new Date(t0.getTime() + SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([
      third,
      second,
    ]);
    expect(await webhookSecretsOf(storeId, new Date(t1.getTime() + SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([
      third,
    ]);
  });
});
