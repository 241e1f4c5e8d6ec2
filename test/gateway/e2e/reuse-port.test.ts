/**
 * Two `serve` processes on one port (SO_REUSEPORT, Node >= 22.12): both take connections, and a SIGTERM hands
 * the port over to the other without failing a request (Connection: close on the drained process's responses,
 * no reset). Needs a Node 22 binary (see test/helpers/reuse-port-node.ts): pending outside CI without one.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readAuditLog } from '../../helpers/audit-log';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../../helpers/config';
import { freePort } from '../../image/docker';
import { killAllGatewayProcesses, startGatewayProcess, type GatewayProcess } from '../../helpers/gateway-process';
import { ciRequired, reusePortNode } from '../../helpers/reuse-port-node';
import { makeToken } from '../../helpers/tokens';
import type { GatewayConfig } from '../../../src/config';
import { sessionDigest } from '../../../src/gateway/audit/session-digest';

const node = reusePortNode();
const bot = makeToken('reuse-port-bot');
/** Clients in the spread test; each opens its own connection. */
const CLIENTS = 40;
/** How long the load runs around the SIGTERM. */
const LOAD_MS = 4_000;

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly sessionId: string | undefined;
  readonly body: { result?: { isError?: boolean; structuredContent?: unknown }; error?: unknown };
}

/**
 * An MCP client on one keep-alive connection of its own (a `http.Agent` with a single socket), or on a new
 * connection per request (`fresh`).
 */
class ConnectionClient {
  private agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  sessionId: string | undefined;
  private nextId = 1;

  constructor(
    private readonly port: number,
    private readonly fresh = false,
  ) {}

