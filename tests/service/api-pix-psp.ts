import express, { type NextFunction, type Request, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { got } from '@pix/http';
import { sameSecret } from '@pix/runtime';
import { CobRemovalSchema, CobRequestSchema, DevolucaoRequestSchema } from '@pix/api-pix';
import {
  SandboxBooks,
  SandboxPsp,
  type NotifyReceiver,
  type SandboxPspOptions,
  type SandboxSettlements,
} from '@pix/sandbox-psp';
import type { MutualTls } from '../../services/pix-provider-adapter/src/api-pix/client';

const TXID = /^[a-zA-Z0-9]{26,35}$/;
const REFUND_ID = /^[a-zA-Z0-9]{1,35}$/;

/** API Pix answers errors as RFC 7807 problems. */
function problem(res: Response, status: number, title: string, detail: string): void {
  res
    .status(status)
    .type('application/problem+json')
    .json({ type: `https://pix.bcb.gov.br/api/v2/error/${title}`, title, status, detail });
}

/**
 * The sandbox PSP behind BACEN's API Pix over HTTP, as a real PSP serves it (OAuth2 client
 * credentials, cob, the Pix received (listed, or one by endToEndId), devolução): what the adapter's `apipix` mode talks to, for a test of that mode
 * (served over mutual TLS by tests/service/apipix-mtls.test.ts). The adapter's own sandbox mode
 * calls the same PSP in process. `settlements` settles the refunds it takes and calls back.
 */
export function apiPixPspApp(
  books: SandboxBooks,
  options: SandboxPspOptions & { clientId: string; clientSecret: string; settlements: SandboxSettlements },
): express.Express {
  const psp = new SandboxPsp(books, options, options.settlements);
  const tokens = new Map<string, number>();
  const app = express();
  app.disable('x-powered-by');

  app.post('/oauth/token', express.urlencoded({ extended: false }), (req: Request, res: Response) => {
    const [scheme, encoded] = (req.get('authorization') ?? '').split(' ');
    const [id, secret] = Buffer.from(encoded ?? '', 'base64')
      .toString('utf8')
      .split(':');
    const body = req.body as Record<string, unknown> | undefined;
    if (scheme !== 'Basic' || id !== options.clientId || !sameSecret(secret ?? '', options.clientSecret)) {
      return problem(res, 401, 'AcessoNegado', 'invalid client credentials');
    }
    if (body?.grant_type !== 'client_credentials') {
      return problem(res, 400, 'RequisicaoInvalida', 'grant_type must be client_credentials');
    }
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, Date.now() + 3600 * 1000);
    res.json({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'cob.write cob.read pix.write' });
  });

  const api = express.Router();
  api.use((req: Request, res: Response, next: NextFunction) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    const expiresAt = token === undefined ? undefined : tokens.get(token);
    if (expiresAt === undefined || expiresAt < Date.now()) return problem(res, 401, 'AcessoNegado', 'invalid token');
    next();
  });
  api.use(express.json({ limit: '64kb' }));

  api.put('/cob/:txid', async (req: Request<{ txid: string }>, res: Response) => {
    const parsed = CobRequestSchema.safeParse(req.body);
    if (!TXID.test(req.params.txid) || !parsed.success)
      return problem(res, 400, 'CobOperacaoInvalida', 'invalid charge');
    const { cob, created } = await psp.putCob(req.params.txid, parsed.data);
    res.status(created ? 201 : 200).json(cob);
  });

  api.get('/cob/:txid', async (req: Request<{ txid: string }>, res: Response) => {
    const cob = await psp.getCob(req.params.txid);
    if (!cob) return problem(res, 404, 'CobNaoEncontrado', 'no charge with this txid');
    res.json(cob);
  });

  // The receiver removes an active charge; one paid or removed already is refused, as API Pix does.
  api.patch('/cob/:txid', async (req: Request<{ txid: string }>, res: Response) => {
    if (!CobRemovalSchema.safeParse(req.body).success)
      return problem(res, 400, 'CobOperacaoInvalida', 'invalid change');
    const removal = await psp.removeCob(req.params.txid);
    if (removal === 'not_found') return problem(res, 404, 'CobNaoEncontrado', 'no charge with this txid');
    if (removal === 'not_active') return problem(res, 400, 'CobOperacaoInvalida', 'the charge is not active');
    res.json(await psp.getCob(req.params.txid));
  });

  api.put('/pix/:e2eid/devolucao/:id', async (req: Request<{ e2eid: string; id: string }>, res: Response) => {
    const parsed = DevolucaoRequestSchema.safeParse(req.body);
    if (!REFUND_ID.test(req.params.id) || !parsed.success) {
      return problem(res, 400, 'DevolucaoOperacaoInvalida', 'invalid refund');
    }
    const answer = await psp.putDevolucao(req.params.e2eid, req.params.id, parsed.data);
    if ('refused' in answer) {
      return answer.refused === 'no-such-pix'
        ? problem(res, 404, 'PixNaoEncontrado', 'no Pix with this endToEndId')
        : problem(res, 400, 'DevolucaoOperacaoInvalida', 'refund larger than the Pix');
    }
    res.status(answer.created ? 201 : 200).json(answer.devolucao);
  });

  // The Pix received in a window, a page at a time (pages from 0, a hundred a page by default).
  api.get('/pix', async (req: Request, res: Response) => {
    const from = new Date(String(req.query.inicio));
    const to = new Date(String(req.query.fim));
    const page = Number(req.query['paginacao.paginaAtual'] ?? 0);
    const perPage = Number(req.query['paginacao.itensPorPagina'] ?? 100);
    const valid = (n: number, min: number) => Number.isInteger(n) && n >= min && n <= 1000;
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || !valid(page, 0) || !valid(perPage, 1)) {
      return problem(
        res,
        400,
        'ConsultaInvalida',
        'inicio and fim (RFC 3339) are required; paging must be whole numbers',
      );
    }
    res.json(await psp.listPix({ from, to }, page, perPage));
  });

  // A received Pix, its devoluções included: what the adapter reads a callback back against.
  api.get('/pix/:e2eid', async (req: Request<{ e2eid: string }>, res: Response) => {
    const pix = await psp.getPix(req.params.e2eid);
    if (!pix) return problem(res, 404, 'PixNaoEncontrado', 'no Pix with this endToEndId');
    res.json(pix);
  });

  api.get('/pix/:e2eid/devolucao/:id', async (req: Request<{ e2eid: string; id: string }>, res: Response) => {
    const devolucao = await psp.getDevolucao(req.params.e2eid, req.params.id);
    if (!devolucao) return problem(res, 404, 'DevolucaoNaoEncontrada', 'no refund with this id');
    res.json(devolucao);
  });

  app.use('/v2', api);
  return app;
}

/** The PSP's callback over HTTP: POST {url}/pix, presenting `tls` (mutual TLS) and `headers`. */
export function callbackOverHttp(target: { url: string; headers: Record<string, string>; tls: MutualTls | null }) {
  const notify: NotifyReceiver = async (pix) => {
    await got.post(`${target.url.replace(/\/$/, '')}/pix`, {
      json: { pix: [pix] },
      headers: target.headers,
      https: target.tls ?? {},
      timeout: { request: 5000 },
      retry: { limit: 3, methods: ['POST'] },
    });
  };
  return notify;
}
