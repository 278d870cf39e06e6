import path from 'node:path';
import express, { type Router } from 'express';
import { z } from 'zod';
import {
  AMOUNT_STEP_BRL,
  PIX_MAX_AMOUNT_CENTS,
  CreatePaymentBodySchema,
  ErrorBodySchema,
  ErrorMessages,
  LIST_BOUNDS,
  EVENT_TYPES,
  EventDetailSchema,
  EventListSchema,
  EventRedeliverySchema,
  EventSchema,
  PaymentCreatedWebhookSchema,
  PaymentListSchema,
  PaymentSchema,
  PaymentStatusChangedWebhookSchema,
  PaymentWebhookSchema,
  PUBLIC_STATUSES,
  SandboxAnalysisReplySchema,
  SandboxMessages,
  SandboxPayReplySchema,
} from '@pix/contracts';
import { methodNotAllowed } from './http-errors';

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 of the contract's zod schemas, as OpenAPI 3.1 components. */

/** `page` and `limit` of every paged list, with the bounds the service enforces. */
const PAGING_PARAMETERS = [
  { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: LIST_BOUNDS.maxPage, default: 1 } },
  {
    name: 'limit',
    in: 'query',
    schema: { type: 'integer', minimum: 1, maximum: LIST_BOUNDS.maxLimit, default: LIST_BOUNDS.defaultLimit },
  },
];

function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string; description?: string }>();
  registry.add(PaymentSchema, { id: 'Payment' });
  registry.add(PaymentListSchema, { id: 'PaymentList' });
  registry.add(ErrorBodySchema, { id: 'Error' });
  registry.add(CreatePaymentBodySchema, { id: 'CreatePaymentBody' });
  registry.add(SandboxPayReplySchema, { id: 'SandboxPayment' });
  registry.add(SandboxAnalysisReplySchema, { id: 'SandboxAnalysis' });
  registry.add(PaymentWebhookSchema, { id: 'PaymentWebhook', description: 'A webhook body, as delivered' });
  registry.add(PaymentCreatedWebhookSchema, { id: 'PaymentCreatedWebhook' });
  registry.add(PaymentStatusChangedWebhookSchema, { id: 'PaymentStatusChangedWebhook' });
  registry.add(EventSchema, { id: 'Event' });
  registry.add(EventDetailSchema, { id: 'EventDetail' });
  registry.add(EventListSchema, { id: 'EventList' });
  registry.add(EventRedeliverySchema, { id: 'EventRedelivery' });
  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` });
  // Components live inside the document: their own $schema/$id would make them separate resources.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema as Json]),
  );
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

function jsonResponse(description: string, schemaId: string, headers?: Json): Json {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: ref(schemaId) } } };
}

const errorResponses = {
  '401': jsonResponse(`\`${ErrorMessages.bearerMissing}\` or \`${ErrorMessages.tokenInvalid}\``, 'Error'),
  '403': jsonResponse(`\`${ErrorMessages.storeInactive}\``, 'Error'),
  '429': jsonResponse('Too many requests for this token', 'Error', {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
  }),
  '503': jsonResponse('A backend did not answer in time; retry later', 'Error'),
  '500': jsonResponse('Unexpected error; retry later', 'Error'),
};

function operations(tag: string, suffix: string): Record<string, Json> {
  const list = {
    tags: [tag],
    operationId: `listPayments${suffix}`,
    summary: 'List the payments of the store, newest first',
    parameters: [
      ...PAGING_PARAMETERS,
      { name: 'status', in: 'query', schema: { type: 'string', enum: [...PUBLIC_STATUSES] } },
    ],
    responses: {
      '200': jsonResponse('A page of payments (createdAt descending, then id descending)', 'PaymentList'),
      '400': jsonResponse('A query parameter out of range or malformed (class-validator style message)', 'Error'),
      ...errorResponses,
    },
  };
  const create = {
    tags: [tag],
    operationId: `createPayment${suffix}`,
    summary: 'Create a dynamic Pix payment',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        description:
          'Optional, 1 to 255 characters. Within 24 hours the same key with the same body returns the same ' +
          'payment (no second payment, no second webhook); the same key with another body is 409.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: ref('CreatePaymentBody') } } },
    responses: {
      '200': jsonResponse('The payment (status pending, isPublic true)', 'Payment'),
      '400': jsonResponse(
        'An invalid field (the first of amount, email, observation, webhookUrl), malformed JSON, a content ' +
          'type other than application/json, or an invalid Idempotency-Key',
        'Error',
      ),
      '409': jsonResponse(`\`${ErrorMessages.idempotencyKeyReused}\``, 'Error'),
      '413': jsonResponse('Body over 64 KB', 'Error'),
      ...errorResponses,
    },
  };
  const get = {
    tags: [tag],
    operationId: `getPayment${suffix}`,
    summary: 'Read one payment of the store',
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      '200': jsonResponse('The payment', 'Payment'),
      '404': jsonResponse(`\`${ErrorMessages.paymentNotFound}\` (unknown id, or another store's payment)`, 'Error'),
      ...errorResponses,
    },
  };
  return { collection: { get: list, post: create }, item: { get } };
}

