import path from 'node:path';
import express, { type Router } from 'express';
import { z } from 'zod';
import {
  CreatePaymentBodySchema,
  ErrorBodySchema,
  ErrorMessages,
  PaymentListSchema,
  PaymentSchema,
  PUBLIC_STATUSES,
} from '@pix/contracts';

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 of the contract's zod schemas, as OpenAPI 3.1 components. */
function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  registry.add(PaymentSchema, { id: 'Payment' });
  registry.add(PaymentListSchema, { id: 'PaymentList' });
  registry.add(ErrorBodySchema, { id: 'Error' });
  registry.add(CreatePaymentBodySchema, { id: 'CreatePaymentBody' });
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
      { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
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
        `\`${ErrorMessages.routeNotFound}\`.`,
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearer: [] }],
    paths: {
      '/api-public/payments': reference.collection,
      '/api-public/payments/{id}': reference.item,
      '/public-api/v1/payments': guide.collection,
      '/public-api/v1/payments/{id}': guide.item,
    },
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
  return router;
}
