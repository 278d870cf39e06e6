import { faultFits, FaultSchema, Faults } from './faults';

describe('the PSP simulator faults', () => {
  it('applies a fault to as many requests as its times, then no more', () => {
    const faults = new Faults();
    faults.set('cob.put', { kind: 'unavailable', times: 2 });
    expect(faults.take('cob.put')).toMatchObject({ kind: 'unavailable' });
    expect(faults.take('cob.put')).toMatchObject({ kind: 'unavailable' });
    expect(faults.take('cob.put')).toBeNull();
  });

  it('keeps a fault without times until it is cleared, and only on its own target', () => {
    const faults = new Faults();
    faults.set('pix.list', { kind: 'unavailable' });
    faults.set('callback.devolucao', { kind: 'drop' });
    for (let n = 0; n < 5; n++) expect(faults.take('pix.list')).not.toBeNull();
    expect(faults.take('pix.get')).toBeNull();
    faults.clear('pix.list');
    expect(faults.take('pix.list')).toBeNull();
    expect(faults.take('callback.devolucao')).toMatchObject({ kind: 'drop' });
    faults.clear();
    expect(faults.take('callback.devolucao')).toBeNull();
  });

  it('does not let a later take change the fault it was set from', () => {
    const fault = { kind: 'unavailable' as const, times: 2 };
    const faults = new Faults();
    faults.set('cob.patch', fault);
    faults.take('cob.patch');
    expect(fault.times).toBe(2);
  });

  it('fits drop to callbacks only, and unavailable and slow to API operations only', () => {
    expect(faultFits('callback.pix', { kind: 'drop' })).toBe(true);
    expect(faultFits('callback.pix', { kind: 'unavailable' })).toBe(false);
    expect(faultFits('devolucao.put', { kind: 'slow', delayMs: 10 })).toBe(true);
    expect(faultFits('devolucao.put', { kind: 'drop' })).toBe(false);
  });

  it('refuses a fault that is not one', () => {
    expect(FaultSchema.safeParse({ kind: 'slow' }).success).toBe(false);
    expect(FaultSchema.safeParse({ kind: 'unavailable', times: 0 }).success).toBe(false);
    expect(FaultSchema.safeParse({ kind: 'explode' }).success).toBe(false);
    expect(FaultSchema.safeParse({ kind: 'slow', delayMs: 500, times: 1 }).success).toBe(true);
  });
});
