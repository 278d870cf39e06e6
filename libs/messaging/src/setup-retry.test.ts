import { retrySetup } from './setup-retry';

describe('retrySetup', () => {
  it('repeats a refused step until it succeeds', async () => {
    let calls = 0;
    const result = await retrySetup('probe', async () => {
      calls++;
      if (calls < 3) throw new Error('no suitable peers for placement');
      return 'placed';
    });
    expect({ result, calls }).toEqual({ result: 'placed', calls: 3 });
  });

  it('gives the last refusal up once its patience is spent', async () => {
    let calls = 0;
    const refused = retrySetup(
      'probe',
      async () => {
        calls++;
        throw new Error(`refused ${calls}`);
      },
      undefined,
      600,
    );
    await expect(refused).rejects.toThrow(/^refused [23]$/);
  });
});
