import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import express from 'express';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@pix/observability';
import { errorHandler, notFoundHandler } from './http-errors';
import { openApiDocument } from './openapi';
import { COMMON_ERRORS, mountPublicApi, PATH_FORMS, PUBLIC_API } from './public-api';

interface DocumentOperation {
  operationId: string;
  parameters?: { name: string; in: string }[];
  responses: Record<string, unknown>;
}

/** Every operation of the table under every path form, with its path as express and OpenAPI write it. */
const declared = PUBLIC_API.flatMap((group) =>
  PATH_FORMS.flatMap((form) =>
    group.operations.map((operation) => {
      const route = `${form.prefix}/${group.path}${operation.path}`;
      return { group, form, operation, route, template: route.replace(/:(\w+)/g, '{$1}') };
    }),
  ),
);

describe('the OpenAPI document', () => {
  const document = openApiDocument() as { paths: Record<string, Record<string, DocumentOperation>> };

  it('has exactly the operations of the table, under both path forms', () => {
    const documented = Object.entries(document.paths)
      .filter(([path]) => path !== '/pay/{id}')
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    const tabled = declared.map(({ operation, template }) => `${operation.method} ${template}`);
    expect(documented.sort()).toEqual(tabled.sort());
  });

  it.each(declared.map((d) => [`${d.operation.method} ${d.template}`, d] as const))(
    '%s: its operationId, path parameters and every status it answers',
    (_name, { form, operation, template }) => {
      const documented = document.paths[template]![operation.method]!;
      expect(documented.operationId).toBe(`${operation.operationId}${form.operationSuffix}`);
      const inPath = documented.parameters?.filter((p) => p.in === 'path').map((p) => p.name) ?? [];
      expect(inPath).toEqual([...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      const statuses = ['200', ...Object.keys(operation.errors), ...Object.keys(COMMON_ERRORS)];
      expect(Object.keys(documented.responses).sort()).toEqual([...new Set(statuses)].sort());
    },
  );
});

describe('the routers built from the table', () => {
  /** A sample of what each path parameter takes, so that a request reaches its RPC. */
  const SAMPLES: Record<string, string> = {
    id: '00000000-0000-4000-8000-000000000000',
    eventId: `evt_${'0'.repeat(32)}`,
    refundId: '00000000-0000-4000-8000-000000000001',
    date: '2026-11-28',
  };
  const concrete = (route: string) => route.replace(/:(\w+)/g, (_, name: string) => SAMPLES[name]!);
  /** Bodies the operations take (a create's or refund's amount, a dispute's defence), each sent where its schema takes it. */
  const BODIES: unknown[] = [{ amount: 10 }, { text: 'O cliente reconheceu a compra.' }];

  // No NATS: every RPC fails as one that is not answered, so a request that reaches its handler is 503.
  const subjects: string[] = [];
  const nc = {
    request: (subject: string) => {
      subjects.push(subject);
      return Promise.reject(new Error('no NATS in a unit test'));
    },
  } as unknown as NatsConnection;

  let server: http.Server;
  let base: string;
  async function start(): Promise<void> {
    const app = express();
    mountPublicApi(app, {
      nc,
      rpcTimeoutMs: 100,
      idempotencyKeys: { claim: () => Promise.reject(new Error('no database in a unit test')) },
      // No read model either: a get asks payments, as it does when its payment has no view.
      views: { read: () => Promise.resolve(undefined) },
      auth: (_req, res, next) => {
        res.locals.storeId = 'store';
        next();
      },
    });
    app.use(notFoundHandler);
    app.use(errorHandler(createLogger('test', 'silent')));
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serve every operation of the table under both path forms, each asking its backend', async () => {
    await start();
    for (const { operation, route } of declared) {
      const res = await fetch(base + concrete(route), {
        method: operation.method.toUpperCase(),
        ...(operation.body?.required
          ? {
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(BODIES.find((body) => operation.body!.schema.safeParse(body).success)),
            }
          : {}),
      });
      expect([route, res.status]).toEqual([route, 503]);
    }
    expect(subjects.length).toBe(declared.length);
  });

  it('answer the methods a path of the table does not take with 405 and what it does take', async () => {
    await start();
    const allowed = new Map<string, string[]>();
    for (const { operation, route } of declared) {
      allowed.set(route, [...(allowed.get(route) ?? []), operation.method.toUpperCase()]);
    }
    for (const [route, methods] of allowed) {
      const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
      const options = await fetch(base + concrete(route), { method: 'OPTIONS' });
      expect([route, options.status, options.headers.get('allow')]).toEqual([route, 204, allow]);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m))) {
        const res = await fetch(base + concrete(route), { method });
        expect([method, route, res.status]).toEqual([method, route, 405]);
      }
    }
  });
});
