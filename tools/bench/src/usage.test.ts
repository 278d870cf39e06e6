import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { processTree } from '@pix/devstack';
import { CpuMeter, platformSeconds } from './usage';

/** This process's CPU seconds and wakeups, children included, since `meter` started. */
const sinceStart = (meter: CpuMeter) => meter.read()[0]!;

// A child that burns 0.3 s of CPU, says so, then waits to be stopped.
const BURNER = `
  while (process.cpuUsage().user < 300_000) {}
  process.stdout.write('burnt\\n');
  setInterval(() => {}, 1000);
`;

describe('CPU of a process counts its children', () => {
  it('includes a running child, and keeps its time once the child has exited', async () => {
    const meter = new CpuMeter([{ name: 'this test', pid: process.pid }]);
    const child = spawn(process.execPath, ['-e', BURNER], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout, 'data');
    expect(processTree(process.pid)).toContain(child.pid);
    expect(sinceStart(meter).seconds).toBeGreaterThanOrEqual(0.3);
    child.kill();
    await once(child, 'exit');
    expect(processTree(process.pid)).not.toContain(child.pid);
    expect(sinceStart(meter).seconds).toBeGreaterThanOrEqual(0.3);
  });
});

describe('wakeups of a process', () => {
  it('counts each time a thread of it, or of a child, went to sleep and woke', async () => {
    const meter = new CpuMeter([{ name: 'this test', pid: process.pid }]);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sinceStart(meter).wakeups).toBeGreaterThanOrEqual(5);
  });
});

describe("the platform's CPU", () => {
  it("leaves out the PSP simulators, a PSP's work, test mode's and the live stand-in", () => {
    const usage = [
      { name: 'payments', seconds: 1.5 },
      { name: 'psp-simulator', seconds: 4 },
      { name: 'psp-simulator-live', seconds: 2 },
      { name: 'postgres', seconds: 0.5 },
    ];
    expect(platformSeconds(usage)).toBe(2);
  });
});
