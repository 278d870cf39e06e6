import { Writable } from 'node:stream';
import pino from 'pino';

/** A logger whose lines (JSON, one per entry) are kept in `lines`, for a test to read what was said. */
export function capturedLog(level: pino.Level): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { level },
    new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  return { logger, lines };
}
