/**
 * `/readyz` follows the backends: a process that reaches none of them (calls that cannot connect, then a probe of
 * every backend) is not ready until one answers again; a backend down while another answers leaves it ready; at
 * start it is not ready until its backends' names have resolved, for a bounded time.
 */
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackendHealth, backendOrigins } from '../../../src/gateway/upstream/backend-health';
import type { Logger } from '../../../src/gateway/log/logger';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { eventually } from '../../helpers/eventually';
import { freePort } from '../../helpers/free-port';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { initializeSession, postJson, toolsCallRequest } from '../../helpers/mcp';

const tick = () => new Promise((r) => setImmediate(r));

async function readyz(gw: InProcessGateway): Promise<{ status: number; body: { status: string } }> {
  const res = await fetch(gw.url.replace('/mcp', '/readyz'));
  return { status: res.status, body: (await res.json()) as { status: string } };
}

describe('readiness and the backends', function () {
  this.timeout(20_000);
  const opened: InProcessGateway[] = [];
  let servers: Server[] = [];
  let backend: TestBackend;

  before(async () => {
    backend = await startBackend();
  });
  after(async () => {
    await Promise.all(opened.map((g) => g.close()));
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    servers = [];
    await backend.close();
  });

  it('names each backend origin once, with the scheme default port', () => {
    assert.deepEqual(
      backendOrigins(['http://crm:8080/a/{id}', 'http://crm:8080/b', 'https://billing/x?y={z}', 'http://[::1]:9/']),
      [
        { host: 'crm', port: 8080 },
        { host: 'billing', port: 443 },
        { host: '::1', port: 9 },
      ],
    );
  });

  it('is not ready at start until each backend name has resolved once, then ready', async () => {
    const asked: string[] = [];
    const answers: (() => void)[] = [];
    const health = new BackendHealth(
      () => [
        { host: 'orders.cluster.test', port: 8080 },
        { host: 'orders.cluster.test', port: 9090 },
        { host: 'crm.cluster.test', port: 80 },
      ],
      () => undefined,
    );
    assert.equal(health.status, 'ok', 'nothing to wait for before resolveNames');
    health.resolveNames((host) => {
      asked.push(host);
      return new Promise<void>((r) => answers.push(r));
    });
    assert.deepEqual(asked, ['orders.cluster.test', 'crm.cluster.test'], 'each name once');
    assert.equal(health.status, 'resolving_backends');
    answers[0]();
    await tick();
    assert.equal(health.status, 'resolving_backends', 'one name left');
    answers[1]();
    await tick();
    assert.equal(health.status, 'ok');
    health.close();
  });

  it('reports ready after the wait when a name never resolves, and says so once', async () => {
    const lines: string[] = [];
    const log: Logger = (level, msg) => void lines.push(`${level} ${msg}`);
    const health = new BackendHealth(() => [{ host: 'orders.cluster.test', port: 8080 }], log);
    health.resolveNames(() => new Promise<void>(() => undefined), 50);
    assert.equal(health.status, 'resolving_backends');
    await eventually(() => assert.equal(health.status, 'ok'), { timeoutMs: 2_000 });
    assert.deepEqual(lines, ['warn backend names still resolving: ready without them']);
    health.close();
  });

  it('is ready at start once a backend named by host name has resolved', async () => {
    const gw = await startInProcessGateway(
      botConfig([tool('up', `${backend.url.replace('127.0.0.1', 'localhost')}/y`)]),
    );
    opened.push(gw);
    const ready = await eventually(async () => {
      const r = await readyz(gw);
      assert.equal(r.status, 200);
      return r;
    });
    assert.equal(ready.body.status, 'ok');
    const session = await initializeSession(gw.url, '2025-11-25');
    const call = await postJson(gw.url, toolsCallRequest('up', {}), { 'mcp-session-id': session });
    assert.equal(call.status, 200);
  });

  it('is not ready while no backend is reachable, and ready again once one answers', async () => {
    const port = await freePort();
    const gw = await startInProcessGateway(botConfig([tool('down', `http://127.0.0.1:${port}/x`)]));
    opened.push(gw);
    const session = await initializeSession(gw.url, '2025-11-25');
    for (let i = 0; i < 5; i++) await postJson(gw.url, toolsCallRequest('down', {}), { 'mcp-session-id': session });
    const down = await eventually(async () => {
      const r = await readyz(gw);
      assert.equal(r.status, 503);
      return r;
    });
    assert.equal(down.body.status, 'backends_unreachable');
    const server = createServer((_req, res) => res.end('{}'));
    servers.push(server);
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    assert.equal((server.address() as AddressInfo).port, port);
    await eventually(async () => assert.equal((await readyz(gw)).status, 200), { timeoutMs: 5_000 });
  });

  it('stays ready while one backend is down and another answers', async () => {
    const port = await freePort();
    const gw = await startInProcessGateway(
      botConfig([tool('down', `http://127.0.0.1:${port}/x`), tool('up', `${backend.url}/y`)]),
    );
    opened.push(gw);
    const session = await initializeSession(gw.url, '2025-11-25');
    for (let i = 0; i < 8; i++) await postJson(gw.url, toolsCallRequest('down', {}), { 'mcp-session-id': session });
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal((await readyz(gw)).status, 200);
  });
});
