import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@pix/devstack';

const run = promisify(execFile);

/**
 * The PHP SDK's unit tests (clients/php/tests: retry policy, mapping, webhook verification; no
 * server) in make test, with Debian's phpunit (scripts/install-system-packages.sh).
 */
describe('the PHP SDK unit tests', () => {
  it('pass under phpunit', async () => {
    const { stdout } = await run('phpunit', ['--configuration', path.join(ROOT, 'clients/php/phpunit.xml.dist')], {
      cwd: path.join(ROOT, 'clients/php'),
      timeout: 60_000,
    });
    // phpunit exits 0 only when every test passed; the summary says how many ran.
    expect(stdout).toMatch(/\nOK \((\d+) tests, \d+ assertions\)/);
    expect(Number(/OK \((\d+) tests/.exec(stdout)?.[1])).toBeGreaterThanOrEqual(40);
  }, 90_000);
});
