import fs from 'node:fs';
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { connect, PermissionViolationError, type NatsConnection } from '@nats-io/transport-node';
import {
  brlToCents,
  type NatsIdentity,
  DispatcherRpc,
  DomainError,
  DomainErrorAnswers,
  GatewayRpc,
  PAYMENT_STATUSES,
  PaymentsRpc,
  MED_NATURES,
  SandboxRpc,
  type MedNature,
  REFUSED_FACTS_LIST_MAX,
  STATEMENT_CHECK_LIST_MAX,
  isDay,
  type PaymentStatus,
  type RpcDefinition,
  type RpcRequest,
} from '@pix/contracts';
import { callRpc, natsAccess, provisionJetStream, RpcFailure, RpcUnavailable } from '@pix/messaging';
import { STACK_FILE, type StackInfo } from '@pix/devstack';

/**
 * The admin CLI: provisions stores and tokens and drives the sandbox PSP, over NATS, through the
 * services that own each fact, as the operator's identity (`admin`); `nats provision` creates
 * JetStream's streams, consumers and bucket as the provisioning identity. Each command prints one
 * JSON object, or a message on stderr and a non-zero exit.
 */

/**
 * Where NATS is and the identity's credentials: NATS_URL with NATS_NKEY_SEED_FILE (and NATS_CA_FILE
 * behind TLS), as in Kubernetes; else the `make up` stack's, from .run/stack.json.
 */
function natsTarget(identity: NatsIdentity): { url: string; seedFile?: string; caFile?: string } {
  if (process.env.NATS_URL) {
    return { url: process.env.NATS_URL, seedFile: process.env.NATS_NKEY_SEED_FILE, caFile: process.env.NATS_CA_FILE };
  }
  if (fs.existsSync(STACK_FILE)) {
    const stack = JSON.parse(fs.readFileSync(STACK_FILE, 'utf8')) as Pick<StackInfo, 'natsUrl' | 'natsCredentials'>;
    return { url: stack.natsUrl, seedFile: stack.natsCredentials?.[identity] };
  }
  return { url: 'nats://127.0.0.1:14222' };
}

async function withNats(identity: NatsIdentity, work: (nc: NatsConnection) => Promise<unknown>): Promise<void> {
  const { url, ...credentials } = natsTarget(identity);
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: url.split(','),
      name: `${identity}-cli`,
      timeout: 5000,
      ...natsAccess(identity, credentials),
    });
  } catch (err) {
    throw new Error(`cannot reach NATS at ${url} (is the stack up? try: make up): ${String(err)}`);
  }
  try {
    const result = await work(nc);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await nc.close();
  }
}

function call<D extends RpcDefinition>(definition: D, payload: RpcRequest<D>): Promise<void> {
  return withNats('admin', (nc) => callRpc(nc, definition, payload, 15_000));
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return n;
}

/** A positive whole number no greater than `max`, refused on the command line rather than by the server. */
function positiveIntUpTo(max: number): (value: string) => number {
  return (value) => {
    const n = positiveInt(value);
    if (n > max) throw new InvalidArgumentError(`must be at most ${max}`);
    return n;
  };
}

function brlAmount(value: string): number {
  const cents = brlToCents(Number(value));
  if (cents === null || cents <= 0 || !/^\d+(\.\d{1,2})?$/.test(value)) {
    throw new InvalidArgumentError('must be an amount in BRL with at most two decimals, e.g. 25.50');
  }
  return cents;
}

const program = new Command('admin').description('Administer the Pix payments platform').showHelpAfterError();

const store = program.command('store').description('stores and their webhook secrets');
store
  .command('create')
  .description('a new store: its test token and webhook secret (token, webhookSecret) and its live ones beside them')
  .requiredOption('--name <name>', 'store name')
  .action((opts: { name: string }) => call(GatewayRpc.storesCreate, { name: opts.name }));
store
  .command('deactivate <storeId>')
  .action((storeId: string) => call(GatewayRpc.storesSetActive, { storeId, active: false }));
store
  .command('activate <storeId>')
  .action((storeId: string) => call(GatewayRpc.storesSetActive, { storeId, active: true }));
store
  .command('rotate-secret <storeId>')
  .description(
    'new webhook secret of test mode (of live mode with --live); the previous ones keep signing deliveries for ' +
      '24 hours, but those that do not open (a retired key) are dropped (droppedUnreadable)',
  )
  .option('--live', "the store's live-mode secret")
  .action((storeId: string, opts: { live?: boolean }) =>
    call(GatewayRpc.storesRotateSecret, { storeId, livemode: opts.live === true }),
  );

