import { databaseOf, withDatabase } from './psp-simulator';

describe("the PSP simulator's database", () => {
  it("is named after the platform's, in the same server and with the same options", () => {
    expect(withDatabase('mongodb://127.0.0.1:37017/pix', 'pix_psp')).toBe('mongodb://127.0.0.1:37017/pix_psp');
    expect(withDatabase('mongodb://u:p@db:27017/pix?tls=true', 'pix_psp')).toBe(
      'mongodb://u:p@db:27017/pix_psp?tls=true',
    );
    expect(withDatabase('mongodb://db:27017', 'x')).toBe('mongodb://db:27017/x');
    expect(databaseOf('mongodb://127.0.0.1:37017/pix_test_1?tls=true')).toBe('pix_test_1');
    expect(databaseOf('mongodb://127.0.0.1:37017')).toBe('test');
  });

  it('refuses a URL that is not mongodb://', () => {
    expect(() => withDatabase('postgres://db/pix', 'x')).toThrow('not a mongodb:// URL');
  });
});
