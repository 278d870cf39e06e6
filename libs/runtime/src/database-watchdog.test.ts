import { MonitorWatchdog } from './database-watchdog';

describe('MonitorWatchdog', () => {
  it('says the client is stalled only once no check has started or ended for longer than the bound', () => {
    const watchdog = new MonitorWatchdog(60_000, 0);
    expect(watchdog.stalled(60_000)).toBeNull();
    expect(watchdog.stalled(60_001)).toBe(60_001);
    // A database that is down still has its checks start and fail every few seconds: no stall.
    watchdog.beat(55_000);
    expect(watchdog.stalled(100_000)).toBeNull();
    expect(watchdog.stalled(115_001)).toBe(60_001);
  });
});