store
  .command('reseal-secrets')
  .description(
    "seal every store's webhook secrets under SECRETS_KEYS' first key (after a key rotation, before the old key " +
      'goes); secrets that do not open are left as they are, their stores listed in `unreadable`',
  )
  .action(() => call(GatewayRpc.storesResealSecrets, {}));
store
  .command('check-secrets')
  .description(
    "read every store's webhook secrets and list the stores with one that does not open (`unreadable`: under a " +
      'key SECRETS_KEYS no longer holds), and how many a re-seal would write (`toReseal`); changes nothing',
  )
  .action(() => call(GatewayRpc.storesCheckSecrets, {}));

const token = program.command('token').description('bearer tokens');
token
  .command('issue')
  .requiredOption('--store <storeId>', 'the store the token speaks for')
  .option('--live', 'a live token (pxt_live_…); without it a test token (pxt_test_…)')
  .option('--expires-in <seconds>', 'lifetime in seconds (default: no expiry)', positiveInt)
  .action((opts: { store: string; live?: boolean; expiresIn?: number }) =>
    call(GatewayRpc.tokensIssue, {
      storeId: opts.store,
      livemode: opts.live === true,
      expiresInSeconds: opts.expiresIn,
    }),
  );
token.command('revoke <token>').action((value: string) => call(GatewayRpc.tokensRevoke, { token: value }));

const payment = program.command('payment').description('payments');
payment
  .command('create-internal')
  .description('create a payment outside the public API (isPublic: false), through payments')
  .requiredOption('--store <storeId>', 'the store the payment belongs to')
  .requiredOption('--amount <brl>', 'amount in BRL, e.g. 25.50', brlAmount)
  .option('--observation <text>', 'free-text note')
  .action((opts: { store: string; amount: number; observation?: string }) =>
    call(PaymentsRpc.create, {
      storeId: opts.store,
      input: {
        amountCents: opts.amount,
        email: null,
        observation: opts.observation ?? null,
        webhookUrl: null,
        expiresInSeconds: null,
      },
      isPublic: false,
    }),
  );

payment
  .command('transition')
  .description('move a payment to an internal status through the state machine')
  .argument('<paymentId>')
  .addArgument(new Argument('<status>').choices(PAYMENT_STATUSES))
  .action((paymentId: string, status: string) =>
    call(PaymentsRpc.transition, { paymentId, status: status as PaymentStatus }),
  );

const webhooks = program.command('webhooks').description('webhook deliveries and their log');
webhooks
  .command('list')
  .requiredOption('--payment <paymentId>', 'the payment whose deliveries to show')
  .action((opts: { payment: string }) => call(DispatcherRpc.webhooksList, { paymentId: opts.payment }));
webhooks
  .command('replay <eventId>')
  .description('deliver a delivered or dead-lettered event again, with the same webhook-id')
  .action((eventId: string) => call(DispatcherRpc.webhooksReplay, { eventId }));

const facts = program.command('facts').description('the signed facts that move money');
facts
  .command('refused')
  .description(
    'the newest facts refused for their signature, kept aside: by payments (pix.events) and the dispatcher (payments.events)',
  )
  .option(
    '--limit <n>',
    `how many of each, newest first (at most ${REFUSED_FACTS_LIST_MAX})`,
    positiveIntUpTo(REFUSED_FACTS_LIST_MAX),
    50,
  )
  .action((opts: { limit: number }) =>
    withNats('admin', async (nc) => ({
      payments: (await callRpc(nc, PaymentsRpc.refusedFacts, { limit: opts.limit }, 15_000)).facts,
      'webhook-dispatcher': (await callRpc(nc, DispatcherRpc.refusedFacts, { limit: opts.limit }, 15_000)).facts,
    })),
  );
facts
  .command('reapply')
  .description('after a verifier was given a missing key: apply the refused facts that verify now (the rest stay)')
  .action(() =>
    withNats('admin', async (nc) => ({
      payments: await callRpc(nc, PaymentsRpc.reapplyFacts, {}, 60_000),
      'webhook-dispatcher': await callRpc(nc, DispatcherRpc.reapplyFacts, {}, 60_000),
    })),
  );

