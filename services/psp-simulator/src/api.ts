import express, { type NextFunction, type Request, type Response } from 'express';
import {
  CobRemovalSchema,
  CobRequestSchema,
  DefesaRequestSchema,
  DevolucaoRequestSchema,
  problem,
  WebhookRequestSchema,
  type ProblemTitle,
} from '@pix/api-pix';
import { sameSecret } from '@pix/runtime';
import type { SandboxInfractions, SandboxPsp } from './books';
import type { ApiOperation, Faults } from './faults';
import type { Journal, JournalLine } from './journal';
import type { AccessTokens } from './tokens';
import type { WebhookRegistrations } from './webhook-registrations';

const TXID = /^[a-zA-Z0-9]{26,35}$/;
const REFUND_ID = /^[a-zA-Z0-9]{1,35}$/;
/** GET /pix's page size when the client names none: API Pix's default. */
const DEFAULT_PAGE_SIZE = 100;

/** API Pix answers errors as RFC 7807 problems. */
const WINDOW_QUERY_REFUSAL = 'inicio and fim (RFC 3339) are required; paging must be whole numbers';

/**
 * A listing's query, as API Pix's GET /pix and Efí's GET /gn/infracoes take it: the window
 * (inicio, fim) and the page (from 0, a hundred a page by default, at most 1000); null when invalid.
 */
function windowQuery(req: Request): { window: { from: Date; to: Date }; page: number; perPage: number } | null {
  const from = new Date(String(req.query.inicio));
  const to = new Date(String(req.query.fim));
  const page = Number(req.query['paginacao.paginaAtual'] ?? 0);
  const perPage = Number(req.query['paginacao.itensPorPagina'] ?? DEFAULT_PAGE_SIZE);
  const valid = (n: number, min: number) => Number.isInteger(n) && n >= min && n <= 1000;
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || !valid(page, 0) || !valid(perPage, 1)) return null;
  return { window: { from, to }, page, perPage };
}

function refuse(res: Response, status: number, title: ProblemTitle, detail: string): void {
  res
    .status(status)
    .type('application/problem+json')
    .json(problem(status, title, detail));
}

export interface ApiPixDeps {
  psp: SandboxPsp;
  infractions: SandboxInfractions;
  registrations: WebhookRegistrations;
  tokens: AccessTokens;
  faults: Faults;
  journal: Journal;
  client: { id: string; secret: string };
  /** Each request's operation and status, as it is answered (psp_api_requests_total). */
  onAnswer: (operation: ApiOperation, status: number | 'aborted') => void;
}

/**
 * BACEN's API Pix v2 as a PSP serves it to its receiver (the platform's adapter): OAuth2 client
 * credentials (/oauth/token), charges (cob), the Pix received (listed by window, or one by
 * endToEndId), devoluções and the callback registration (webhook), and Efí's infractions (MED claims,
 * `gn/infracoes`). Served over mutual TLS by
 * main.ts, so a client without a certificate of the simulator's CA never reaches it.
 *
 * Every request is written to the journal and meets the faults the back office set on its
 * operation (503 before doing anything, or an answer held back after doing it).
 */
