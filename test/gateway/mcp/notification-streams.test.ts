import assert from 'node:assert/strict';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, supportDeskTools } from '../../helpers/config';
import { openStream, type OpenStream } from '../../helpers/http';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { openSession } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';
import type { RunningGateway } from '../../../src/gateway';

describe('the GET notification stream', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let stream: OpenStream | undefined;

  before(async () => {
    service = await startFakeService();
    gateway = await startSilentGateway(botConfig(supportDeskTools(service.url)));
  });
  after(async () => {
    stream?.destroy();
    await gateway.close();
    await service.close();
  });

  it('delivers notifications/tools/list_changed on reload as an SSE message', async () => {
    const session = await openSession(gateway.url, { token: BOT.token });
    stream = await openStream(gateway.url, { accept: 'text/event-stream', authorization: `Bearer ${BOT.token}`, 'mcp-session-id': session.sessionId });
    assert.equal(stream.status, 200);
    assert.equal(stream.contentType, 'text/event-stream');
    await gateway.reload(botConfig(supportDeskTools(service.url)));
    await stream.waitFor(/"method":"notifications\/tools\/list_changed"/);
    const data = stream.text().split('\n').find((l) => l.startsWith('data: '))!;
    assert.deepEqual(JSON.parse(data.slice(6)), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });
});
