import { shapeDocument, type FieldShape } from './checkout';

describe("a seeded payment takes the shape of the measured checkout's model", () => {
  const shape: Record<string, FieldShape> = {
    _id: { required: true },
    status: { required: true },
    outbox: { required: false, default: {} },
    attempts: { required: false, default: 0 },
    note: { required: false },
  };

  it('keeps the known fields the model declares, fills the others with its defaults and drops what it does not declare', () => {
    const doc = shapeDocument(shape, { _id: 'p1', status: 'approved', gone: true });
    expect(doc).toEqual({ _id: 'p1', status: 'approved', outbox: {}, attempts: 0 });
  });

  it('gives each document its own copy of an object default', () => {
    const a = shapeDocument(shape, { _id: 'a', status: 'approved' });
    const b = shapeDocument(shape, { _id: 'b', status: 'approved' });
    expect(a.outbox).not.toBe(b.outbox);
  });

  it('stops at a required field it has no value for', () => {
    expect(() => shapeDocument({ ...shape, sweepKey: { required: true } }, { _id: 'p1', status: 'approved' })).toThrow(
      /requires "sweepKey"/,
    );
  });
});
