import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../src/gateway';
import { botConfig } from '../../helpers/config';
import { openStream, rawRequest } from '../../helpers/http';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

describe('the request listener: routes, methods and the JSON parse of /mcp', () => {
  let gateway: RunningGateway;
  let session: string;
  const auth = { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json' };
  const send = (headers: Record<string, string>, body: string | undefined, method = 'POST') =>
    rawRequest({ url: gateway.url, method, headers, body, timeoutMs: 5_000 });

  before(async () => {
    gateway = await startSilentGateway(botConfig([]));
    session = await initializeSession(gateway.url);
  });
  after(() => gateway.close());

  it('answers a body that is not JSON with -32700', async () => {
    const res = await send(auth, '{"jsonrpc":');
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, -32700);
  });

  it('refuses a GET without Accept: text/event-stream with 406', async () => {
    const res = await send({ ...auth, 'mcp-session-id': session }, undefined, 'GET');
    assert.equal(res.status, 406);
  });

  it('opens the GET stream for Accept */* and refuses a type that only contains the name', async () => {
    const headers = { authorization: `Bearer ${BOT.token}`, 'mcp-session-id': session };
    const stream = await openStream(gateway.url, { ...headers, accept: '*/*' });
    stream.destroy();
    assert.deepEqual([stream.status, stream.contentType], [200, 'text/event-stream']);
    for (const accept of ['text/event-streams', 'text/event-stream;q=0']) {
      assert.equal((await send({ ...headers, accept }, undefined, 'GET')).status, 406, accept);
    }
  });

  it('refuses other methods with 405', async () => {
    const res = await send({ ...auth, 'mcp-session-id': session }, undefined, 'PUT');
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET, POST, DELETE');
  });

  it('serves /healthz and /readyz', async () => {
    const base = gateway.url.replace(/\/mcp$/, '');
    const health = await rawRequest({ url: `${base}/healthz`, method: 'GET' });
    assert.deepEqual([health.status, health.json], [200, { status: 'ok' }]);
    assert.equal((await rawRequest({ url: `${base}/readyz`, method: 'GET' })).status, 200);
    assert.equal((await rawRequest({ url: `${base}/other`, method: 'GET' })).status, 404);
  });
});
