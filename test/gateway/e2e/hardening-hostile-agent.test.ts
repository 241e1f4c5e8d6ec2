/**
 * Issue 10, gateway side: what a hostile agent with a valid token can send when validation is off (or a raw
 * schema leaves values untyped). Every request gets an answer, nothing reaches the service that it should not,
 * and the gateway keeps serving others.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { RunningGateway } from '../../../src/gateway';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, rawCall } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

const OPEN = { type: 'object' };

describe('hardening e2e: a hostile agent with a valid token (validation off)', () => {
  let backend: TestBackend;
  let gateway: RunningGateway;
  let session: string;

  before(async () => {
    backend = await startBackend();
    gateway = await startSilentGateway(
      botConfig(
        [
          tool('get', `${backend.url}/items/{id}`, { inputSchema: OPEN }),
          tool('search', `${backend.url}/search`, { inputSchema: OPEN }),
          tool('create', `${backend.url}/items`, { inputSchema: OPEN, method: 'POST' }),
          tool('huge', `${backend.url}/huge?bytes=4000000`, { inputSchema: OPEN }),
        ],
        { validate_input: false, max_body_bytes: 4 * 1024 * 1024 },
      ),
    );
    session = await initializeSession(gateway.url);
  });
  after(async () => {
    await gateway.close();
    await backend.close();
  });

  /** A tools/call whose arguments are written as raw JSON text (so `1e400` reaches the gateway as written). */
  async function callRaw(name: string, argsJson: string): Promise<any> {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${BOT.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argsJson}}}`,
    });
    return res.json();
  }

  it('refuses 1e400 in a query or a body instead of forwarding Infinity or null', async () => {
    const before = backend.requests;
    const query = await callRaw('search', '{"x":1e400,"y":[1,-1e400]}');
    assert.equal(query.error?.code, -32602, JSON.stringify(query));
    assert.equal(
      query.error.message,
      'Invalid value for `x`: expected a finite number; Invalid value for `y[1]`: expected a finite number',
    );
    const body = await callRaw('create', '{"n":{"deep":1e400}}');
    assert.equal(body.error?.message, 'Invalid value for `n.deep`: expected a finite number');
    const placeholder = await callRaw('get', '{"id":1e400}');
    assert.equal(placeholder.error?.message, 'Invalid value for `id`: expected a finite number');
    assert.equal(backend.requests, before, 'nothing reached the backend');
  });

  it('answers a 1 MiB placeholder value and a 1 MiB query value, and keeps serving', async () => {
    const long = await rawCall(gateway.url, session, 'get', { id: "'/".repeat(1 << 19) });
    assert.ok(long.result !== undefined || long.error !== undefined);
    const quotes = await rawCall(gateway.url, session, 'search', { q: "'".repeat(1 << 20) });
    assert.ok(quotes.result !== undefined || quotes.error !== undefined);
    const after = await rawCall(gateway.url, session, 'search', { q: 'ok' });
    assert.equal(after.result?.isError, undefined, JSON.stringify(after));
  });

  it('answers an argument nested 200,000 deep with an error, not a crash, and keeps serving', async () => {
    const deep = `{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    for (const name of ['search', 'create']) {
      const res = await callRaw(name, deep);
      assert.ok(res.error !== undefined || res.result?.isError === true, JSON.stringify(res).slice(0, 200));
    }
    const after = await rawCall(gateway.url, session, 'search', { q: 'ok' });
    assert.equal(after.result?.isError, undefined);
  });

  it('keeps serving others while a client never reads a 4 MB answer, and still shuts down', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'huge', arguments: {} },
    });
    const port = Number(new URL(gateway.url).port);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${BOT.token}\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\nmcp-session-id: ${session}\r\nmcp-protocol-version: 2025-06-18\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause(); // never reads
    try {
      for (let i = 0; i < 5; i++) {
        const res = await rawCall(gateway.url, session, 'search', { i });
        assert.equal(res.result?.isError, undefined);
      }
    } finally {
      socket.destroy();
    }
  });
});
