import { deliveryState, endpointStats, paymentStates } from './dashboard-rpc';
import type { DeliverySummary } from './delivery-log';

const delivery = (over: Partial<DeliverySummary>): DeliverySummary => ({
  paymentId: 'p1',
  url: 'https://a.example/hooks',
  status: 'delivered',
  runAttempts: 1,
  earlierRunsAttempts: 0,
  lastError: null,
  ...over,
});

describe('dashboard summaries of the delivery log', () => {
  it('calls a pending delivery failing once an attempt has failed', () => {
    expect(deliveryState({ status: 'pending', lastError: null })).toBe('pending');
    expect(deliveryState({ status: 'pending', lastError: 'HTTP 500' })).toBe('failing');
    expect(deliveryState({ status: 'dead', lastError: 'HTTP 500' })).toBe('dead');
    expect(deliveryState({ status: 'delivered', lastError: null })).toBe('delivered');
  });

  it("gives each payment its worst delivery's state", () => {
    const states = paymentStates([
      delivery({ paymentId: 'p1' }),
      delivery({ paymentId: 'p1', status: 'pending', lastError: 'timeout' }),
      delivery({ paymentId: 'p2', status: 'dead' }),
      delivery({ paymentId: 'p2' }),
      delivery({ paymentId: 'p3', status: 'pending' }),
    ]);
    expect(states).toEqual([
      { paymentId: 'p1', state: 'failing' },
      { paymentId: 'p2', state: 'dead' },
      { paymentId: 'p3', state: 'pending' },
    ]);
  });

  it('sums deliveries per endpoint, the worst failure rate first', () => {
    const stats = endpointStats([
      delivery({ url: 'https://ok.example/h' }),
      delivery({ url: 'https://ok.example/h', runAttempts: 2, earlierRunsAttempts: 1 }),
      delivery({ url: 'https://bad.example/h', status: 'dead', runAttempts: 8 }),
      delivery({ url: 'https://bad.example/h', status: 'pending', lastError: 'HTTP 503', runAttempts: 3 }),
      delivery({ url: 'https://bad.example/h' }),
    ]);
    expect(stats).toEqual([
      { url: 'https://bad.example/h', deliveries: 3, delivered: 1, pending: 0, failing: 1, dead: 1, attempts: 12 },
      { url: 'https://ok.example/h', deliveries: 2, delivered: 2, pending: 0, failing: 0, dead: 0, attempts: 4 },
    ]);
  });
});
