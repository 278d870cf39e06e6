import { Registry } from '@pix/observability';
import { StatementCheckGauges } from './statement-check-metrics';

const check = (day: string, differenceCount: number, checkedAt = `${day}T06:00:00.000Z`) => ({
  day,
  connection: 'test' as const,
  livemode: false,
  checkedAt,
  pixAtPsp: 3,
  movements: 3,
  differenceCount,
});

async function shown(registry: Registry) {
  const [differences, checkedAt] = await Promise.all([
    registry.getSingleMetric('statement_check_differences')!.get(),
    registry.getSingleMetric('statement_check_last_success_timestamp_seconds')!.get(),
  ]);
  return { differences: differences.values.map((v) => v.value), checkedAt: checkedAt.values.map((v) => v.value) };
}

describe('the statement check’s gauges', () => {
  it('show the newest day of a connection; a day checked again replaces its own figures, an older one none', async () => {
    const registry = new Registry();
    const gauges = new StatementCheckGauges(registry);
    gauges.show(check('2026-11-27', 2));
    gauges.show(check('2026-11-28', 1));
    // An older day checked again by hand, later: the newest day's figures stay.
    gauges.show(check('2026-11-27', 0, '2026-11-29T10:00:00.000Z'));
    expect(await shown(registry)).toEqual({
      differences: [1],
      checkedAt: [Date.parse('2026-11-28T06:00:00.000Z') / 1000],
    });
    gauges.show(check('2026-11-28', 0, '2026-11-29T11:00:00.000Z'));
    expect(await shown(registry)).toEqual({
      differences: [0],
      checkedAt: [Date.parse('2026-11-29T11:00:00.000Z') / 1000],
    });
  });
});
