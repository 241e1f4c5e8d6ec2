/**
 * `/readyz` follows the backends: a process that reaches none of them (calls that cannot connect, then a probe of
 * every backend) is not ready until one answers again; a backend down while another answers leaves it ready.
 */
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { backendOrigins } from '../../../src/gateway/upstream/backend-health';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { eventually } from '../../helpers/eventually';
import { freePort } from '../../helpers/free-port';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { initializeSession, postJson, toolsCallRequest } from '../../helpers/mcp';

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
