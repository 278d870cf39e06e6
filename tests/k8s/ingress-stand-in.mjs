// What the ingress controller does for the gateway, in the test cluster's ingress-nginx namespace
// (the only source the gateway's NetworkPolicy admits on its HTTP port): every request passed to
// the gateway's Service, its client's address added to X-Forwarded-For. Plain Node, no dependency.
import http from 'node:http';

const GATEWAY = { host: 'gateway.pix.svc.cluster.local', port: 8080 };
http
  .createServer((req, res) => {
    const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request(
      { ...GATEWAY, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwarded } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`ingress stand-in: ${error.message}`);
    });
    req.pipe(upstream);
  })
  .listen(8080, '0.0.0.0');
