import express, { type NextFunction, type Request, type Response } from 'express';
import {
  BackOfficeFailNextRefundBodySchema,
  BackOfficeDecideBodySchema,
  BackOfficeInfractionBodySchema,
  BackOfficeMedBodySchema,
  BackOfficePayBodySchema,
  valorFrom,
  type BackOfficeMed,
  type BackOfficePix,
} from '@pix/api-pix';
import { brlToCents, DomainError, type DomainErrorCode } from '@pix/contracts';
import {
  SANDBOX_REFUND_FAILURE,
  type OwnReturnRefusal,
  type SandboxBooks,
  type SandboxInfractions,
  type SandboxPayer,
  type SandboxPix,
  type SandboxPsp,
} from './books';
import { API_OPERATIONS, faultFits, FaultSchema, FaultTargetSchema, type ApiOperation, type Faults } from './faults';
import type { Journal } from './journal';

/** How each refusal of the payer's side is answered: no such charge is 404, the PSP unable to call back 502. */
const STATUS_OF: Partial<Record<DomainErrorCode, number>> = { charge_not_found: 404, callback_failed: 502 };

/** How each refusal of a return of the PSP's own is answered (the back office's own codes). */
const OWN_RETURN_REFUSAL: Record<OwnReturnRefusal, { status: number; error: string }> = {
  'no-such-pix': { status: 404, error: 'pix_not_found' },
  'more-than-the-pix': { status: 409, error: 'more_than_the_pix' },
  'nothing-left': { status: 409, error: 'nothing_left_to_return' },
};

/** The same refusals of a return asked by charge, in the platform's words. */
const OWN_RETURN_DOMAIN_ERROR: Record<OwnReturnRefusal, DomainErrorCode> = {
  'no-such-pix': 'nothing_paid',
  'more-than-the-pix': 'return_above_pix',
  'nothing-left': 'nothing_left_to_return',
};

/** A Pix as the back office answers it: API Pix's words. */
function pixAnswer(txid: string, pix: SandboxPix): BackOfficePix {
  return {
    txid,
    endToEndId: pix.endToEndId,
    valor: valorFrom(pix.amountCents),
    horario: pix.paidAt.toISOString(),
  };
}

/** The claim of an infraction filed without one. */
const SANDBOX_INFRACTION_CLAIM = 'Contestação simulada pelo PSP sandbox: o pagador não reconhece este Pix.';
/** How long the receiver has to answer an infraction filed without a prazo: the PSPs' seven days of analysis. */
const INFRACTION_ANSWER_MS = 7 * 24 * 60 * 60 * 1000;

function amountOf(valor: string | undefined): number | undefined {
  return valor === undefined ? undefined : (brlToCents(Number(valor)) ?? undefined);
}

/**
 * The PSP's other side, on a port of its own (plain HTTP, never exposed): the payer and the PSP's
 * back office (its wire: @pix/api-pix's back-office.ts). Charges are named by txid, as the PSP knows them:
 *   POST /cob/{txid}/pay               {valor?, late?, dropCallback?}  a payer pays (another amount, late, callback lost)
 *   POST /cob/{txid}/review                                             a payer pays and the PSP holds the Pix for analysis
 *   POST /cob/{txid}/clear | /reject                                    the analysis ends
 *   POST /cob/{txid}/fail-next-refund  {motivo?}                        the next devolução of its Pix settles NAO_REALIZADO
 *   POST /pix/{e2eid}/med              {valor?, natureza?, dropCallback?} the PSP returns the Pix on its own (MED)
 *   POST /cob/{txid}/med               {valor?, natureza?, dropCallback?} the same, of the Pix that paid the charge
 *   POST /pix/{e2eid}/infracao         {valor?, motivo?, tipoSituacao?, prazo?} the payer's PSP files an infraction
 *   GET /infracoes/{id}, POST /infracoes/{id}/decide {status}          an infraction, and the PSP's decision of it
 *   PUT /faults/{target} {kind, ...}, DELETE /faults[/{target}]        the PSP misbehaves (faults.ts)
 *   GET /journal[?operation=…]                                          the API Pix requests it served
 * Each action is idempotent the way the PSP's payer side is (books/payer.ts), a late Pix and a
 * return of the PSP's own aside (each call a new one), and ends in the callback to the receiver's
 * registered webhook.
 */
