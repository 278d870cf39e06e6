import type http from 'node:http';

/**
 * Stops an HTTP server gracefully: no new connections, requests under way are answered, and keep-
 * alive connections are closed as soon as they are idle, their next answers carrying
 * `Connection: close`. Plain server.close() waits for keep-alive clients to hang up, so one busy
 * client held the shutdown open until the grace period killed the process.
 */
export function closeHttpServer(server: http.Server): Promise<void> {
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  });
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  return new Promise((resolve) => {
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
  });
}
