import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ParserErrorMessages, type ErrorBody } from '@pix/contracts';

/** The status and message for what Node's HTTP parser refused (llhttp's and Node's error codes). */
function answerFor(code: string | undefined): ErrorBody {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { statusCode: 431, message: ParserErrorMessages.headersTooLarge };
    case 'HPE_INVALID_METHOD':
      // RFC 9110 9.1: a method the server does not recognise is 501.
      return { statusCode: 501, message: ParserErrorMessages.methodUnknown };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { statusCode: 408, message: ParserErrorMessages.timeout };
    default:
      return { statusCode: 400, message: ParserErrorMessages.malformed };
  }
}

/**
 * Requests Node's HTTP parser refuses (an unknown method, bytes a URL cannot hold, oversized
 * headers, both Transfer-Encoding and Content-Length) never reach express; Node's own answer has no
 * body. This answers them with the API's error body instead, then closes the connection, as Node
 * does: after a parse error the rest of the stream cannot be trusted.
 */
export function answerParserErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Like Node's default: write only where no response of this connection has begun.
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = answerFor(err.code);
    const body = JSON.stringify(answer);
    socket.end(
      [
        `HTTP/1.1 ${answer.statusCode} ${http.STATUS_CODES[answer.statusCode] ?? ''}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
      () => socket.destroy(),
    );
  });
}