const SANDBOX_TAG = 'sandbox';

/** The sandbox actions on one path form (they exist only where the adapter runs the sandbox PSP). */
function sandboxOperations(suffix: string): Record<string, Json> {
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const common = {
    '404': jsonResponse(`\`${ErrorMessages.paymentNotFound}\` (unknown id, or another store's payment)`, 'Error'),
    ...errorResponses,
  };
  const refused = (what: string) => jsonResponse(what, 'Error');
  const action = (
    name: string,
    summary: string,
    conflict: string,
    reply: string,
    { responses = {}, ...extra }: Json & { responses?: Json } = {},
  ): Json => ({
    post: {
      tags: [SANDBOX_TAG],
      operationId: `sandbox${name}${suffix}`,
      summary,
      parameters: [id],
      ...extra,
      responses: {
        '200': jsonResponse('What the sandbox PSP did', reply),
        ...responses,
        '409': refused(conflict),
        ...common,
      },
    },
  });
  return {
    pay: action(
      'Pay',
      'The customer pays the payment (sandbox only)',
      `The charge cannot be paid so: \`${SandboxMessages.chargeExpired}\`, \`${SandboxMessages.chargePaidOtherwise}\` ` +
        `or \`${SandboxMessages.chargeMissing}\``,
      'SandboxPayment',
      {
        description:
          'Pays the charge as a customer would; the PSP then calls the platform back and the payment becomes ' +
          '`approved` (or `review` when `amount` differs). Idempotent: a retry with the same body answers the same ' +
          'Pix (same endToEndId).',
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  amount: {
                    type: ['number', 'null'],
                    exclusiveMinimum: 0,
                    // What API Pix can carry (its valor: ten digits, a point and two).
                    maximum: PIX_MAX_AMOUNT_CENTS / 100,
                    multipleOf: AMOUNT_STEP_BRL,
                    description: 'BRL paid, at most two decimal places; absent or null: the amount due',
                  },
                },
              },
            },
          },
        },
        responses: {
          '400': jsonResponse(
            `\`${SandboxMessages.amountInvalid}\`, a body that is not a JSON object, or a content type other than ` +
              'application/json',
            'Error',
          ),
        },
      },
    ),
    review: action(
      'Review',
      'The customer pays and the PSP holds the Pix for analysis (sandbox only)',
      `\`${SandboxMessages.chargeExpired}\` or \`${SandboxMessages.chargePaidOtherwise}\``,
      'SandboxAnalysis',
    ),
    clear: action(
      'Clear',
      'The analysis of the held Pix clears it: the payment is approved (sandbox only)',
      `\`${SandboxMessages.nothingHeld}\` or \`${SandboxMessages.analysisDecided}\``,
      'SandboxAnalysis',
    ),
    reject: action(
      'Reject',
      'The analysis of the held Pix rejects it: the payment is refunded, not approved (sandbox only)',
      `\`${SandboxMessages.nothingHeld}\` or \`${SandboxMessages.analysisDecided}\``,
      'SandboxAnalysis',
    ),
  };
}

function sandboxPaths(base: string, suffix: string): Record<string, Json> {
  const ops = sandboxOperations(suffix);
  return Object.fromEntries(Object.entries(ops).map(([action, op]) => [`${base}/{id}/${action}`, op]));
}

const EVENTS_TAG = 'events';

/** The Events API on one path form: the store's webhook events, one with its attempts, a redelivery. */
function eventPaths(base: string, suffix: string): Record<string, Json> {
  const eventId = {
    name: 'eventId',
    in: 'path',
    required: true,
    description: 'The event id (evt_…), the webhook-id of its deliveries',
    schema: { type: 'string' },
  };
  const notFound = jsonResponse(`\`${ErrorMessages.eventNotFound}\` (unknown id, or another store's event)`, 'Error');
  const list = {
    tags: [EVENTS_TAG],
    operationId: `listEvents${suffix}`,
    summary: "The store's webhook events, newest first, with their delivery state",
    parameters: [
      ...PAGING_PARAMETERS,
      { name: 'type', in: 'query', schema: { type: 'string', enum: [...EVENT_TYPES] } },
      {
        name: 'paymentId',
        in: 'query',
        description: 'Only the events of this payment',
        schema: { type: 'string', format: 'uuid' },
      },
    ],
    responses: {
      '200': jsonResponse('A page of events (recorded descending, then id descending)', 'EventList'),
      '400': jsonResponse('A query parameter out of range or malformed (class-validator style message)', 'Error'),
      ...errorResponses,
    },
  };
  const get = {
    tags: [EVENTS_TAG],
    operationId: `getEvent${suffix}`,
    summary: 'One event of the store with every delivery attempt',
    parameters: [eventId],
    responses: { '200': jsonResponse('The event and its attempts', 'EventDetail'), '404': notFound, ...errorResponses },
  };
  const redeliver = {
    tags: [EVENTS_TAG],
    operationId: `redeliverEvent${suffix}`,
    summary: 'Deliver a delivered or dead event again, as a new run with the same webhook-id',
    parameters: [eventId],
    responses: {
      '200': jsonResponse('The new run, pending', 'EventRedelivery'),
      '404': notFound,
      '409': jsonResponse(`\`${ErrorMessages.eventStillPending}\``, 'Error'),
      ...errorResponses,
    },
  };
  return {
    [base]: { get: list },
    [`${base}/{eventId}`]: { get },
    [`${base}/{eventId}/redeliver`]: { post: redeliver },
  };
}

