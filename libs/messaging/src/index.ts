/** NATS for the services: connection, typed request/reply, JetStream streams and consumers. */
export { connectNats, isNatsConnected, type NatsConnection } from './connection';
export { traceCarrier, withTraceCarrier } from './headers';
export { serveRpc, callRpc, isTransient, RpcFailure, RpcUnavailable, type RpcServer } from './rpc';
export {
  ensureStreams,
  ensureConsumer,
  publishEvent,
  startConsumer,
  jetstream,
  type HandlerOutcome,
  type JetStreamClient,
  type JsMsg,
} from './jetstream';
export { followStream } from './stream-follower';
