import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { HttpError } from '../../../src/gateway/errors/http-error';
import { NotificationStreams } from '../../../src/gateway/mcp/notification-streams';
import { eventually } from '../../helpers/eventually';
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
    stream = await openStream(gateway.url, {
      accept: 'text/event-stream',
      authorization: `Bearer ${BOT.token}`,
      'mcp-session-id': session.sessionId,
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.contentType, 'text/event-stream');
    // a change: an unchanged config notifies nobody
    await gateway.reload(botConfig(supportDeskTools(service.url), { max_body_bytes: 4096 }));
    await stream.waitFor(/"method":"notifications\/tools\/list_changed"/);
    const data = stream
      .text()
      .split('\n')
      .find((l) => l.startsWith('data: '))!;
    assert.deepEqual(JSON.parse(data.slice(6)), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });
});

/** A stand-in for a ServerResponse: records what is written, and `close` like node does when it ends. */
class FakeResponse extends EventEmitter {
  /** The request it answers, with its connection (a stream marks it). */
  readonly req = { socket: new EventEmitter() };
  status = 0;
  headers: Record<string, string> = {};
  written = '';
  ended = false;
  writeHead(status: number, headers: Record<string, string>): this {
    this.status = status;
    this.headers = headers;
    return this;
  }
  flushHeaders(): void {
    // nothing buffered in this fake
  }
  write(chunk: string): boolean {
    this.written += chunk;
    return true;
  }
  end(): this {
    if (!this.ended) {
      this.ended = true;
      this.emit('close');
    }
    return this;
  }
}

describe('NotificationStreams (both eras, per principal)', () => {
  const res = () => new FakeResponse() as FakeResponse & ServerResponse;
  const session = (principal: string | null, sessionId = 's1') => ({
    kind: 'session' as const,
    principal,
    sessionId,
    expiresAtMs: Date.now() + 60_000,
  });
  const listenSpec = (principal: string | null, id: string | number, toolsListChanged = true) => ({
    kind: 'listen' as const,
    principal,
    subscriptionId: id,
    filter: toolsListChanged ? { toolsListChanged: true as const } : {},
  });

  it('caps streams per principal with HTTP 429 (nothing written), counting both kinds; other principals unaffected', () => {
    const streams = new NotificationStreams(2);
    streams.open(res(), session('a'));
    streams.open(res(), listenSpec('a', 1));
    const refused = res();
    assert.throws(
      () => streams.open(refused, listenSpec('a', 'x'), 'x'),
      (err: HttpError) => err.status === 429 && err.id === 'x' && /at most 2 open/.test(err.message),
    );
    assert.equal(refused.status, 0);
    streams.open(res(), session('b'));
    assert.equal(streams.size, 3);
  });

  it('frees a slot when a stream closes', () => {
    const streams = new NotificationStreams(1);
    const first = res();
    streams.open(first, session(null));
    first.end();
    assert.equal(streams.size, 0);
    streams.open(res(), session(null));
  });

  it('acknowledges a listen stream first and sends list_changed only where asked, tagged; 2025 frames untagged', () => {
    const streams = new NotificationStreams(16);
    const legacy = res();
    const wants = res();
    const filtered = res();
    streams.open(legacy, session('a'));
    streams.open(wants, listenSpec('a', 7));
    streams.open(filtered, listenSpec('a', 'f', false));
    assert.equal(streams.toolsListChanged(), 2);
    assert.match(
      wants.written,
      /^event: message\ndata: \{"jsonrpc":"2.0","method":"notifications\/subscriptions\/acknowledged"/,
    );
    assert.match(
      wants.written,
      /"method":"notifications\/tools\/list_changed","params":\{"_meta":\{"io.modelcontextprotocol\/subscriptionId":7\}\}/,
    );
    assert.doesNotMatch(filtered.written, /list_changed/);
    assert.equal(
      legacy.written,
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n',
    );
  });

  it('closes the streams of principals a reload removed, and the GET streams of one deleted session', () => {
    const streams = new NotificationStreams(16);
    const [a1, a2, b1] = [res(), res(), res()];
    streams.open(a1, session('a', 's1'));
    streams.open(a2, session('a', 's2'));
    streams.open(b1, listenSpec('b', 1));
    streams.closeSession('a', 's1');
    assert.deepEqual([a1.ended, a2.ended], [true, false]);
    assert.equal(
      streams.closePrincipals((p) => p === 'a'),
      1,
    );
    assert.equal(b1.ended, true);
    assert.equal(streams.size, 1);
  });

  it('ends a GET stream when its session expires', async () => {
    const streams = new NotificationStreams(16);
    const r = res();
    streams.open(r, { ...session('a'), expiresAtMs: Date.now() + 30 });
    await eventually(() => r.ended, { timeoutMs: 2_000 });
    assert.equal(streams.size, 0);
  });
});
