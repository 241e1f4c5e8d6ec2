import assert from 'node:assert/strict';
import type { RunningGateway } from '../../../../src/gateway';
import { botConfig } from '../../../helpers/config';
import { rawRequest } from '../../../helpers/http';
import { startSilentGateway } from '../../../helpers/in-process-gateway';
import { BOT } from '../../../helpers/tokens';

describe('protocol version negotiation in initialize', () => {
  let gateway: RunningGateway;

  before(async () => {
    gateway = await startSilentGateway(botConfig([]));
  });
  after(() => gateway.close());

  it('negotiates: echoes a supported version, answers the latest otherwise', async () => {
    const init = (v: string) =>
      rawRequest({
        url: gateway.url,
        headers: { authorization: `Bearer ${BOT.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        }),
        timeoutMs: 5_000,
      });
    const old = await init('2025-03-26');
    assert.equal(old.json.result.protocolVersion, '2025-03-26');
    assert.deepEqual(old.json.result.capabilities, { tools: { listChanged: true } });
    assert.match(old.headers['mcp-session-id'] as string, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.equal((await init('2099-01-01')).json.result.protocolVersion, '2025-11-25');
  });
});
