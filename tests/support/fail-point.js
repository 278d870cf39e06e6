/**
 * A test's fail point, planted in one service's process from outside: its node is started with
 * `--require` of this file (NODE_OPTIONS, set by failPointEnv in fail-points.ts) and FAIL_POINT
 * naming the point. Once the service loads the compiled module the point is in, one of its exports
 * is wrapped so that the process exits at that moment with FAIL_POINT_EXIT_CODE; the production
 * modules carry nothing of it. A point whose module or export is gone stops the service at start,
 * so a test cannot pass without its crash.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- node preloads this file as it is: CommonJS, untranspiled */
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const [name = '', arg = ''] = (process.env.FAIL_POINT ?? '').split(/:(.*)/s);
const exitCode = Number(process.env.FAIL_POINT_EXIT_CODE);

function crash() {
  process.stderr.write(`fail point ${process.env.FAIL_POINT} reached: exiting\n`);
  process.exit(exitCode);
}

/** Calls `patch` with the exports of the service's compiled module `file` as soon as it is loaded. */
function afterLoad(file, patch) {
  const target = path.join(ROOT, file);
  if (!fs.existsSync(target)) throw new Error(`fail point ${name}: no ${target}`);
  const load = Module._extensions['.js'];
  Module._extensions['.js'] = function (module, filename) {
    load.call(this, module, filename);
    if (filename === target) patch(module.exports);
  };
}

function mustBeFunction(value, what) {
  if (typeof value !== 'function') throw new Error(`fail point ${name}: ${what} is not a function`);
}

/**
 * payments: the process exits just before (or just after) publishing the messages of the first
 * write that owes an event of type `arg`, leaving the stored change unpublished (or published with
 * its writer's record not yet saying so). Every publish of the process goes through what publisher() returns.
 */
function aroundPublish(when) {
  afterLoad('services/payments/dist/outbox.js', (outbox) => {
    const publisher = outbox.publisher;
    mustBeFunction(publisher, 'outbox.publisher');
    outbox.publisher = (...args) => {
      const publish = publisher(...args);
      return async (messages) => {
        const reached = messages.some((m) => m.body?.body?.event === arg);
        if (when === 'before' && reached) crash();
        await publish(messages);
        if (when === 'after' && reached) crash();
      };
    };
  });
}

/**
 * The PSP simulator: the process exits right after its books record a decision (a charge's Pix, or
 * the end of its analysis) made by this call, before the PSP calls the receiver back.
 */
function afterSandboxDecision() {
  afterLoad('services/psp-simulator/dist/books/books.js', ({ SandboxBooks }) => {
    const { recordPix, recordAnalysis } = SandboxBooks.prototype;
    mustBeFunction(recordPix, 'SandboxBooks.recordPix');
    mustBeFunction(recordAnalysis, 'SandboxBooks.recordAnalysis');
    SandboxBooks.prototype.recordPix = async function (txid, pix, now) {
      const charge = await recordPix.call(this, txid, pix, now);
      if (charge?.pix?.endToEndId === pix.endToEndId) crash();
      return charge;
    };
    SandboxBooks.prototype.recordAnalysis = async function (txid, analysis) {
      const charge = await recordAnalysis.call(this, txid, analysis);
      if (charge?.analysis?.decidedAt.getTime() === analysis.decidedAt.getTime()) crash();
      return charge;
    };
  });
}

/**
 * The adapter: the process exits right after the PSP took a refund (its PUT devolução answered),
 * before the adapter records the answer: the command to send it is not acked.
 */
function afterRefundTaken() {
  afterLoad('services/pix-provider-adapter/dist/api-pix/client.js', ({ ApiPixClient }) => {
    const { sendRefund } = ApiPixClient.prototype;
    mustBeFunction(sendRefund, 'ApiPixClient.sendRefund');
    ApiPixClient.prototype.sendRefund = async function (input) {
      await sendRefund.call(this, input);
      crash();
    };
  });
}

/**
 * The adapter: the process exits in the middle of a reconciliation with the PSP, once a page of
 * GET /pix listed a Pix and before any of that page is fed on: its cursor stays where it was.
 */
function duringReconciliation() {
  afterLoad('services/pix-provider-adapter/dist/api-pix/client.js', ({ ApiPixClient }) => {
    const { listReceivedPix } = ApiPixClient.prototype;
    mustBeFunction(listReceivedPix, 'ApiPixClient.listReceivedPix');
    ApiPixClient.prototype.listReceivedPix = async function (window, page) {
      const listed = await listReceivedPix.call(this, window, page);
      if (listed.pix.length > 0) crash();
      return listed;
    };
  });
}

const points = {
  'crash-before-publish': () => aroundPublish('before'),
  'crash-after-publish': () => aroundPublish('after'),
  'crash-after-decision': afterSandboxDecision,
  'crash-after-refund-taken': afterRefundTaken,
  'crash-during-reconciliation': duringReconciliation,
};

const plant = points[name];
if (!plant || !Number.isInteger(exitCode)) throw new Error(`unknown fail point "${process.env.FAIL_POINT}"`);
plant();
