import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import dockerignore from '@balena/dockerignore';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { SERVICE_HEAP_FLAGS } from '@pix/devstack';

/**
 * The Dockerfile without an engine: the Dockerfile linter of the VS Code Docker tooling
 * (dockerfile-utils) finds no problem, the build context holds what it copies, and the runtime
 * stage is non-root production Node with the ops port exposed.
 */
const root = path.join(__dirname, '..', '..');
const text = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const dockerfile = DockerfileParser.parse(text);

describe('Dockerfile', () => {
  it('passes the Dockerfile linter', () => {
    expect(validate(text).map((d) => d.message)).toEqual([]);
  });

  it('copies only what the build context (after .dockerignore) holds', () => {
    const ignore = dockerignore().add(fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n'));
    const copies = dockerfile
      .getCOPYs()
      .filter((copy) => !copy.getFromFlag())
      .flatMap((copy) => copy.getArguments().slice(0, -1))
      .map((arg) => arg.getValue().replace(/\/$/, ''));
    expect(copies.length).toBeGreaterThan(0);
    for (const source of copies) {
      expect({ source, exists: fs.existsSync(path.join(root, source)) }).toEqual({ source, exists: true });
      expect({ source, ignored: ignore.ignores(source) }).toEqual({ source, ignored: false });
    }
    // Compiled output and installed modules never come from the developer's machine.
    for (const local of ['node_modules', 'libs/config/dist', 'services/gateway/node_modules', '.tools']) {
      expect(ignore.ignores(local)).toBe(true);
    }
  });

  it('runs the service as non-root production Node and exposes the ops port', () => {
    const runtime = dockerfile.getFROMs().at(-1)!;
    expect(runtime.getBuildStage()).toBe('runtime');
    const after = dockerfile.getInstructions().filter((i) => i.getRange().start.line > runtime.getRange().start.line);
    const args = (keyword: string) =>
      after.filter((i) => i.getKeyword() === keyword).flatMap((i) => i.getArguments().map((a) => a.getValue()));
    expect(args('USER')).toEqual(['node']);
    expect(args('ENV')).toEqual(expect.arrayContaining(['NODE_ENV=production', 'OPS_PORT=9100']));
    expect(args('EXPOSE')).toEqual(['9100']);
    const base = dockerfile.getARGs().find((arg) => arg.getProperty()?.getName() === 'NODE_IMAGE');
    expect(base?.getProperty()?.getValue()).toMatch(/^node:20(\.\d+)*-(bookworm-slim|alpine)$/);
  });

  it('starts node with the heap flags the local stack and the bench use', () => {
    const cmd = dockerfile.getCMDs().at(-1)!;
    const words = JSON.parse(cmd.getArgumentsContent() ?? '[]') as string[];
    expect(words).toEqual(['node', ...SERVICE_HEAP_FLAGS, 'main.js']);
  });

  it('has a bundle script that bash accepts and that refuses an unknown service', () => {
    const script = path.join(root, 'scripts', 'image-bundle.sh');
    execFileSync('bash', ['-n', script]);
    expect(() => execFileSync('bash', [script, 'no-such-service', '/tmp/none'], { cwd: root, stdio: 'pipe' })).toThrow(
      /unknown SERVICE: no-such-service/,
    );
  });
});
