import path from 'node:path';
import express, { type Router } from 'express';
import { z } from 'zod';
import {
  BalanceTransactionListSchema,
  BalanceTransactionSchema,
  CreatePaymentBodySchema,
  ErrorBodySchema,
  ErrorMessages,
  EventDetailSchema,
  EventListSchema,
  EventRedeliverySchema,
  EventSchema,
  PaymentCreatedWebhookSchema,
  PaymentListSchema,
  PaymentSchema,
  PaymentStatusChangedWebhookSchema,
  PaymentWebhookSchema,
  RefundCreatedWebhookSchema,
  RefundFailedWebhookSchema,
  RefundListSchema,
  RefundSchema,
  RefundSucceededWebhookSchema,
  RefundWebhookSchema,
  SandboxAnalysisReplySchema,
  SandboxFailNextRefundReplySchema,
  SandboxMedBodySchema,
  SandboxMedReplySchema,
  SandboxPayBodySchema,
  SandboxPayReplySchema,
  StatementSchema,
  WebhookBodySchema,
  CreateRefundBodySchema,
  DisputeClosedWebhookSchema,
  DisputeDefenseBodySchema,
  DisputeOpenedWebhookSchema,
  DisputeReminderWebhookSchema,
  DisputeSchema,
  DisputeWebhookSchema,
} from '@pix/contracts';
import { methodNotAllowed } from './http-errors';
import {
  COMMON_ERRORS,
  EVENTS_TAG,
  PATH_FORMS,
  PUBLIC_API,
  REFUNDS_TAG,
  DISPUTES_TAG,
  type Operation,
  type OperationGroup,
} from './public-api';

type Json = Record<string, unknown>;

/**
 * JSON Schema 2020-12 of the contract's zod schemas, as OpenAPI 3.1 components. A request body is
 * documented as a merchant writes it, its schema's input (what its transform makes of it is the
 * RPC's input, the gateway's own); everything else as the API answers or sends it, the output.
 */
const COMPONENTS: [z.ZodType, { id: string; description?: string; request?: true }][] = [
  [PaymentSchema, { id: 'Payment' }],
  [PaymentListSchema, { id: 'PaymentList' }],
  [ErrorBodySchema, { id: 'Error' }],
  [CreatePaymentBodySchema, { id: 'CreatePaymentBody', request: true }],
  [RefundSchema, { id: 'Refund' }],
  [RefundListSchema, { id: 'RefundList' }],
  [CreateRefundBodySchema, { id: 'CreateRefundBody', request: true }],
  [SandboxPayBodySchema, { id: 'SandboxPayBody', request: true }],
  [SandboxPayReplySchema, { id: 'SandboxPayment' }],
  [SandboxAnalysisReplySchema, { id: 'SandboxAnalysis' }],
  [SandboxFailNextRefundReplySchema, { id: 'SandboxRefundFailure' }],
  [SandboxMedBodySchema, { id: 'SandboxMedBody', request: true }],
  [SandboxMedReplySchema, { id: 'SandboxMedReturn' }],
  [
    WebhookBodySchema,
    { id: 'Webhook', description: 'A webhook body, as delivered: a payment, a refund or a dispute event' },
  ],
  [PaymentWebhookSchema, { id: 'PaymentWebhook', description: 'A payment webhook body, as delivered' }],
  [PaymentCreatedWebhookSchema, { id: 'PaymentCreatedWebhook' }],
  [PaymentStatusChangedWebhookSchema, { id: 'PaymentStatusChangedWebhook' }],
  [RefundWebhookSchema, { id: 'RefundWebhook', description: 'A refund webhook body, as delivered' }],
  [RefundCreatedWebhookSchema, { id: 'RefundCreatedWebhook' }],
  [RefundSucceededWebhookSchema, { id: 'RefundSucceededWebhook' }],
  [RefundFailedWebhookSchema, { id: 'RefundFailedWebhook' }],
  [DisputeSchema, { id: 'Dispute' }],
  [DisputeDefenseBodySchema, { id: 'DisputeDefenseBody', request: true }],
  [DisputeWebhookSchema, { id: 'DisputeWebhook', description: 'A dispute webhook body, as delivered' }],
  [DisputeOpenedWebhookSchema, { id: 'DisputeOpenedWebhook' }],
  [DisputeClosedWebhookSchema, { id: 'DisputeClosedWebhook' }],
  [DisputeReminderWebhookSchema, { id: 'DisputeReminderWebhook' }],
  [EventSchema, { id: 'Event' }],
  [EventDetailSchema, { id: 'EventDetail' }],
  [EventListSchema, { id: 'EventList' }],
  [EventRedeliverySchema, { id: 'EventRedelivery' }],
  [BalanceTransactionSchema, { id: 'BalanceTransaction' }],
  [BalanceTransactionListSchema, { id: 'BalanceTransactionList' }],
  [StatementSchema, { id: 'Statement' }],
];

