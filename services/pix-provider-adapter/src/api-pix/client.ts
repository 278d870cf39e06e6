import http from 'node:http';
import https from 'node:https';
import { got } from '@pix/http';
import { traceContextHeaders } from '@pix/observability';
import type { z } from 'zod';
import {
  counted,
  type CreateChargeInput,
  type OnPspRequest,
  type PixProvider,
  type PspOperation,
  type RefundInput,
} from '../providers/provider';
import { chargeFromCob, cobRequestFrom, refundFromDevolucao, valorFrom } from './transformers';
import { CobSchema, DevolucaoSchema, TokenResponseSchema } from './wire';
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
  onRequest: OnPspRequest;
}

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
    const body = cobRequestFrom(input, this.options.pixKey);
    const cob = await this.call('create_charge', CobSchema, `cob/${encodeURIComponent(input.txid)}`, body, signal);
    return chargeFromCob(cob);
  }

  async refund(input: RefundInput): Promise<CreateRefundReply> {
    const path = `pix/${encodeURIComponent(input.endToEndId)}/devolucao/${encodeURIComponent(input.refundId)}`;
    const devolucao = await this.call('refund', DevolucaoSchema, path, { valor: valorFrom(input.amountCents) });
    return refundFromDevolucao(devolucao);
  }

  private call<S extends z.ZodType>(
    operation: PspOperation,
    schema: S,
    path: string,
    json: unknown,
    signal?: AbortSignal,
  ): Promise<z.infer<S>> {
    return counted(this.options.onRequest, operation, async () => {
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
      return schema.parse(answer);
    });
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now()) return this.token.value;
    return counted(this.options.onRequest, 'token', async () => {
      const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
      const answer = await this.http
        .post(this.options.tokenUrl, {
          form: { grant_type: 'client_credentials' },
          headers: { authorization: `Basic ${basic}` },
        })
        .json();
      const token = TokenResponseSchema.parse(answer);
      this.token = { value: token.access_token, expiresAt: Date.now() + token.expires_in * 1000 - TOKEN_MARGIN_MS };
      return token.access_token;
    });
  }
}
