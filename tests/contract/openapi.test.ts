import { api } from '../support/api';
import { PATH_FORMS } from '../support/contract';
import { sharedStack } from '../support/stack';

const stack = sharedStack();

interface Operation {
  tags?: string[];
  responses: Record<string, unknown>;
  parameters?: { name: string; schema?: Record<string, unknown> }[];
}
interface Document {
  openapi: string;
  info: { description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, { get: Operation; post: Operation }>;
  components: {
    securitySchemes: { bearer: { scheme?: string } };
    schemas: Record<string, { properties: Record<string, Record<string, unknown>> }>;
  };
}

describe('GET /public-api/v1/openapi.json', () => {
  let document: Document;
  beforeAll(async () => {
    const res = await api<Document>(stack.gatewayUrl, 'GET', '/public-api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    document = res.body;
  });

  it('is OpenAPI 3.1 with bearer auth', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.bearer.scheme).toBe('bearer');
  });

  it('documents both path forms with every status each operation answers', () => {
    for (const base of PATH_FORMS) {
      const collection = document.paths[base]!;
      const item = document.paths[`${base}/{id}`]!;
      const common = ['401', '403', '429', '500', '503'];
      expect(Object.keys(collection.post.responses)).toEqual(
        expect.arrayContaining(['200', '400', '409', '413', ...common]),
      );
      expect(collection.post.parameters?.map((p) => p.name)).toContain('Idempotency-Key');
      expect(Object.keys(collection.get.responses)).toEqual(expect.arrayContaining(['200', '400', ...common]));
      expect(Object.keys(item.get.responses)).toEqual(expect.arrayContaining(['200', '404', ...common]));
    }
  });

  it('declares what the service takes: amounts in centavos, and the bounds of page and limit', () => {
    expect(document.components.schemas.CreatePaymentBody?.properties.amount).toMatchObject({
      type: 'number',
      minimum: 5,
      maximum: 3000,
      multipleOf: 0.01,
    });
    for (const base of PATH_FORMS) {
      const schemaOf = (name: string) => document.paths[base]!.get.parameters?.find((p) => p.name === name)?.schema;
      expect(schemaOf('page')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1_000_000 });
      expect(schemaOf('limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    }
  });
});

describe('the sandbox routes and the payment page in the OpenAPI document', () => {
  let document: Document;
  beforeAll(async () => {
    document = (await api<Document>(stack.gatewayUrl, 'GET', '/public-api/v1/openapi.json')).body;
  });

  it('lists the sandbox actions of both path forms under a sandbox tag that says whom they answer', () => {
    const tag = document.tags.find((t) => t.name === 'sandbox');
    expect(tag?.description).toContain('answer test tokens only');
    for (const base of ['/api-public/sandbox/payments', '/public-api/v1/sandbox/payments']) {
      for (const action of ['pay', 'review', 'clear', 'reject']) {
        const operation = document.paths[`${base}/{id}/${action}`]?.post;
        expect(operation?.tags).toEqual(['sandbox']);
        expect(Object.keys(operation?.responses ?? {})).toEqual(
          expect.arrayContaining(['200', '401', '403', '404', '409', '429', '500', '503']),
        );
      }
    }
  });

  it('documents the address of the hosted payment page', () => {
    expect(document.info.description).toContain('`{PUBLIC_BASE_URL}/pay/{id}`');
    expect(Object.keys(document.paths['/pay/{id}']?.get.responses ?? {})).toEqual(['200', '404', '429']);
  });
});

describe('GET /public-api/v1/docs', () => {
  it('serves the interactive reference and its assets from the gateway itself', async () => {
    const page = await api<string>(stack.gatewayUrl, 'GET', '/public-api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets).toEqual(expect.arrayContaining(['docs/assets/swagger-ui-bundle.js', 'docs/init.js']));
    for (const asset of assets) {
      expect(asset).not.toMatch(/^https?:/);
      const res = await fetch(new URL(asset, `${stack.gatewayUrl}/public-api/v1/docs`));
      expect(res.status).toBe(200);
    }
    const init = await api<string>(stack.gatewayUrl, 'GET', '/public-api/v1/docs/init.js');
    expect(init.body).toContain("url: 'openapi.json'");
  });
});

describe('the Events API and the webhooks in the OpenAPI document', () => {
  let document: Document & { webhooks: Record<string, { post: { requestBody: unknown } }> };
  beforeAll(async () => {
    document = (await api<typeof document>(stack.gatewayUrl, 'GET', '/public-api/v1/openapi.json')).body;
  });

  it('documents list, read and redeliver on both path forms with every status each answers', () => {
    const common = ['401', '403', '429', '500', '503'];
    for (const base of ['/api-public/events', '/public-api/v1/events']) {
      const list = document.paths[base]?.get;
      expect(list?.tags).toEqual(['events']);
      expect(list?.parameters?.map((p) => p.name)).toEqual(['page', 'limit', 'type', 'paymentId']);
      expect(Object.keys(list?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', ...common]));
      const read = document.paths[`${base}/{eventId}`]?.get;
      expect(Object.keys(read?.responses ?? {})).toEqual(expect.arrayContaining(['200', '404', ...common]));
      const redeliver = document.paths[`${base}/{eventId}/redeliver`]?.post;
      expect(Object.keys(redeliver?.responses ?? {})).toEqual(expect.arrayContaining(['200', '404', '409', ...common]));
    }
  });

  it("documents a dispute's defence on both path forms, and the payment's optional dispute", () => {
    for (const base of ['/api-public/payments', '/public-api/v1/payments']) {
      const defense = document.paths[`${base}/{id}/dispute/defense`]?.post;
      expect(defense?.tags).toEqual(['disputes']);
      expect(Object.keys(defense?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '400', '404', '409', '413', '401', '403', '429', '500', '503']),
      );
    }
    expect(document.components.schemas.DisputeDefenseBody?.properties.text).toMatchObject({
      type: 'string',
      maxLength: 1000,
    });
    expect(document.components.schemas.Payment?.properties.dispute).toBeDefined();
    expect((document.components.schemas.Payment as unknown as { required: string[] }).required).not.toContain(
      'dispute',
    );
  });

  it("describes the webhooks a payment sends, its refunds' and disputes' included", () => {
    expect(Object.keys(document.webhooks)).toEqual([
      'payment.created',
      'payment.status_changed',
      'refund.created',
      'refund.succeeded',
      'refund.failed',
      'payment.dispute_opened',
      'payment.dispute_reminder',
      'payment.dispute_closed',
    ]);
    for (const [event, schema] of [
      ['payment.created', 'PaymentCreatedWebhook'],
      ['refund.succeeded', 'RefundSucceededWebhook'],
    ]) {
      expect(document.webhooks[event!]?.post.requestBody).toMatchObject({
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
      });
    }
  });
});