/** A day written AAAA-MM-DD, refused on the command line rather than by the server. */
function day(value: string): string {
  if (!isDay(value)) throw new InvalidArgumentError('must be a day AAAA-MM-DD');
  return value;
}

const statement = program
  .command('statement')
  .description("the nightly check of each day's balance transactions against the PSP's listing");
statement
  .command('check')
  .description('check a day (São Paulo; today: so far) against every PSP connection now, and print what differs')
  .addArgument(new Argument('<date>', 'the day, AAAA-MM-DD').argParser(day))
  .action((date: string) =>
    withNats('admin', (nc) => callRpc(nc, PaymentsRpc.statementCheckRun, { date }, 10 * 60_000)),
  );
statement
  .command('results')
  .description('the newest checks stored, a day and connection each, with their differences')
  .option(
    '--limit <n>',
    `how many, newest day first (at most ${STATEMENT_CHECK_LIST_MAX})`,
    positiveIntUpTo(STATEMENT_CHECK_LIST_MAX),
    2,
  )
  .action((opts: { limit: number }) => call(PaymentsRpc.statementCheckResults, { limit: opts.limit }));

const nats = program.command('nats').description('the message bus');
nats
  .command('provision')
  .description("create or update JetStream's streams, durable consumers and the AUTH bucket (before the services)")
  .option(
    '--replicas <n>',
    'copies of each stream (default: JETSTREAM_REPLICAS, else 1)',
    positiveInt,
    Number(process.env.JETSTREAM_REPLICAS ?? 1),
  )
  .action((opts: { replicas: number }) =>
    withNats('provisioner', async (nc) => {
      await provisionJetStream(nc, opts.replicas);
      return { provisioned: true, replicas: opts.replicas };
    }),
  );

const sandbox = program.command('sandbox').description('drive the sandbox PSP');
sandbox
  .command('pay <paymentId>')
  .option('--amount <brl>', 'amount paid (default: the payment amount)', brlAmount)
  .option('--late', 'a new Pix even when the charge can no longer be paid (it goes back to its payer)')
  .option('--drop-callback', 'the PSP never calls back about this Pix: only reconciliation finds it')
  .action((paymentId: string, opts: { amount?: number; late?: boolean; dropCallback?: boolean }) =>
    call(SandboxRpc.pay, {
      paymentId,
      amountCents: opts.amount,
      ...(opts.late && { late: true }),
      ...(opts.dropCallback && { dropCallback: true }),
    }),
  );
sandbox
  .command('fail-next-refund <paymentId>')
  .description("the PSP settles the payment's next refund as not done (NAO_REALIZADO)")
  .action((paymentId: string) => call(SandboxRpc.failNextRefund, { paymentId }));

sandbox
  .command('med <paymentId>')
  .description("the PSP returns the payment's Pix on its own (a MED return): a refund of origin psp")
  .option('--amount <brl>', 'amount returned (default: all that is left of the Pix)', brlAmount)
  .addOption(new Option('--nature <nature>', 'why the PSP returned it').choices(MED_NATURES).default('med_fraud'))
  .action((paymentId: string, opts: { amount?: number; nature: MedNature }) =>
    call(SandboxRpc.med, { paymentId, amountCents: opts.amount, nature: opts.nature }),
  );

sandbox
  .command('review <paymentId>')
  .description('the customer pays and the PSP holds the Pix for analysis')
  .action((paymentId: string) => call(SandboxRpc.review, { paymentId }));
sandbox
  .command('clear <paymentId>')
  .description('the analysis of the held Pix clears it')
  .action((paymentId: string) => call(SandboxRpc.clear, { paymentId }));
sandbox
  .command('reject <paymentId>')
  .description('the analysis of the held Pix rejects it')
  .action((paymentId: string) => call(SandboxRpc.reject, { paymentId }));

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof DomainError) {
    const { status, message } = DomainErrorAnswers[err.code](err.params);
    process.stderr.write(`error ${status}: ${message}\n`);
  } else if (err instanceof RpcFailure) process.stderr.write(`error ${err.status}: ${err.message}\n`);
  else if (err instanceof RpcUnavailable)
    process.stderr.write(`no service answered on ${err.subject}: is the stack up?\n`);
  else if (err instanceof PermissionViolationError)
    process.stderr.write(`NATS refused this identity: ${err.operation} on ${err.subject}\n`);
  else process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