/**
 * The webhooks a payment with a webhookUrl sends (OpenAPI 3.1 `webhooks`), signed as Standard
 * Webhooks; a 2xx acknowledges one.
 */
function webhookOperations(): Record<string, Json> {
  const hook = (type: string, schemaId: string, summary: string): Json => ({
    post: {
      tags: [EVENTS_TAG],
      operationId: `${schemaId[0]!.toLowerCase()}${schemaId.slice(1)}`,
      summary,
      security: [],
      parameters: [
        { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' } },
        { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' } },
        { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string' } },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref(schemaId) } } },
      responses: { '200': { description: `Any 2xx acknowledges the ${type} event` } },
    },
  });
  return {
    'payment.created': hook('payment.created', 'PaymentCreatedWebhook', 'A payment was created'),
    'payment.status_changed': hook('payment.status_changed', 'PaymentStatusChangedWebhook', 'A payment changed status'),
  };
}

/** The hosted payment page: public HTML, not JSON, documented for the address merchants hand out. */
const paymentPage: Json = {
  get: {
    tags: ['payment page'],
    operationId: 'paymentPage',
    summary: 'The hosted payment page of a payment, for the customer',
    security: [],
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
    responses: {
      '200': {
        description: 'The page (pt-BR), live while open',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      '404': { description: 'No such payment', content: { 'text/html': { schema: { type: 'string' } } } },
    },
  },
};

/** The OpenAPI 3.1 document of the public API: both path forms, each with every answer it gives. */
export function openApiDocument(): Json {
  const reference = operations('reference form', '');
  const guide = operations('guide form (v1)', 'V1');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pix Public Payments API',
      version: '1.0.0',
      description:
        'Dynamic Pix payments in BRL. Every error answers `{statusCode, message}`. Unknown routes are 404 ' +
        `\`${ErrorMessages.routeNotFound}\`.\n\n` +
        'Each payment has a hosted payment page for the customer at `{PUBLIC_BASE_URL}/pay/{id}` (public, ' +
        'like `qrCodeUrl`): the store, the amount, the QR code, the copy-and-paste code and the time left, with ' +
        'the status updated live. Hand that address to the customer; it is not a field of the payment.',
    },
    tags: [
      { name: 'reference form', description: 'The payments API under /api-public' },
      { name: 'guide form (v1)', description: 'The same operations under /public-api/v1' },
      {
        name: SANDBOX_TAG,
        description:
          'Drive a payment as its customer and the PSP would, to test an integration end to end. These routes ' +
          'exist only in sandbox deployments (PIX_PROVIDER=sandbox); elsewhere they are unknown routes (404).',
      },
      {
        name: EVENTS_TAG,
        description:
          'The webhook events of the store (payments created with a webhookUrl), as delivered, with their ' +
          'delivery state; both path forms (/api-public/events and /public-api/v1/events).',
      },
      { name: 'payment page', description: 'The page a customer pays on' },
    ],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }],
    paths: {
      '/api-public/payments': reference.collection,
      '/api-public/payments/{id}': reference.item,
      '/public-api/v1/payments': guide.collection,
      '/public-api/v1/payments/{id}': guide.item,
      ...sandboxPaths('/api-public/sandbox/payments', ''),
      ...sandboxPaths('/public-api/v1/sandbox/payments', 'V1'),
      ...eventPaths('/api-public/events', ''),
      ...eventPaths('/public-api/v1/events', 'V1'),
      '/pay/{id}': paymentPage,
    },
    webhooks: webhookOperations(),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'The store token' } },
      schemas: componentSchemas(),
    },
  };
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Pix Public Payments API</title>
  <link rel="stylesheet" href="docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui' });\n`;

/**
 * /public-api/v1/openapi.json and the interactive reference at /public-api/v1/docs, served from the
 * swagger-ui-dist package (no CDN). Both are public: they describe the API, they reveal no data.
 */
export function docsRouter(): Router {
  const document = openApiDocument();
  const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    // No inline script: the page runs only the package's own files (Swagger UI styles inline).
    res
      .set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
      .type('html')
      .send(DOCS_PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(DOCS_INIT);
  });
  router.use('/docs/assets', express.static(assets, { index: false }));
  for (const served of ['/openapi.json', '/docs', '/docs/init.js']) router.all(served, methodNotAllowed('GET'));
  return router;
}
