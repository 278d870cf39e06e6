import http from 'node:http';
import https from 'node:https';
import { centsToBrl } from '@pix/contracts';
import { got } from '@pix/http';
import { traceContextHeaders } from '@pix/observability';
import type { z } from 'zod';
import type { CreateChargeInput, PixProvider, RefundInput } from '../providers/provider';
import { chargeFromCob, refundFromDevolucao } from './transformers';
import { CobSchema, DevolucaoSchema, TokenResponseSchema, type CobRequest } from './wire';
import type { CreateChargeReply, CreateRefundReply } from '@pix/contracts';

/** Client certificate, key and the CA that signed the PSP's server certificate (PEM). */
export interface MutualTls {
  certificate: string;
  key: string;
  certificateAuthority: string;
}

export interface ApiPixClientOptions {
  /** Base of the API, e.g. https://pix.example.com/api/v2 (paths /cob/..., /pix/... go under it). */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The receiver's Pix key written into every charge. */
  pixKey: string;
  /** Absent only for the sandbox PSP served over plain HTTP on loopback. */
  tls: MutualTls | null;
  timeoutMs: number;
  retryLimit: number;
  /** Called once per operation with its outcome (metrics). */
  onRequest: (operation: PspOperation, outcome: 'success' | 'failure') => void;
}

export type PspOperation = 'token' | 'create_charge' | 'refund';

/** Token renewed this long before the PSP says it expires. */
const TOKEN_MARGIN_MS = 30_000;

/**
 * BACEN's API Pix over got: OAuth2 client credentials, mutual TLS, a timeout per attempt and
 * retries with exponential backoff on 5xx, 408/429 and network errors. PUTs are idempotent in API
 * Pix (the txid and the refund id are ours), which is what makes retrying them safe.
 */
export class ApiPixClient implements PixProvider {
  private token: { value: string; expiresAt: number } | null = null;
  private readonly http: typeof got;

  constructor(private readonly options: ApiPixClientOptions) {
    this.http = got.extend({
      // Connections are kept and reused: under load (and retries) a new connection per request
      // floods the PSP's accept queue, and over mutual TLS each one costs a handshake.
      agent: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
      https: options.tls ?? {},
      timeout: { request: options.timeoutMs },
      retry: {
        limit: options.retryLimit,
        methods: ['GET', 'PUT', 'POST'],
        statusCodes: [408, 429, 500, 502, 503, 504],
        backoffLimit: 10_000,
      },
    });
  }

  async createCharge(input: CreateChargeInput, signal?: AbortSignal): Promise<CreateChargeReply> {
    const body: CobRequest = {
      calendario: { expiracao: input.expiresInSeconds },
      valor: { original: centsToBrl(input.amountCents).toFixed(2) },
      chave: this.options.pixKey,
      ...(input.description ? { solicitacaoPagador: input.description.slice(0, 140) } : {}),
    };
    const cob = await this.call('create_charge', CobSchema, `cob/${encodeURIComponent(input.txid)}`, body, signal);
    return chargeFromCob(cob);
  }

  async refund(input: RefundInput): Promise<CreateRefundReply> {
    const path = `pix/${encodeURIComponent(input.endToEndId)}/devolucao/${encodeURIComponent(input.refundId)}`;
    const devolucao = await this.call('refund', DevolucaoSchema, path, {
      valor: centsToBrl(input.amountCents).toFixed(2),
    });
    return refundFromDevolucao(devolucao);
  }

  private async call<S extends z.ZodType>(
    operation: PspOperation,
    schema: S,
    path: string,
    json: unknown,
    signal?: AbortSignal,
  ): Promise<z.infer<S>> {
    try {
      const url = `${this.options.baseUrl.replace(/\/$/, '')}/${path}`;
      const send = async () =>
        this.http
          .put(url, {
            json,
            signal,
            headers: { ...traceContextHeaders(), authorization: `Bearer ${await this.accessToken()}` },
          })
          .json();
      let answer: unknown;
      try {
        answer = await send();
      } catch (err) {
        // A token the PSP no longer knows (it restarted, or revoked it): renew it once and retry.
        if ((err as { response?: { statusCode?: number } }).response?.statusCode !== 401) throw err;
        this.token = null;
        answer = await send();
      }
      const parsed = schema.parse(answer);
      this.options.onRequest(operation, 'success');
      return parsed;
    } catch (err) {
      this.options.onRequest(operation, 'failure');
      throw err;
    }
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now()) return this.token.value;
    try {
      const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
      const answer = await this.http
        .post(this.options.tokenUrl, {
          form: { grant_type: 'client_credentials' },
          headers: { authorization: `Basic ${basic}` },
        })
        .json();
      const token = TokenResponseSchema.parse(answer);
      this.token = { value: token.access_token, expiresAt: Date.now() + token.expires_in * 1000 - TOKEN_MARGIN_MS };
      this.options.onRequest('token', 'success');
      return token.access_token;
    } catch (err) {
      this.options.onRequest('token', 'failure');
      throw err;
    }
  }
}
