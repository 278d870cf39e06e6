import {
  callFailure,
  got,
  HTTPError,
  keptAliveAgents,
  poolUse,
  type CallFailure,
  type KeptAliveAgents,
  type Method,
  type MutualTls,
  type PoolUse,
} from '@pix/http';
import { traceContextHeaders } from '@pix/observability';
import { refusalDetail } from './refusal-detail';
import type { z } from 'zod';
import type { CreateChargeReply } from '@pix/contracts';
import {
  counted,
  PspError,
  PspRefusal,
  type ChargeAtPsp,
  type ChargeRemoval,
  type CreateChargeInput,
  type InfractionPage,
  type InfractionProvider,
  type OnPspRequest,
  type PixProvider,
  type PspOperation,
  type ReceivedPixPage,
  type RefundAtPsp,
  type RefundInput,
} from '../providers/provider';
import {
  chargeAtPspFrom,
  chargeFromCob,
  cobRequestFrom,
  defesaRequestFrom,
  devolucaoRequestFrom,
  infractionFrom,
  refundFromDevolucao,
} from './transformers';
import {
  CobSchema,
  DevolucaoSchema,
  InfracaoListSchema,
  InfractionPaths,
  PixListSchema,
  ProblemSchema,
  ReceivedPixSchema,
  TokenResponseSchema,
  type CobRemovalSchema,
  type ReceivedPix,
} from '@pix/api-pix';

export interface ApiPixClientOptions {
  /** Base of the API, e.g. https://pix.example.com/api/v2 (paths /cob/..., /pix/... go under it). */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The receiver's Pix key written into every charge. */
  pixKey: string;
  tls: MutualTls;
  timeoutMs: number;
  retryLimit: number;
  /** Connections kept open to the PSP at most (per host): calls beyond them wait for one. */
  maxConnections: number;
  /** Called once per operation with its outcome (metrics). */
  onRequest: OnPspRequest;
}

/** Pix asked per page of GET /pix: API Pix's default, which every PSP serves. */
const PIX_PAGE_SIZE = 100;
/** Token renewed this long before the PSP says it expires. */
const TOKEN_MARGIN_MS = 30_000;
/** 4xx answers that do not refuse the request itself (a token to renew, a timeout, too many requests): temporary. */
const TEMPORARY_STATUSES = new Set([401, 408, 429]);

interface Call<S extends z.ZodType> {
  method: Method;
  path: string;
  json?: unknown;
  /** What a 2xx answers; null: its body is not read. */
  schema: S | null;
  /** Retried (with backoff) on 5xx, 408, 429 and network errors: only what is safe to send again. */
  retry: boolean;
  signal?: AbortSignal;
}

/**
 * BACEN's API Pix over got: OAuth2 client credentials, mutual TLS, a timeout per attempt and, for
 * requests that are safe to send again, retries with exponential backoff on 5xx, 408/429 and network
 * errors. PUT /cob is idempotent by txid (ours) and a GET changes nothing, so both retry; a refund's
 * PUT is sent once per call (a PSP may answer a repeated one differently, bacen/pix-api #277): the
 * caller reads the refund back before it sends it again. A 4xx is the PSP refusing the request
 * (PspRefusal, with its problem's detail); a 404 on a read is "none".
 */
export class ApiPixClient implements PixProvider, InfractionProvider {
  private token: { value: string; expiresAt: number } | null = null;
  /** The token request under way, which every call needing a token meanwhile waits for. */
  private tokenAsked: Promise<string> | null = null;
  private readonly http: typeof got;
  private readonly agents: KeptAliveAgents;

  constructor(private readonly options: ApiPixClientOptions) {
    // Connections are kept and reused: under load (and retries) a new connection per request
    // floods the PSP's accept queue, and over mutual TLS each one costs a handshake. The client
    // certificate and the PSP's CA are the pool's (one secure context), not each call's. Bounded,
    // so a backlog (a PSP back from an outage, a burst of retries) waits here instead of opening a
    // handshake per call against a PSP that is already slow.
    this.agents = keptAliveAgents(options.tls, options.maxConnections);
    this.http = got.extend({
      agent: this.agents,
      timeout: { request: options.timeoutMs },
      retry: {
        limit: options.retryLimit,
        methods: ['GET', 'PUT', 'POST', 'PATCH'],
        statusCodes: [408, 429, 500, 502, 503, 504],
        backoffLimit: 10_000,
      },
    });
  }

  async createCharge(input: CreateChargeInput, signal?: AbortSignal): Promise<CreateChargeReply> {
    const cob = await this.answer('create_charge', {
      method: 'PUT',
      path: `cob/${encodeURIComponent(input.txid)}`,
      json: cobRequestFrom(input, this.options.pixKey),
      schema: CobSchema,
      retry: true,
      signal,
    });
    return chargeFromCob(cob);
  }