export function backOfficeApp(deps: {
  payer: SandboxPayer;
  books: SandboxBooks;
  psp: SandboxPsp;
  infractions: SandboxInfractions;
  faults: Faults;
  journal: Journal;
}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '4kb' }));

  app.post('/cob/:txid/pay', async (req: Request<{ txid: string }>, res: Response) => {
    const body = BackOfficePayBodySchema.safeParse(req.body ?? {});
    if (!body.success) return void res.status(400).json({ error: 'invalid_body', detail: body.error.message });
    const { valor, late, dropCallback } = body.data;
    const { txid } = req.params;
    const { _id, pix } = late
      ? await deps.payer.payLate(txid, amountOf(valor), dropCallback ?? false)
      : await deps.payer.pay(txid, amountOf(valor), false, dropCallback ?? false);
    res.json(pixAnswer(_id, pix));
  });

  app.post('/cob/:txid/review', async (req: Request<{ txid: string }>, res: Response) => {
    const { _id, pix } = await deps.payer.pay(req.params.txid, undefined, true);
    res.json({ ...pixAnswer(_id, pix), analise: 'EM_ANALISE' });
  });

  for (const [action, outcome] of [
    ['clear', 'LIBERADO'],
    ['reject', 'REJEITADO'],
  ] as const) {
    app.post(`/cob/:txid/${action}`, async (req: Request<{ txid: string }>, res: Response) => {
      const { _id, pix } = await deps.payer.endAnalysis(req.params.txid, outcome);
      res.json({ ...pixAnswer(_id, pix), analise: outcome });
    });
  }

  app.post('/cob/:txid/fail-next-refund', async (req: Request<{ txid: string }>, res: Response) => {
    const body = BackOfficeFailNextRefundBodySchema.safeParse(req.body ?? {});
    if (!body.success) return void res.status(400).json({ error: 'invalid_body', detail: body.error.message });
    const motivo = body.data.motivo ?? SANDBOX_REFUND_FAILURE;
    if (!(await deps.books.failNextRefund(req.params.txid, motivo))) throw new DomainError('charge_not_found');
    res.json({ txid: req.params.txid, motivo });
  });

  /** A MED return of the Pix `e2eid`, as the body asks; the refusal when the PSP cannot make it. */
  async function returnOnItsOwn(e2eid: string, body: unknown) {
    const parsed = BackOfficeMedBodySchema.safeParse(body ?? {});
    if (!parsed.success) return { invalid: parsed.error.message } as const;
    const { valor, natureza, dropCallback } = parsed.data;
    return deps.psp.returnOnItsOwn(e2eid, {
      amountCents: amountOf(valor),
      natureza: natureza ?? 'MED_FRAUDE',
      dropCallback: dropCallback ?? false,
    });
  }

  app.post('/pix/:e2eid/med', async (req: Request<{ e2eid: string }>, res: Response) => {
    const { e2eid } = req.params;
    const made = await returnOnItsOwn(e2eid, req.body);
    if ('invalid' in made) return void res.status(400).json({ error: 'invalid_body', detail: made.invalid });
    if ('refused' in made) {
      const { status, error } = OWN_RETURN_REFUSAL[made.refused];
      return void res.status(status).json({ error });
    }
    const answer: BackOfficeMed = { txid: made.txid, endToEndId: e2eid, devolucao: made.devolucao };
    res.status(201).json(answer);
  });

  // By charge, for the sandbox's actions, which name a payment: its refusals are the platform's domain errors.
  app.post('/cob/:txid/med', async (req: Request<{ txid: string }>, res: Response) => {
    const charge = await deps.books.findCharge(req.params.txid);
    if (!charge) throw new DomainError('charge_not_found');
    if (!charge.pix) throw new DomainError('nothing_paid');
    const made = await returnOnItsOwn(charge.pix.endToEndId, req.body);
    if ('invalid' in made) return void res.status(400).json({ error: 'invalid_body', detail: made.invalid });
    if ('refused' in made) throw new DomainError(OWN_RETURN_DOMAIN_ERROR[made.refused]);
    const answer: BackOfficeMed = { txid: made.txid, endToEndId: charge.pix.endToEndId, devolucao: made.devolucao };
    res.status(201).json(answer);
  });

  app.post('/pix/:e2eid/infracao', async (req: Request<{ e2eid: string }>, res: Response) => {
    const body = BackOfficeInfractionBodySchema.safeParse(req.body ?? {});
    if (!body.success) return void res.status(400).json({ error: 'invalid_body', detail: body.error.message });
    const { valor, motivo, tipoSituacao, prazo } = body.data;
    const filed = await deps.infractions.file(req.params.e2eid, {
      amountCents: amountOf(valor),
      motivo: motivo ?? SANDBOX_INFRACTION_CLAIM,
      tipoSituacao: tipoSituacao ?? 'golpe',
      prazo: prazo ? new Date(prazo) : new Date(Date.now() + INFRACTION_ANSWER_MS),
    });
    if ('refused' in filed) {
      const { status, error } = OWN_RETURN_REFUSAL[filed.refused];
      return void res.status(status).json({ error });
    }
    res.status(201).json(filed);
  });

  app.get('/infracoes/:id', async (req: Request<{ id: string }>, res: Response) => {
    const infracao = await deps.infractions.find(req.params.id);
    if (!infracao) return void res.status(404).json({ error: 'infraction_not_found' });
    res.json(infracao);
  });

  app.post('/infracoes/:id/decide', async (req: Request<{ id: string }>, res: Response) => {
    const body = BackOfficeDecideBodySchema.safeParse(req.body ?? {});
    if (!body.success) return void res.status(400).json({ error: 'invalid_body', detail: body.error.message });
    const infracao = await deps.infractions.decide(req.params.id, body.data.status);
    if (!infracao) return void res.status(404).json({ error: 'infraction_not_found' });
    res.json(infracao);
  });

  app.put('/faults/:target', (req: Request<{ target: string }>, res: Response) => {
    const target = FaultTargetSchema.safeParse(req.params.target);
    const fault = FaultSchema.safeParse(req.body);
    if (!target.success) return void res.status(404).json({ error: 'no_such_target' });
    if (!fault.success || !faultFits(target.data, fault.data)) {
      return void res.status(400).json({ error: 'invalid_fault', detail: fault.error?.message ?? 'kind' });
    }
    deps.faults.set(target.data, fault.data);
    res.json({ target: target.data, fault: fault.data });
  });

  app.delete('/faults', (_req: Request, res: Response) => {
    deps.faults.clear();
    res.status(204).end();
  });

  app.delete('/faults/:target', (req: Request<{ target: string }>, res: Response) => {
    const target = FaultTargetSchema.safeParse(req.params.target);
    if (!target.success) return void res.status(404).json({ error: 'no_such_target' });
    deps.faults.clear(target.data);
    res.status(204).end();
  });

  app.get('/journal', (req: Request, res: Response) => {
    const operation = req.query.operation;
    if (operation !== undefined && !(API_OPERATIONS as readonly unknown[]).includes(operation)) {
      return void res.status(400).json({ error: 'no_such_operation' });
    }
    res.json({ requests: deps.journal.list(operation as ApiOperation | undefined) });
  });

  app.use((_req: Request, res: Response) => void res.status(404).json({ error: 'no_such_route' }));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof DomainError) return void res.status(STATUS_OF[err.code] ?? 409).json({ error: err.code });
    const status = (err as { status?: number }).status;
    if (status && status >= 400 && status < 500) return void res.status(status).json({ error: 'malformed_request' });
    res.status(500).json({ error: 'internal' });
  });
  return app;
}