/** Every component, each in its direction, in COMPONENTS' order. */
function componentSchemas(): Record<string, Json> {
  const schemas: Record<string, Json> = {};
  for (const io of ['input', 'output'] as const) {
    const registry = z.registry<{ id: string; description?: string }>();
    for (const [schema, { request, ...meta }] of COMPONENTS) {
      if ((io === 'input') === (request === true)) registry.add(schema, meta);
    }
    const generated = z.toJSONSchema(registry, { io, uri: (id) => `#/components/schemas/${id}` }).schemas;
    // Components live inside the document: their own $schema/$id would make them separate resources.
    for (const [id, { $schema: _schema, $id: _id, ...schema }] of Object.entries(generated)) schemas[id] = schema;
  }
  return Object.fromEntries(COMPONENTS.map(([, { id }]) => [id, schemas[id]!]));
}

/**
 * A query schema's fields as OpenAPI query parameters: each field's output (the number a `page`
 * becomes, its bounds and default), its description the parameter's.
 */
function queryParameters(query: z.ZodObject): Json[] {
  return Object.entries(query.shape).map(([name, field]) => {
    const { $schema: _schema, description, ...schema } = z.toJSONSchema(field as z.ZodType, { io: 'output' }) as Json;
    return { name, in: 'query', ...(description ? { description } : {}), schema };
  });
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** A table's reply or body schema by its component id: one that is no component fails the build. */
function componentId(schema: z.ZodType): string {
  const component = COMPONENTS.find(([registered]) => registered === schema);
  if (!component) throw new Error('a schema of the public API is not among the OpenAPI components');
  return component[1].id;
}

function jsonResponse(description: string, schemaId: string, headers?: Json): Json {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: ref(schemaId) } } };
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
};

/** One table operation under one path form, with every answer it gives. */
function operationDoc(group: OperationGroup, operation: Operation, form: (typeof PATH_FORMS)[number]): Json {
  const { operationId, summary, description, body, query, rpc, ok, errors } = operation;
  const parameters = [...(operation.parameters ?? []), ...(query ? queryParameters(query) : [])];
  const answers = Object.entries({ ...errors, ...COMMON_ERRORS }).map(([status, answer]) => [
    status,
    jsonResponse(answer, 'Error', status === '429' ? RETRY_AFTER : undefined),
  ]);
  return {
    tags: [(operation.tag ?? group.tag ?? form.tag).name],
    operationId: `${operationId}${form.operationSuffix}`,
    summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(description ? { description } : {}),
    ...(body
      ? {
          requestBody: {
            required: body.required,
            content: {
              'application/json': { schema: ref(componentId(body.schema)) },
            },
          },
        }
      : {}),
    // Statuses are integer keys: JSON.stringify writes them in ascending order whatever the order here.
    responses: { '200': jsonResponse(ok, componentId(rpc.reply)), ...Object.fromEntries(answers) },
  };
}

/** Every table operation under both path forms, a path's methods together. */
function apiPaths(): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const group of PUBLIC_API) {
    for (const form of PATH_FORMS) {
      for (const operation of group.operations) {
        const path = `${form.prefix}/${group.path}${operation.path.replace(/:(\w+)/g, '{$1}')}`;
        paths[path] = { ...paths[path], [operation.method]: operationDoc(group, operation, form) };
      }
    }
  }
  return paths;
}

/**
 * The webhooks a payment with a webhookUrl sends (OpenAPI 3.1 `webhooks`), signed as Standard
 * Webhooks; a 2xx acknowledges one.
 */
function webhookOperations(): Record<string, Json> {
  const hook = (type: string, schemaId: string, summary: string): Json => ({
    post: {
      tags: [EVENTS_TAG.name],
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
    'refund.created': hook('refund.created', 'RefundCreatedWebhook', 'A refund of the payment was asked of the PSP'),
    'refund.succeeded': hook('refund.succeeded', 'RefundSucceededWebhook', 'A refund is back with the payer'),
    'refund.failed': hook('refund.failed', 'RefundFailedWebhook', 'The PSP did not do a refund'),
    'payment.dispute_opened': hook(
      'payment.dispute_opened',
      'DisputeOpenedWebhook',
      "A payer's fraud claim (MED) against the payment's Pix: the PSP blocked the amount at risk",
    ),
    'payment.dispute_reminder': hook(
      'payment.dispute_reminder',
      'DisputeReminderWebhook',
      'The deadline to answer an open dispute is 48, 24 or 6 hours away (no defence sent yet)',
    ),
    'payment.dispute_closed': hook('payment.dispute_closed', 'DisputeClosedWebhook', 'The PSP decided a dispute'),
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
      '429': jsonResponse(
        `Too many requests from this client address to the public routes: ${ErrorMessages.rateLimited}`,
        'Error',
        RETRY_AFTER,
      ),
    },
  },
};

/** The OpenAPI 3.1 document of the public API: both path forms, each with every answer it gives. */
export function openApiDocument(): Json {
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
      ...PATH_FORMS.map((form) => form.tag),
      REFUNDS_TAG,
      DISPUTES_TAG,
      ...PUBLIC_API.flatMap((group) => (group.tag ? [group.tag] : [])),
      { name: 'payment page', description: 'The page a customer pays on' },
    ],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }],
    paths: { ...apiPaths(), '/pay/{id}': paymentPage },
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