  async sendRefund(input: RefundInput): Promise<RefundAtPsp> {
    const devolucao = await this.answer('refund', {
      method: 'PUT',
      path: devolucaoPath(input.endToEndId, input.pspRefundId),
      json: devolucaoRequestFrom(input),
      schema: DevolucaoSchema,
      retry: false,
    });
    return refundFromDevolucao(devolucao);
  }

  async readRefund(endToEndId: string, pspRefundId: string): Promise<RefundAtPsp | null> {
    try {
      const devolucao = await this.answer('read_refund', {
        method: 'GET',
        path: devolucaoPath(endToEndId, pspRefundId),
        schema: DevolucaoSchema,
        retry: true,
      });
      return refundFromDevolucao(devolucao);
    } catch (err) {
      if (err instanceof PspRefusal && err.status === 404) return null;
      throw err;
    }
  }

  async removeCharge(txid: string): Promise<ChargeRemoval> {
    const removal: z.infer<typeof CobRemovalSchema> = { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' };
    try {
      await this.call('remove_charge', {
        method: 'PATCH',
        path: `cob/${encodeURIComponent(txid)}`,
        json: removal,
        schema: null,
        retry: true,
      });
      return 'removed';
    } catch (err) {
      if (!(err instanceof PspRefusal)) throw err;
      // API Pix removes only an active charge: one paid, expired or removed already is refused.
      return err.status === 404 ? 'not_found' : 'not_active';
    }
  }

  async readCharge(txid: string): Promise<ChargeAtPsp | null> {
    try {
      const cob = await this.answer('read_charge', {
        method: 'GET',
        path: `cob/${encodeURIComponent(txid)}`,
        schema: CobSchema,
        retry: true,
      });
      return chargeAtPspFrom(cob);
    } catch (err) {
      if (err instanceof PspRefusal && err.status === 404) return null;
      throw err;
    }
  }

  async readPix(endToEndId: string): Promise<ReceivedPix | null> {
    try {
      return await this.answer('read_pix', {
        method: 'GET',
        path: `pix/${encodeURIComponent(endToEndId)}`,
        schema: ReceivedPixSchema,
        retry: true,
      });
    } catch (err) {
      if (err instanceof PspRefusal && err.status === 404) return null;
      throw err;
    }
  }

  /**
   * PUT /webhook/{chave}: the PSP is to POST the Pix received on the receiver's key to
   * `webhookUrl` + `/pix`. Idempotent (the same URL again changes nothing), so it retries.
   */
  async registerWebhook(webhookUrl: string): Promise<void> {
    await this.call('register_webhook', {
      method: 'PUT',
      path: `webhook/${encodeURIComponent(this.options.pixKey)}`,
      json: { webhookUrl },
      schema: null,
      retry: true,
    });
  }

  async listReceivedPix(window: { from: Date; to: Date }, page: number): Promise<ReceivedPixPage> {
    const query = new URLSearchParams({
      inicio: window.from.toISOString(),
      fim: window.to.toISOString(),
      'paginacao.paginaAtual': String(page),
      'paginacao.itensPorPagina': String(PIX_PAGE_SIZE),
    });
    const list = await this.answer('list_pix', {
      method: 'GET',
      path: `pix?${query.toString()}`,
      schema: PixListSchema,
      retry: true,
    });
    return { pix: list.pix, pages: list.parametros.paginacao.quantidadeDePaginas };
  }

  /** GET /v2/gn/infracoes (Efí): one page of the infractions that changed in the window; 404: none served. */
  async listInfractions(window: { from: Date; to: Date }, page: number): Promise<InfractionPage | 'unsupported'> {
    const query = new URLSearchParams({
      inicio: window.from.toISOString(),
      fim: window.to.toISOString(),
      'paginacao.paginaAtual': String(page),
      'paginacao.itensPorPagina': String(PIX_PAGE_SIZE),
    });
    try {
      const list = await this.answer('list_infractions', {
        method: 'GET',
        path: `${InfractionPaths.list}?${query.toString()}`,
        schema: InfracaoListSchema,
        retry: true,
      });
      return { infractions: list.infracoes.map(infractionFrom), pages: list.parametros.paginacao.quantidadeDePaginas };
    } catch (err) {
      if (err instanceof PspRefusal && err.status === 404) return 'unsupported';
      throw err;
    }
  }

  /** POST /v2/gn/infracoes/{id}/defesa (Efí), once per call: a POST is not safe to send blindly again. */
  async sendDefense(pspDisputeId: string, text: string): Promise<void> {
    await this.call('send_defense', {
      method: 'POST',
      path: InfractionPaths.defense(pspDisputeId),
      json: defesaRequestFrom(text),
      schema: null,
      retry: false,
    });
  }

  /** A call whose 2xx has a body, parsed by its schema. */
  private async answer<S extends z.ZodType>(
    operation: PspOperation,
    call: Call<S> & { schema: S },
  ): Promise<z.infer<S>> {
    return (await this.call(operation, call)) as z.infer<S>;
  }

  private call<S extends z.ZodType>(operation: PspOperation, call: Call<S>): Promise<z.infer<S> | null> {
    return counted(this.options.onRequest, operation, async () => {
      const url = `${this.options.baseUrl.replace(/\/$/, '')}/${call.path}`;
      const failed = pspError(operation, call.method, url);
      let sent = '';
      const send = async (): Promise<{ status: number; body: unknown }> => {
        try {
          sent = await this.accessToken();
          const response = await this.http(url, {
            method: call.method,
            json: call.json,
            signal: call.signal,
            ...(call.retry ? {} : { retry: { limit: 0 } }),
            headers: { ...traceContextHeaders(), authorization: `Bearer ${sent}` },
          });
          return { status: response.statusCode, body: response.body };
        } catch (err) {
          // An answer the PSP gave (after the retries): what it says decides; no answer at all is thrown.
          if (err instanceof HTTPError) return { status: err.response.statusCode, body: err.response.body };
          if (err instanceof PspError) throw err; // the token's
          throw failed(callFailure(err));
        }
      };
      let answer = await send();
      // A token the PSP no longer knows (it restarted, or revoked it): renew it once and ask again.
      // Only the token this call sent is dropped: a newer one, which another call renewed
      // meanwhile, is kept, so the calls a PSP restart refuses together renew it once.
      if (answer.status === 401) {
        if (this.token?.value === sent) this.token = null;
        answer = await send();
      }
      if (answer.status >= 200 && answer.status < 300) return call.schema ? call.schema.parse(json(answer.body)) : null;
      if (answer.status >= 400 && answer.status < 500 && !TEMPORARY_STATUSES.has(answer.status)) {
        const detail = ProblemSchema.safeParse(json(answer.body)).data?.detail;
        throw new PspRefusal(answer.status, refusalDetail(detail, answer.status, this.credentialsSent()));
      }
      // Not the problem's detail: a PSP may echo the request (its Authorization header) in it.
      throw failed({ status: answer.status, message: `HTTP ${answer.status}` });
    });
  }

  /** What this client puts in its requests' Authorization headers, for a refusal's detail to be cut of. */
  private credentialsSent(): string[] {
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
    return [this.token?.value ?? '', this.options.clientSecret, basic];
  }

  /**
   * Asks the PSP for a new access token (and keeps it), or waits for the request under way:
   * whether this connection's credentials and certificates are taken now. Throws the PspError of
   * the token request when they are not.
   */
  async checkAccess(): Promise<void> {
    await this.newToken();
  }

  /** The connections open to the PSP now, and the calls waiting for one (psp_connections_open, psp_calls_waiting). */
  connectionUse(): PoolUse {
    return poolUse(this.agents);
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now()) return this.token.value;
    return this.newToken();
  }

