import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { brlToCents } from '@pix/contracts';
import { sameSecret } from '@pix/runtime';
import { CobRequestSchema, DevolucaoRequestSchema, type Cob, type Devolucao } from '../api-pix/wire';
import { dynamicBrCode } from '../br-code';
import { chargeOfPix, findCharge, findRefund, putCharge, putRefund } from './store';
import { newEndToEndId } from './ids';

export interface SandboxPspOptions {
  /** The OAuth2 client the PSP accepts. */
  clientId: string;
  clientSecret: string;
  /** The receiver's name and city, written into every BR Code the PSP makes. */
  merchantName: string;
  merchantCity: string;
  /** Host (and path prefix) of the charges' payload locations. */
  locationHost: string;
  tokenTtlSeconds?: number;
}

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
 * The sandbox PSP's HTTP API: BACEN's API Pix as a PSP serves it (OAuth2 client credentials, cob,
 * devolução), so the adapter's API Pix client talks to it exactly as to a real PSP. Served over
 * plain HTTP on loopback in sandbox mode, or over HTTPS with mutual TLS (see listen.ts).
 */
export function sandboxPspApp(options: SandboxPspOptions): express.Express {
  const tokens = new Map<string, number>();
  const tokenTtl = options.tokenTtlSeconds ?? 3600;
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
    tokens.set(token, Date.now() + tokenTtl * 1000);
    res.json({
      access_token: token,
      token_type: 'Bearer',
      expires_in: tokenTtl,
      scope: 'cob.write cob.read pix.write',
    });
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
    const { txid } = req.params;
    const parsed = CobRequestSchema.safeParse(req.body);
    if (!TXID.test(txid) || !parsed.success) return problem(res, 400, 'CobOperacaoInvalida', 'invalid charge');
    const amountCents = brlToCents(Number(parsed.data.valor.original)) ?? 0;
    const location = `${options.locationHost}/qr/v2/${randomUUID().replace(/-/g, '')}`;
    const now = new Date();
    const cob: Cob = {
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario: { criacao: now.toISOString(), expiracao: parsed.data.calendario.expiracao },
      loc: { id: randomInt(1, 2 ** 31), location, tipoCob: 'cob' },
      location,
      valor: parsed.data.valor,
      chave: parsed.data.chave,
      ...(parsed.data.solicitacaoPagador ? { solicitacaoPagador: parsed.data.solicitacaoPagador } : {}),
      pixCopiaECola: dynamicBrCode({
        merchantName: options.merchantName,
        merchantCity: options.merchantCity,
        location,
      }),
    };
    // PUT is idempotent by txid: a retried request gets the charge created the first time.
    const { charge, created } = await putCharge(txid, {
      cob,
      amountCents,
      expiresAt: new Date(now.getTime() + parsed.data.calendario.expiracao * 1000),
    });
    res.status(created ? 201 : 200).json(charge.cob);
  });

  api.get('/cob/:txid', async (req: Request<{ txid: string }>, res: Response) => {
    const stored = await findCharge(String(req.params.txid));
    if (!stored) return problem(res, 404, 'CobNaoEncontrado', 'no charge with this txid');
    res.json(stored.cob);
  });

  api.put('/pix/:e2eid/devolucao/:id', async (req: Request<{ e2eid: string; id: string }>, res: Response) => {
    const { e2eid, id } = req.params;
    const parsed = DevolucaoRequestSchema.safeParse(req.body);
    if (!REFUND_ID.test(id) || !parsed.success) {
      return problem(res, 400, 'DevolucaoOperacaoInvalida', 'invalid refund');
    }
    const pix = (await chargeOfPix(e2eid))?.pix;
    if (!pix) return problem(res, 404, 'PixNaoEncontrado', 'no Pix with this endToEndId');
    const amountCents = brlToCents(Number(parsed.data.valor)) ?? 0;
    if (amountCents > pix.amountCents) {
      return problem(res, 400, 'DevolucaoOperacaoInvalida', 'refund larger than the Pix');
    }
    const now = new Date().toISOString();
    const devolucao: Devolucao = {
      id,
      rtrId: newEndToEndId('D'),
      valor: parsed.data.valor,
      horario: { solicitacao: now, liquidacao: now },
      status: 'DEVOLVIDO',
    };
    // Idempotent by id: a retried request answers the refund made the first time.
    const stored = await putRefund(`${e2eid}/${id}`, { endToEndId: e2eid, devolucao, amountCents });
    res.status(stored.created ? 201 : 200).json(stored.devolucao);
  });

  api.get('/pix/:e2eid/devolucao/:id', async (req: Request<{ e2eid: string; id: string }>, res: Response) => {
    const stored = await findRefund(`${req.params.e2eid}/${req.params.id}`);
    if (!stored) return problem(res, 404, 'DevolucaoNaoEncontrada', 'no refund with this id');
    res.json(stored);
  });

  app.use('/v2', api);
  return app;
}
