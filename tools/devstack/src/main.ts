import fs from 'node:fs';
import { RUN_DIR, STACK_FILE } from './layout';
import { isAlive } from './processes';
import { engineConf } from './postgres';
import { defaultPorts, startStack, stopProcesses, type StackInfo } from './stack';

/**
 * `make up` / `make down`: the whole stack on loopback, in the background, with its state in .run/.
 * Processes are recorded by pid so that down stops exactly what up started.
 */
function readStack(): StackInfo | null {
  if (!fs.existsSync(STACK_FILE)) return null;
  return JSON.parse(fs.readFileSync(STACK_FILE, 'utf8')) as StackInfo;
}

function printWelcome(info: StackInfo): void {
  process.stdout.write(
    [
      '',
      `Pix payments stack is up. Gateway: ${info.gatewayUrl}`,
      '',
      'Create a store and keep its token:',
      '  npm run -s admin -- store create --name "My store"',
      '',
      'Then create a payment:',
      `  curl -s -X POST ${info.gatewayUrl}/public-api/v1/payments \\`,
      '    -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\',
      `    -d '{"amount": 25.5}'`,
      '',
      ...(info.psp
        ? [
            `Test mode's PSP (simulator): API Pix ${info.psp.apiUrl} (mutual TLS), back office ${info.psp.backOfficeUrl}`,
          ]
        : []),
      ...(info.livePsp
        ? [
            `Live mode's PSP (a stand-in simulator): API Pix ${info.livePsp.apiUrl} (mutual TLS).`,
            '  A live payment (liveToken) is paid at its payer route, never through the sandbox routes:',
            `  curl -s -X POST ${info.livePsp.backOfficeUrl}/cob/<payment id without dashes>/pay`,
          ]
        : []),
      '',
      `Logs: ${RUN_DIR}/logs/    Stop: make down`,
      '',
    ].join('\n'),
  );
}

async function up(): Promise<void> {
  const running = readStack();
  if (running) {
    const alive = running.processes.filter((p) => isAlive(p.pid));
    if (alive.length === running.processes.length) {
      process.stdout.write('Already running; nothing started.\n');
      printWelcome(running);
      return;
    }
    process.stdout.write('Part of the stack had stopped; restarting it.\n');
    await stopProcesses(alive);
    fs.rmSync(STACK_FILE);
  }
  const info = await startStack({
    dir: RUN_DIR,
    ports: defaultPorts(),
    natsUrl: process.env.NATS_URL,
    mongoUrl: process.env.MONGO_URL,
    // Live mode rehearses against a second simulator, unless LIVE_PSP_* name a real PSP.
    livePsp: !process.env.LIVE_PSP_API_URL,
    detached: true,
  });
  const { started: _children, ...record } = info;
  // It holds the administrator's and the superuser's URLs (mongoAdminUrl, postgresUrl): this user's only.
  fs.writeFileSync(STACK_FILE, JSON.stringify(record, null, 2), { mode: 0o600 });
  fs.chmodSync(STACK_FILE, 0o600);
  printWelcome(record);
}

async function down(): Promise<void> {
  const running = readStack();
  if (!running) {
    process.stdout.write('Nothing running.\n');
    return;
  }
  await stopProcesses(running.processes);
  fs.rmSync(STACK_FILE);
  process.stdout.write(`Stopped ${running.processes.map((p) => p.name).join(', ')}.\n`);
}

function status(): void {
  const running = readStack();
  if (!running) {
    process.stdout.write('Nothing running.\n');
    return;
  }
  for (const p of running.processes) {
    process.stdout.write(
      `${p.name.padEnd(22)} pid ${String(p.pid).padEnd(8)} ${isAlive(p.pid) ? 'running' : 'stopped'}\n`,
    );
  }
}

/** The engine's PostgreSQL settings for the local engine's image (scripts/images.sh). */
function engineSettings(): void {
  process.stdout.write(engineConf());
}

const commands: Record<string, () => Promise<void> | void> = {
  up,
  down,
  status,
  'engine-settings': engineSettings,
};
const command = commands[process.argv[2] ?? ''];
if (!command) {
  process.stderr.write('usage: stack up|down|status|engine-settings\n');
  process.exit(2);
}
Promise.resolve(command()).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.stderr.write(`See the logs in ${RUN_DIR}/logs/.\n`);
  process.exit(1);
});
