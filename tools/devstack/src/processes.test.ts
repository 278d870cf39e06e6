import { freePort, goServerEnv } from './processes';

describe('freePort', () => {
  const worker = process.env.JEST_WORKER_ID;
  afterAll(() => {
    process.env.JEST_WORKER_ID = worker;
  });

  /** Ports picked as jest's worker `id` would pick them. */
  async function picksOf(id: string | undefined, count: number): Promise<number[]> {
    if (id === undefined) delete process.env.JEST_WORKER_ID;
    else process.env.JEST_WORKER_ID = id;
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    return ports;
  }

  it('gives each jest worker, and any other process, ports of its own slice: two never pick the same', async () => {
    const [main, first, second] = [await picksOf(undefined, 20), await picksOf('1', 20), await picksOf('2', 20)];
    const span = (ports: number[]) => [Math.min(...ports), Math.max(...ports)];
    const [[, mainHigh], [firstLow, firstHigh], [secondLow]] = [span(main), span(first), span(second)];
    expect(mainHigh).toBeLessThan(firstLow!);
    expect(firstHigh).toBeLessThan(secondLow!);
    expect(Math.min(...main)).toBeGreaterThanOrEqual(20_000);
  });
});

describe('goServerEnv', () => {
  it('runs a Go server on one thread unless GOMAXPROCS is set, and passes the rest of the environment', () => {
    expect(goServerEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', GOMAXPROCS: '1' });
    expect(goServerEnv({ PATH: '/bin', GOMAXPROCS: '2' })).toEqual({ PATH: '/bin', GOMAXPROCS: '2' });
  });
});
