/** NATS for the services: connection, typed request/reply, JetStream streams and consumers. */
export { connectNats, natsAccess, isNatsConnected, type NatsConnection, type NatsCredentials } from './connection';
export { traceCarrier, withTraceCarrier } from './headers';
export { serveRpc, callRpc, callerGone, RpcFailure, RpcUnavailable, type RpcServer } from './rpc';
export { isTransient } from './transient';
export { retrySetup } from './setup-retry';
export { provisionJetStream } from './provision';
export {
  bodyField,
  publishEvent,
  retryDelay,
  startConsumer,
  jetstream,
  type HandlerOutcome,
  type JetStreamClient,
  type JsMsg,
} from './jetstream';
export { incrementCounter, CounterReader } from './counters';
export { SubjectCount } from './subject-count';
export {
  FactSigner,
  FactVerifier,
  factKeyId,
  signingJetStream,
  type FactCheck,
  type ReceivedFact,
} from './fact-signing';
