/**
 * A `redactPatterns` pattern outside V8's fast path (the bounded email pattern below) searched a 244 KiB body on
 * RE2's slower matcher on the gateway's own thread: 648–705 ms during which every other call waited. Such bodies
 * now leave the gateway's thread from 4 KiB up. The bound below is a generous sanity check on the event loop's
 * longest stall during the call, not a benchmark (bench/ measures it).
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { botConfig, tool } from '../helpers/config';
import { startInProcessGateway, type InProcessGateway } from '../helpers/in-process-gateway';
import { initializeSession, rawCall } from '../helpers/mcp';

const EMAIL = '[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,255}';
/** 244 KiB of `a@a@…`: every `@` starts and ends matches the slower matcher works through one by one. */
const BODY = JSON.stringify({ id: 'C-1', note: 'a@'.repeat(122 * 1024), contact: 'ada@example.com' });

describe('security: a costly redact pattern does not stall the gateway', function () {
  this.timeout(60_000);
  let server: http.Server;
  let gw: InProcessGateway;

  before(async () => {
    server = http.createServer((_req, res) => res.setHeader('content-type', 'application/json').end(BODY));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    gw = await startInProcessGateway(
      botConfig([{ ...tool('mails', url), response: { redact_patterns: { email: EMAIL } } }]),
    );
  });
  after(async () => {
    await gw.close();
    server.close();
  });

  it('redacts a 244 KiB body off the gateway thread: the event loop never stalls for long', async () => {
    const session = await initializeSession(gw.url);
    await rawCall(gw.url, session, 'mails', {}); // the body thread starts (and loads) once
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const reply = await rawCall(gw.url, session, 'mails', {});
    delay.disable();
    assert.equal(reply.result.structuredContent.contact, '[redacted]');
    assert.ok(!JSON.stringify(reply).includes('ada@example.com'));
    const maxMs = delay.max / 1e6;
    assert.ok(maxMs < 50, `the event loop stalled for ${maxMs.toFixed(0)} ms`);
  });
});
