import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { api, type ApiResponse } from './api';

/** The two path forms of the spec, for tests that run every case on both. */
export const PATH_FORMS = ['/api-public/payments', '/public-api/v1/payments'] as const;

type ApiOptions = Parameters<typeof api>[3];

/** JSON pointer escaping (RFC 6901). */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The documented path a concrete request path falls under; null for routes the API does not have. */
function templateOf(templates: string[], path: string): string | null {
  const pathname = new URL(path, 'http://x').pathname;
  for (const template of templates) {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    if (new RegExp(`^${pattern}$`).test(pathname)) return template;
  }
  return null;
}

/**
 * A client for the contract tests: every response it receives is checked against the OpenAPI
 * document the gateway serves (its status must be documented for the operation, its body must match
 * that response's schema); a route the API does not have must still answer the error body.
 */
export async function contractClient(baseUrl: string) {
  const document = (await (await fetch(new URL('/public-api/v1/openapi.json', baseUrl))).json()) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  const validators = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let fn = validators.get(ref);
    if (!fn) {
      fn = ajv.getSchema(ref);
      if (!fn) throw new Error(`no schema at ${ref}`);
      validators.set(ref, fn);
    }
    return fn;
  };

  function check(method: string, path: string, res: ApiResponse): void {
    const template = templateOf(Object.keys(document.paths), path);
    const operation = template ? document.paths[template]?.[method.toLowerCase()] : undefined;
    let ref = 'openapi.json#/components/schemas/Error';
    if (operation) {
      const status = String(res.status);
      if (!operation.responses[status]) {
        throw new Error(`${method} ${path} answered ${status}, which the OpenAPI document does not list`);
      }
      ref = `openapi.json#/paths/${pointer(template!)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
    }
    const validate = validator(ref);
    if (!validate(res.body)) {
      throw new Error(
        `${method} ${path} ${res.status}: body does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n` +
          JSON.stringify(res.body),
      );
    }
    if (res.status === 429 && !res.headers.get('retry-after')) throw new Error('429 without Retry-After');
  }

  return async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: ApiOptions = {},
  ): Promise<ApiResponse<T>> {
    const res = await api<T>(baseUrl, method, path, options);
    check(method, path, res as ApiResponse);
    return res;
  };
}

export type ContractClient = Awaited<ReturnType<typeof contractClient>>;
