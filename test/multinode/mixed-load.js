// A steady load through the load balancer, run inside the cluster's client namespace (node mixed-load.js URL TOKEN):
// alternating valid and invalid calls from one 2025 session (opened first, kept throughout) and as 2026-07-28
// requests, each on a new connection, so that every node gets some. A valid call must succeed; an invalid one must
// be refused (-32602) with validation on, or reach the backend with it off. Prints one JSON line of counts on
// SIGTERM and exits. MIXED_TOOL=get_order calls the Kubernetes example's tool instead. Optional: PAUSE_MS between a loop's calls (default 25), LOOPS (default 4), and SESSION, a 2025
// session to keep using (else one is opened; the first line printed names it). Calls are counted per node by the
// x-served-by header the load balancer adds (its server name for the node that answered).
'use strict';
const http = require('http');
const [url, token, pauseArg = '25', loopsArg = '4', sessionArg = ''] = process.argv.slice(2);
const pauseMs = Number(pauseArg);
const target = new URL(url);
const counts = { calls: 0, failed: 0, session_404: 0, by_outcome: {}, by_node: {}, failures: [] };
let stopping = false;
// the tool called: MIXED_TOOL=get_order calls the Kubernetes example's tool, else the multi-node test's
const tool =
  process.env.MIXED_TOOL === 'get_order'
    ? { name: 'get_order', args: (valid, i) => ({ order_id: valid ? 'ORD-1001' : `bad-${i}`, region: 'eu' }) }
    : {
        name: 'get_customer',
        args: (valid, i) => ({ customer_id: valid ? `C-${String(i % 10000).padStart(4, '0')}` : `bad-${i}` }),
      };

function post(body, headers) {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: false,
        timeout: 10000,
        headers: {
          connection: 'close',
          authorization: `Bearer ${token}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, text: err.message }));
    req.end(data);
  });
}

function textOf(result) {
  return Array.isArray(result.content) && result.content.length === 1 ? String(result.content[0].text) : '';
}

function classify(res, valid) {
  let message;
  try {
    message = JSON.parse(res.text);
  } catch {
    return `HTTP ${res.status} ${res.text.slice(0, 120)}`;
  }
  if (res.status === 200 && message.result && message.result.isError !== true) return valid ? 'ok' : 'forwarded';
  // the default channel (auto): clients of 2025-11-25 and later get the refusal as an isError result
  if (!valid && message.result && message.result.isError === true && /^Invalid value/.test(textOf(message.result))) {
    return 'refused';
  }
  if (!valid && message.error && message.error.code === -32602) return 'refused';
  return `HTTP ${res.status} ${res.text.slice(0, 160)}`;
}

async function loop(modern, session) {
  let i = 0;
  while (!stopping) {
    const valid = i++ % 2 === 0;
    const args = tool.args(valid, i);
    const call = { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: tool.name, arguments: args } };
    const sentAt = new Date().toISOString();
    const res = modern
      ? await post(
          {
            ...call,
            params: {
              ...call.params,
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
                'io.modelcontextprotocol/clientInfo': { name: 'mixed-load', version: '1' },
              },
            },
          },
          { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': tool.name },
        )
      : await post(call, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    const outcome = classify(res, valid);
    const node = (res.headers && res.headers['x-served-by']) || 'none';
    counts.by_node[node] = (counts.by_node[node] || 0) + 1;
    counts.calls++;
    counts.by_outcome[outcome] = (counts.by_outcome[outcome] || 0) + 1;
    if (!['ok', 'refused', 'forwarded'].includes(outcome)) {
      counts.failed++;
      if (res.status === 404) counts.session_404++;
      // when the call was sent, not when it failed: a call lost in flight fails only at its timeout
      if (counts.failures.length < 20) counts.failures.push(`${sentAt} ${outcome}`);
    }
    if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
  }
}

async function openSession() {
  const init = await post(
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mixed-load', version: '1' } },
    },
    {},
  );
  const session = init.headers && init.headers['mcp-session-id'];
  if (!session) {
    console.log(JSON.stringify({ error: `initialize: HTTP ${init.status} ${init.text.slice(0, 200)}` }));
    process.exit(1);
  }
  return session;
}

(async () => {
  const session = sessionArg || (await openSession());
  console.log(JSON.stringify({ started: true, session }));
  const loops = Array.from({ length: Number(loopsArg) }, (_, k) => loop(k % 2 === 1, session));
  process.on('SIGTERM', async () => {
    stopping = true;
    await Promise.all(loops);
    console.log(JSON.stringify(counts));
    process.exit(0);
  });
})();
