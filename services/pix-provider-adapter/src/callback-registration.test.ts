import { createLogger } from '@pix/observability';
import { CallbackRegistration } from './callback-registration';

describe('CallbackRegistration', () => {
  const logger = createLogger('test', 'silent');
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('registers the URL once when the PSP takes it at once', async () => {
    const register = jest.fn().mockResolvedValue(undefined);
    const states: boolean[] = [];
    new CallbackRegistration(register, 'https://platform.example/psp/callbacks', (d) => states.push(d), logger).start();
    await jest.advanceTimersByTimeAsync(0);
    expect(register.mock.calls).toEqual([['https://platform.example/psp/callbacks']]);
    expect(states).toEqual([false, true]);
  });

  it('tries again, backing off from 1 s, until the PSP takes it', async () => {
    const register = jest
      .fn()
      .mockRejectedValueOnce(new Error('away'))
      .mockRejectedValueOnce(new Error('away'))
      .mockResolvedValue(undefined);
    const states: boolean[] = [];
    new CallbackRegistration(register, 'https://p.example/cb', (d) => states.push(d), logger).start();
    await jest.advanceTimersByTimeAsync(0);
    expect(register).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(999);
    expect(register).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(register).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(2000);
    expect(register).toHaveBeenCalledTimes(3);
    expect(states).toEqual([false, true]);
    await jest.advanceTimersByTimeAsync(120_000);
    expect(register).toHaveBeenCalledTimes(3);
  });

  it('stops trying once stopped (the adapter shutting down)', async () => {
    const register = jest.fn().mockRejectedValue(new Error('away'));
    const registration = new CallbackRegistration(register, 'https://p.example/cb', () => undefined, logger);
    registration.start();
    await jest.advanceTimersByTimeAsync(0);
    registration.stop();
    await jest.advanceTimersByTimeAsync(300_000);
    expect(register).toHaveBeenCalledTimes(1);
  });
});
