import path from 'node:path';

/** The repository root (this file is tools/devstack/{src,dist}/layout.*). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
/** Where scripts/install-infra.sh puts nats-server and ferretdb. */
export const TOOLS_BIN = path.join(ROOT, '.tools', 'bin');
/** Runtime state of `make up`: data, logs, pids. */
export const RUN_DIR = path.join(ROOT, '.run');
export const STACK_FILE = path.join(RUN_DIR, 'stack.json');

export const SERVICE_NAMES = ['pix-provider-adapter', 'payments', 'webhook-dispatcher', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** A service's compiled entry point, in this checkout or another one (make bench's baseline). */
export function serviceEntry(name: ServiceName, root = ROOT): string {
  return path.join(root, 'services', name, 'dist', 'main.js');
}

/** The PSP simulator: a process of the stack, not a service of the platform (no NATS identity, no fact keys). */
export const PSP_SIMULATOR = 'psp-simulator';

export function simulatorEntry(root = ROOT): string {
  return path.join(root, 'services', PSP_SIMULATOR, 'dist', 'main.js');
}
