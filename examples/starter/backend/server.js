// The starter's backend: GET /greet/{name}?punctuation=! → {"greeting": "Hello, name!"}.
// Listens on PORT (default 8080; `dev` passes none and reads the printed address); prints `Backend: URL`.
'use strict';
const http = require('node:http');

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const m = /^\/greet\/([^/]+)$/.exec(url.pathname);
  const body = m
    ? { greeting: `Hello, ${decodeURIComponent(m[1])}${url.searchParams.get('punctuation') ?? '!'}` }
    : { error: 'no such route' };
  res.writeHead(m ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
});
const port = process.env.PORT === undefined ? 0 : Number(process.env.PORT);
server.listen(port, process.env.HOST ?? '127.0.0.1', () => {
  console.log(`Backend: http://${server.address().address}:${server.address().port}`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
