import { isTransient } from './transient';
import { RpcUnavailable } from './rpc';

/** An error as the MongoDB driver builds it from a server's answer. */
function serverError(code: number, message: string): Error {
  return Object.assign(new Error(message), { name: 'MongoServerError', code });
}

describe('isTransient', () => {
  it('takes the database, NATS and the PSP away for a moment as temporary (a 503)', () => {
    for (const name of [
      'MongoNetworkError',
      'MongoServerSelectionError',
      'MongooseServerSelectionError',
      'TimeoutError',
      'NoResponders',
      'JetStreamNotEnabled',
      'ClosedConnectionError',
      // a replica stopping while a request of its own is in flight: the client retries on another
      'MongoClientClosedError',
      // more commands waiting for a connection than the pool serves in time: shed, retried later
      'MongoWaitQueueTimeoutError',
    ]) {
      expect({ name, transient: isTransient(Object.assign(new Error('x'), { name })) }).toEqual({
        name,
        transient: true,
      });
    }
    const cut = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
    expect(isTransient(cut)).toBe(true);
    expect(isTransient(new RpcUnavailable('payments.create', new Error('timeout')))).toBe(true);
    expect(isTransient(Object.assign(new Error('held'), { transient: true }))).toBe(true);
  });

  it('knows FerretDB losing PostgreSQL, and MongoDB shutting down or out of time, from the server answer', () => {
    const lost =
      '[msg_find.go:344 handler.handleMaxTimeMSError] [query_iterator.go:92 postgresql.(*queryIterator).Next] unexpected EOF';
    expect(isTransient(serverError(1, lost))).toBe(true);
    expect(isTransient(serverError(1, 'FATAL: the database system is starting up (SQLSTATE 57P03)'))).toBe(true);
    expect(isTransient(serverError(1, 'failed to connect to `host=127.0.0.1`: dial error (connection refused)'))).toBe(
      true,
    );
    expect(isTransient(serverError(50, 'operation exceeded time limit'))).toBe(true);
    expect(isTransient(serverError(91, 'The server is in quiesce mode and will shut down'))).toBe(true);
    const buffering = Object.assign(new Error('Operation `payments.findOne()` buffering timed out after 10000ms'), {
      name: 'MongooseError',
    });
    expect(isTransient(buffering)).toBe(true);
  });

  it('leaves bugs and refusals to be bugs and refusals (a 500, or their own status)', () => {
    expect(isTransient(new TypeError('x is undefined'))).toBe(false);
    expect(isTransient(serverError(1, 'invalid document'))).toBe(false);
    expect(isTransient(serverError(11000, 'E11000 duplicate key'))).toBe(false);
    expect(isTransient(Object.assign(new Error('Cast to ObjectId failed'), { name: 'MongooseError' }))).toBe(false);
    expect(isTransient(undefined)).toBe(false);
    expect(isTransient('a string')).toBe(false);
  });
});