  /**
   * One token request at a time, whatever the calls waiting for it: after a restart, an expiry or
   * a PSP's restart, every call at that moment needs a token, and asking for one each would send a
   * PSP that is slow already as many token requests (each with its retries) as calls.
   */
  private newToken(): Promise<string> {
    this.tokenAsked ??= this.askToken().finally(() => {
      this.tokenAsked = null;
    });
    return this.tokenAsked;
  }

  private askToken(): Promise<string> {
    return counted(this.options.onRequest, 'token', async () => {
      const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
      const failed = pspError('token', 'POST', this.options.tokenUrl);
      const answer = await this.http
        .post(this.options.tokenUrl, {
          form: { grant_type: 'client_credentials' },
          headers: { authorization: `Basic ${basic}` },
        })
        .json()
        .catch((err: unknown) => {
          throw failed(callFailure(err));
        });
      const token = TokenResponseSchema.parse(answer);
      this.token = { value: token.access_token, expiresAt: Date.now() + token.expires_in * 1000 - TOKEN_MARGIN_MS };
      return token.access_token;
    });
  }
}

/**
 * Makes the PspError of one call from how it failed: the call's method and path (no query string),
 * how long it took since this was made, never its options, headers or bodies.
 */
function pspError(operation: PspOperation, method: string, url: string): (failure: CallFailure) => PspError {
  const started = performance.now();
  const { pathname } = new URL(url);
  return (failure) =>
    new PspError(
      operation,
      method,
      pathname,
      Math.round(performance.now() - started),
      failure.status,
      failure.code,
      failure.message,
      failure.cause,
    );
}

function devolucaoPath(endToEndId: string, pspRefundId: string): string {
  return `pix/${encodeURIComponent(endToEndId)}/devolucao/${encodeURIComponent(pspRefundId)}`;
}

function json(body: unknown): unknown {
  if (typeof body !== 'string' || body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