export function apiPixApp(deps: ApiPixDeps): express.Express {
  const { psp } = deps;
  const app = express();
  app.disable('x-powered-by');

  /** Journals the request, applies its operation's fault, then runs the handler. */
  const operation =
    <P extends Record<string, string>>(name: ApiOperation, handler: (req: Request<P>, res: Response) => unknown) =>
    async (req: Request<P>, res: Response) => {
      // Journaled as it arrives (a request answered late is already there), its status once answered.
      const line: JournalLine = {
        operation: name,
        params: { ...req.params },
        query: Object.fromEntries(Object.entries(req.query).map(([key, value]) => [key, String(value)])),
        status: null,
        at: new Date().toISOString(),
      };
      deps.journal.record(line);
      res.once('close', () => {
        // A client that hung up before the answer (a slow fault) was answered nothing.
        line.status = res.writableFinished ? res.statusCode : null;
        deps.onAnswer(name, line.status ?? 'aborted');
      });
      const fault = deps.faults.take(name);
      if (fault?.kind === 'unavailable') return refuse(res, 503, 'ServicoIndisponivel', 'the PSP is unavailable');
      if (fault?.kind === 'slow') {
        // Done at once, answered late: the client may time out on a request the PSP took.
        const send = res.json.bind(res);
        res.json = (body: unknown) => {
          setTimeout(() => send(body), fault.delayMs);
          return res;
        };
      }
      await handler(req, res);
    };

  app.post(
    '/oauth/token',
    express.urlencoded({ extended: false, limit: '4kb' }),
    operation('token', (req, res) => {
      const [scheme, encoded] = (req.get('authorization') ?? '').split(' ');
      const decoded = Buffer.from(encoded ?? '', 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const [id, secret] = colon < 0 ? ['', ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
      const body = req.body as Record<string, unknown> | undefined;
      if (scheme !== 'Basic' || id !== deps.client.id || !sameSecret(secret, deps.client.secret)) {
        return refuse(res, 401, 'AcessoNegado', 'invalid client credentials');
      }
      if (body?.grant_type !== 'client_credentials') {
        return refuse(res, 400, 'RequisicaoInvalida', 'grant_type must be client_credentials');
      }
      const { token, expiresInSeconds } = deps.tokens.issue();
      res.json({
        access_token: token,
        token_type: 'Bearer',
        expires_in: expiresInSeconds,
        scope:
          'cob.write cob.read pix.write pix.read webhook.write webhook.read gn.infractions.read gn.infractions.write',
      });
    }),
  );

  const api = express.Router();
  api.use((req: Request, res: Response, next: NextFunction) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (!deps.tokens.valid(token)) return refuse(res, 401, 'AcessoNegado', 'invalid token');
    next();
  });
  api.use(express.json({ limit: '64kb' }));

  api.put(
    '/cob/:txid',
    operation<{ txid: string }>('cob.put', async (req, res) => {
      const parsed = CobRequestSchema.safeParse(req.body);
      if (!TXID.test(req.params.txid) || !parsed.success)
        return refuse(res, 400, 'CobOperacaoInvalida', 'invalid charge');
      const { cob, created } = await psp.putCob(req.params.txid, parsed.data);
      res.status(created ? 201 : 200).json(cob);
    }),
  );

  api.get(
    '/cob/:txid',
    operation<{ txid: string }>('cob.get', async (req, res) => {
      const cob = await psp.getCob(req.params.txid);
      if (!cob) return refuse(res, 404, 'CobNaoEncontrado', 'no charge with this txid');
      res.json(cob);
    }),
  );

  // The receiver removes an active charge; one paid or removed already is refused, as API Pix does.
  api.patch(
    '/cob/:txid',
    operation<{ txid: string }>('cob.patch', async (req, res) => {
      if (!CobRemovalSchema.safeParse(req.body).success)
        return refuse(res, 400, 'CobOperacaoInvalida', 'invalid change');
      const removal = await psp.removeCob(req.params.txid);
      if (removal === 'not_found') return refuse(res, 404, 'CobNaoEncontrado', 'no charge with this txid');
      if (removal === 'not_active') return refuse(res, 400, 'CobOperacaoInvalida', 'the charge is not active');
      res.json(await psp.getCob(req.params.txid));
    }),
  );

  // The Pix received in a window, a page at a time (pages from 0, a hundred a page by default).
  api.get(
    '/pix',
    operation('pix.list', async (req, res) => {
      const query = windowQuery(req);
      if (!query) return refuse(res, 400, 'ConsultaInvalida', WINDOW_QUERY_REFUSAL);
      res.json(await psp.listPix(query.window, query.page, query.perPage));
    }),
  );

  // A received Pix, its devoluções included: what the adapter reads a callback back against.
  api.get(
    '/pix/:e2eid',
    operation<{ e2eid: string }>('pix.get', async (req, res) => {
      const pix = await psp.getPix(req.params.e2eid);
      if (!pix) return refuse(res, 404, 'PixNaoEncontrado', 'no Pix with this endToEndId');
      res.json(pix);
    }),
  );

  api.put(
    '/pix/:e2eid/devolucao/:id',
    operation<{ e2eid: string; id: string }>('devolucao.put', async (req, res) => {
      const parsed = DevolucaoRequestSchema.safeParse(req.body);
      if (!REFUND_ID.test(req.params.id) || !parsed.success) {
        return refuse(res, 400, 'DevolucaoOperacaoInvalida', 'invalid refund');
      }
      const answer = await psp.putDevolucao(req.params.e2eid, req.params.id, parsed.data);
      if ('refused' in answer) {
        return answer.refused === 'no-such-pix'
          ? refuse(res, 404, 'PixNaoEncontrado', 'no Pix with this endToEndId')
          : refuse(res, 400, 'DevolucaoOperacaoInvalida', 'refund larger than the Pix');
      }
      res.status(answer.created ? 201 : 200).json(answer.devolucao);
    }),
  );

  api.get(
    '/pix/:e2eid/devolucao/:id',
    operation<{ e2eid: string; id: string }>('devolucao.get', async (req, res) => {
      const devolucao = await psp.getDevolucao(req.params.e2eid, req.params.id);
      if (!devolucao) return refuse(res, 404, 'DevolucaoNaoEncontrada', 'no refund with this id');
      res.json(devolucao);
    }),
  );

  // Efí's infractions (MED claims against the Pix received), beside API Pix: listed by when they
  // last changed, a page at a time; answered once, while open and before their prazo.
  api.get(
    '/gn/infracoes',
    operation('infracoes.list', async (req, res) => {
      const query = windowQuery(req);
      if (!query) return refuse(res, 400, 'ConsultaInvalida', WINDOW_QUERY_REFUSAL);
      res.json(await deps.infractions.list(query.window, query.page, query.perPage));
    }),
  );

  api.post(
    '/gn/infracoes/:id/defesa',
    operation<{ id: string }>('infracoes.defesa', async (req, res) => {
      const parsed = DefesaRequestSchema.safeParse(req.body);
      if (!parsed.success) {
        return refuse(res, 400, 'RequisicaoInvalida', 'analise (aceito or rejeitado) and justificativa are required');
      }
      const answer = await deps.infractions.defend(req.params.id, parsed.data);
      if (!('refused' in answer)) return void res.status(200).json(answer);
      if (answer.refused === 'not-found')
        return refuse(res, 404, 'InfracaoNaoEncontrada', 'no infraction with this id');
      const detail =
        answer.refused === 'not-open' ? 'the infraction was answered or decided already' : 'its prazo has passed';
      refuse(res, 400, 'InfracaoOperacaoInvalida', detail);
    }),
  );

  // The callback registration: the PSP POSTs {webhookUrl}/pix for every Pix received to the key.
  api.put(
    '/webhook/:chave',
    operation<{ chave: string }>('webhook.put', async (req, res) => {
      const parsed = WebhookRequestSchema.safeParse(req.body);
      if (!parsed.success || !req.params.chave || req.params.chave.length > 77) {
        return refuse(res, 400, 'WebhookOperacaoInvalida', 'webhookUrl must be an https URL');
      }
      await deps.registrations.put(req.params.chave, parsed.data.webhookUrl);
      res.status(200).end();
    }),
  );

  api.get(
    '/webhook/:chave',
    operation<{ chave: string }>('webhook.get', async (req, res) => {
      const registration = await deps.registrations.find(req.params.chave);
      if (!registration) return refuse(res, 404, 'WebhookNaoEncontrado', 'no webhook for this key');
      res.json({
        webhookUrl: registration.webhookUrl,
        chave: registration._id,
        criacao: registration.criacao.toISOString(),
      });
    }),
  );

  api.delete(
    '/webhook/:chave',
    operation<{ chave: string }>('webhook.delete', async (req, res) => {
      if (!(await deps.registrations.remove(req.params.chave))) {
        return refuse(res, 404, 'WebhookNaoEncontrado', 'no webhook for this key');
      }
      res.status(204).end();
    }),
  );

  app.use('/v2', api);
  app.use((_req: Request, res: Response) => refuse(res, 404, 'NaoEncontrado', 'no such route'));
  // A body that is not JSON (or too large) is the client's error; anything else is the PSP's.
  app.use((err: { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    const status = err.status ?? 500;
    if (status >= 400 && status < 500) return refuse(res, status, 'RequisicaoInvalida', 'malformed request');
    refuse(res, 503, 'ServicoIndisponivel', 'the PSP could not answer');
  });
  return app;
}
