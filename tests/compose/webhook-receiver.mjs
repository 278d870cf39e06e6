// The merchant's webhook endpoint inside compose's network, for tests/compose/stack.test.ts: it
// answers every POST 204 and keeps it (method, headers, raw body); GET /deliveries returns them.
// Plain Node with no dependency, so that it runs in the platform's Node base image as it is.
import { Buffer } from 'node:buffer';
import http from 'node:http';

const deliveries = [];
http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/deliveries') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(deliveries));
        return;
      }
      deliveries.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(204);
      res.end();
    });
  })
  .listen(9999, '0.0.0.0');
