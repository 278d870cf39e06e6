/**
 * got, the platform's HTTP client. got ships only as an ES module; Node 20.19+ loads it through
 * require(), but TypeScript refuses to compile a CommonJS import of it, so it is required here,
 * once, with its real types.
 */
type Got = typeof import('got', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loaded = require('got') as Got;

export const { default: got, HTTPError, RequestError, TimeoutError } = loaded;
/** An HTTP method as got takes it. */
export type Method = import('got', { with: { 'resolution-mode': 'import' } }).Method;