  async open(): Promise<void> {
    const init = await this.post({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'reuse-port-test', version: '1.0.0' },
      },
    });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    this.sessionId = init.sessionId;
    const ack = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(ack.status, 202);
  }

  call(customerId: string): Promise<Answer> {
    return this.post({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'tools/call',
      params: { name: 'get_customer', arguments: { customer_id: customerId } },
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private post(message: unknown): Promise<Answer> {
    if (this.fresh) {
      this.agent.destroy();
      this.agent = new http.Agent({ keepAlive: false, maxSockets: 1 });
    }
    const body = JSON.stringify(message);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${bot.token}`,
      'mcp-protocol-version': '2025-06-18',
    };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/mcp',
          method: 'POST',
          agent: this.agent,
          headers,
          timeout: 10_000,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              connection: res.headers.connection,
              sessionId: res.headers['mcp-session-id'] as string | undefined,
              body: text === '' ? {} : JSON.parse(text),
            }),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** A fresh connection: initialize, then one call; resolves the call's answer. */
async function oneClientCall(port: number, customerId: string): Promise<Answer> {
  const client = new ConnectionClient(port);
  try {
    await client.open();
    return await client.call(customerId);
  } finally {
    client.close();
  }
}

describe('gateway e2e: two processes on one port (SO_REUSEPORT)', function () {
  if ('missing' in node) {
    if (ciRequired()) {
      it('runs under CI', () => assert.fail(`the SO_REUSEPORT test is required under CI but ${node.missing}`));
    } else {
      it(`NOT RUN: ${node.missing}`);
    }
    return;
  }
  this.timeout(60_000);
  const nodePath = node.path;
  let backend: TestBackend;
  let config: GatewayConfig;
  let keyDir = '';

  before(async () => {
    backend = await startBackend();
    // one session key for both processes, as replicas share theirs (a Docker secret)
    keyDir = mkdtempSync(path.join(tmpdir(), 'reuse-port-key-'));
    const keyFile = path.join(keyDir, 'session.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    config = gatewayConfig({
      tokens: [bot],
      tools: supportDeskTools(backend.url),
      settings: { host: '127.0.0.1', session_key_file: keyFile },
    });
  });
  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  async function startPair(): Promise<[GatewayProcess, GatewayProcess]> {
    const port = await freePort();
    const start = () => startGatewayProcess({ config, port, nodePath, startTimeoutMs: 30_000 });
    const a = await start();
    const b = await start();
    return [a, b];
  }

  it('both bind the port (reuse_port in the listening line) and new connections reach both', async () => {
    const [a, b] = await startPair();
    assert.equal(a.port, b.port);
    for (const gw of [a, b]) {
      const listening = gw.logLines().find((l) => (l as { msg?: string }).msg === 'listening') as {
        reuse_port?: boolean;
      };
      assert.equal(listening.reuse_port, true);
    }
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => oneClientCall(a.port, `C-${String(i).padStart(4, '0')}`)),
    );
    for (const answer of answers) assert.equal(answer.body.result?.isError, undefined, JSON.stringify(answer.body));
    await Promise.all([a.stop(), b.stop()]);
    const [inA, inB] = [readAuditLog(a.auditLogPath).length, readAuditLog(b.auditLogPath).length];
    assert.equal(inA + inB, CLIENTS);
    assert.ok(inA > 0 && inB > 0, `every connection went to one process (${inA} / ${inB})`);
  });

  it("serve one client's session alternately (one session key; a new connection per call)", async () => {
    const [a, b] = await startPair();
    const client = new ConnectionClient(a.port, true);
    await client.open();
    const answers: Answer[] = [];
    for (let i = 0; i < CLIENTS; i++) answers.push(await client.call(`C-${String(i).padStart(4, '0')}`));
    for (const answer of answers) assert.equal(answer.body.result?.isError, undefined, JSON.stringify(answer.body));
    await Promise.all([a.stop(), b.stop()]);
    const [inA, inB] = [readAuditLog(a.auditLogPath), readAuditLog(b.auditLogPath)];
    assert.equal(inA.length + inB.length, CLIENTS);
    assert.ok(inA.length > 0 && inB.length > 0, `every call went to one process (${inA.length} / ${inB.length})`);
    assert.deepEqual([...new Set([...inA, ...inB].map((r) => r.session))], [sessionDigest(client.sessionId!)]);
  });

  it("SIGTERM hands the port over: kept-alive connections get Connection: close and move on, no agent's request fails, exit 0", async () => {
    const port = await freePort();
    const a = await startGatewayProcess({ config, port, nodePath, startTimeoutMs: 30_000 });
    // a client whose connection is surely on `a`: opened before `b` exists
    const kept = new ConnectionClient(port);
    await kept.open();
    assert.equal((await kept.call('C-0001')).connection, 'keep-alive');
    const b = await startGatewayProcess({ config, port, nodePath, startTimeoutMs: 30_000 });

    let made = 0;
    const failures: string[] = [];
    const end = Date.now() + LOAD_MS;
    // agents keep their connection and session; a Connection: close moves one to a new connection, which only
    // `b` can accept by then (a client connecting for the first time at the instant `a` closes its listening
    // socket could be reset by the kernel, unless net.ipv4.tcp_migrate_req=1: see docs/replicas.md)
    const agents = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const agent = new ConnectionClient(port);
        await agent.open();
        return agent;
      }),
    );
    const loop = async (agent: ConnectionClient, n: number): Promise<void> => {
      for (let i = 0; Date.now() < end && i < 10_000; i++) {
        made++;
        try {
          const answer = await agent.call(`C-${String((n * 1000 + i) % 10_000).padStart(4, '0')}`);
          if (answer.status !== 200 || answer.body.result?.isError !== undefined)
            failures.push(JSON.stringify(answer.body));
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    };
    const load = Promise.all(agents.map(loop)).finally(() => agents.forEach((agent) => agent.close()));
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS / 4));
    const offset = a.outputOffset();
    a.signal('SIGTERM');
    await a.waitForOutput(/"msg":"shutting down"/, 10_000, offset);
    // the next answer on the kept connection still comes from `a`, and tells the client to move on
    const last = await kept.call('C-0002');
    assert.equal(last.status, 200);
    assert.equal(last.body.result?.isError, undefined, JSON.stringify(last.body));
    assert.equal(last.connection, 'close');
    kept.close();
    await load;
    assert.deepEqual(await a.waitForExit(15_000), { code: 0, signal: null });
    await b.stop();
    assert.deepEqual(failures, []);
    const audited = readAuditLog(a.auditLogPath).length + readAuditLog(b.auditLogPath).length;
    assert.equal(audited, made + 2, 'audit records (both processes) = calls made');
    assert.ok(made > 20, `only ${made} calls ran during the load`);
  });
});
