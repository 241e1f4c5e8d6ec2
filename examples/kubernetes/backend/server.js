// The example's order API: plain Node, no dependencies, so that it runs on the gateway's own image with this file
// mounted. It answers only callers that present the backend key (the gateway adds it from a secret).
'use strict';
const http = require('node:http');

const key = process.env.BACKEND_KEY ?? '';
const port = Number(process.env.PORT ?? 8080);
const node = process.env.NODE_NAME ?? 'unknown';

const orders = {
  'ORD-1001': { status: 'shipped', items: 2, region: 'eu' },
  'ORD-1002': { status: 'processing', items: 1, region: 'us' },
};

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

http
  .createServer((req, res) => {
    const url = new URL(req.url, 'http://backend');
    if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
    if (key === '' || req.headers['x-backend-key'] !== key) return send(res, 401, { error: 'missing or wrong key' });
    let m = /^\/orders\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const id = decodeURIComponent(m[1]);
      // an unknown id is an answer too: the order API says so rather than failing the call
      return send(res, 200, { order_id: id, ...(orders[id] ?? { status: 'unknown' }), served_by: node });
    }
    m = /^\/shipments\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      return send(res, 200, {
        tracking: decodeURIComponent(m[1]),
        carrier: url.searchParams.get('carrier') ?? 'any',
        state: 'in transit',
      });
    }
    send(res, 404, { error: 'not found' });
  })
  .listen(port, () => console.log(`orders backend on :${port}`));
