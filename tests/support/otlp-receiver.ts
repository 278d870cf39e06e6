import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** OTLP span kinds as they appear in the JSON encoding. */
export const SpanKinds = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
      }[];
    }[];
  }[];
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue,
    ]),
  );
}

/**
 * An OTLP/HTTP trace receiver (JSON encoding) on loopback, standing in for an OpenTelemetry
 * collector: services export to it when OTEL_EXPORTER_OTLP_ENDPOINT points here.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: http.Server | undefined;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'POST' && req.url === '/v1/traces') {
      this.record(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }

  private record(request: ExportRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(attributes(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: attributes(span.attributes),
          });
        }
      }
    }
  }

  /** The span and its ancestors, nearest first, as far as they were received. */
  lineage(span: ReceivedSpan): ReceivedSpan[] {
    const chain = [span];
    for (let current = span; current.parentSpanId;) {
      const parent = this.spans.find((s) => s.spanId === current.parentSpanId && s.traceId === current.traceId);
      if (!parent) break;
      chain.push(parent);
      current = parent;
    }
    return chain;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
