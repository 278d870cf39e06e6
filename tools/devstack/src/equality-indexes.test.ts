import { equalityIndexName } from './equality-indexes';

describe('equalityIndexName', () => {
  it('names the index after its collection and field, as PostgreSQL folds unquoted names', () => {
    expect(equalityIndexName('payments', '_id')).toBe('payments__id_gin');
    expect(equalityIndexName('payments', 'storeId')).toBe('payments_storeid_gin');
  });

  it('keeps long names within PostgreSQL 63 characters and apart from each other', () => {
    const long = 'a_collection_whose_name_is_long_enough_to_matter';
    const first = equalityIndexName(long, 'merchantReferenceNumber');
    const second = equalityIndexName(long, 'merchantReferenceNumberOfTheBuyer');
    expect(first.length).toBeLessThanOrEqual(63);
    expect(second.length).toBeLessThanOrEqual(63);
    expect(first).not.toBe(second);
  });
});
