/**
 * Requests refused with HTTP 401 are logged without flooding the log: the first of a window at once (why, where,
 * from whom; never the token), the rest of the window as one count.
 */
import assert from 'node:assert/strict';
import { botConfig, tool } from '../../helpers/config';
import { rawRequest } from '../../helpers/http';
import { startInProcessGateway } from '../../helpers/in-process-gateway';
import { BOT } from '../../helpers/tokens';
import { UNAUTHORIZED_MORE, UNAUTHORIZED_REFUSED, UnauthorizedLog } from '../../../src/gateway/log/unauthorized-log';

type Entry = { level: string; msg: string } & Record<string, unknown>;

function logWithClock(windowMs = 1000) {
  const entries: Entry[] = [];
  let now = 0;
  const log = new UnauthorizedLog(
    (level, msg, fields) => entries.push({ level, msg, ...fields }),
    windowMs,
    () => now,
  );
  return { entries, log, advance: (ms: number) => (now += ms) };
}

describe('UnauthorizedLog', () => {
  it('logs the first refusal at once, then one count for the rest of its window', () => {
    const { entries, log, advance } = logWithClock();
    log.record('Unauthorized: a valid bearer token is required', '/mcp', '127.0.0.1');
    assert.deepEqual(entries, [
      {
        level: 'warn',
        msg: UNAUTHORIZED_REFUSED,
        reason: 'Unauthorized: a valid bearer token is required',
        path: '/mcp',
        remote: '127.0.0.1',
      },
    ]);
    for (let i = 0; i < 1000; i++) {
      advance(0.5);
      log.record('Unauthorized: a valid bearer token is required', '/mcp', '127.0.0.1');
    }
    assert.equal(entries.length, 1, 'a thousand refusals within the window add no line of their own');
    log.flush();
    assert.deepEqual(entries[1], { level: 'warn', msg: UNAUTHORIZED_MORE, count: 1000, window_s: 1 });
    log.flush();
    assert.equal(entries.length, 2, 'a count is logged once');
  });

  it('starts a new window with the first refusal after the last one ended', () => {
    const { entries, log, advance } = logWithClock();
    log.record('Unauthorized: a', '/mcp', '10.0.0.1');
    advance(10);
    log.record('Unauthorized: b', '/mcp', '10.0.0.2');
    advance(1000);
    log.record('Unauthorized: c', '/metrics', '10.0.0.3');
    assert.deepEqual(
      entries.map((e) => [e.msg, e.reason ?? e.count]),
      [
        [UNAUTHORIZED_REFUSED, 'Unauthorized: a'],
        [UNAUTHORIZED_MORE, 1],
        [UNAUTHORIZED_REFUSED, 'Unauthorized: c'],
      ],
    );
  });

  it("logs the window's count when it ends, without another refusal", async () => {
    const entries: Entry[] = [];
    const log = new UnauthorizedLog((level, msg, fields) => entries.push({ level, msg, ...fields }), 50);
    log.record('Unauthorized: a', '/mcp', undefined);
    log.record('Unauthorized: a', '/mcp', undefined);
    log.record('Unauthorized: a', '/mcp', undefined);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.deepEqual(
      entries.map((e) => e.count),
      [undefined, 2],
    );
  });
});

describe('a gateway refusing requests without a valid bearer token', () => {
  it('logs the first with its reason, path and address, counts the rest, and never logs a token', async () => {
    const gw = await startInProcessGateway(botConfig([tool('lookup', 'http://127.0.0.1:9/lookup')]));
    const wrong = 'wrong-token-0123456789abcdef';
    try {
      const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      for (const authorization of [`Bearer ${wrong}`, undefined, `Bearer ${wrong}`]) {
        const res = await rawRequest({
          url: gw.url,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization === undefined ? {} : { authorization }),
          },
          body: init,
        });
        assert.equal(res.status, 401);
      }
      const ok = await rawRequest({
        url: gw.url,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${BOT.token}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      assert.equal(ok.status, 200, 'a valid token is not counted');
      const refused = gw.logs.filter((r) => r.msg === UNAUTHORIZED_REFUSED);
      assert.equal(refused.length, 1);
      assert.equal(refused[0].level, 'warn');
      assert.match(String(refused[0].reason), /^Unauthorized: /);
      assert.equal(new URL(gw.url).pathname, refused[0].path);
      assert.match(String(refused[0].remote), /127\.0\.0\.1$/);
      await gw.close();
      assert.deepEqual(
        gw.logs.filter((r) => r.msg === UNAUTHORIZED_MORE).map((r) => r.count),
        [2],
        'the rest of the window is counted when the gateway stops',
      );
      assert.ok(!JSON.stringify(gw.logs).includes(wrong), 'no token in the log');
    } finally {
      await gw.close();
    }
  });

  it('logs the path without its query, which the client chose and may hold a token', async () => {
    const gw = await startInProcessGateway(botConfig([tool('lookup', 'http://127.0.0.1:9/lookup')]));
    const secret = 'query-token-0123456789abcdef';
    try {
      const res = await rawRequest({
        url: `${gw.url}?access_token=${secret}&pad=${'x'.repeat(2000)}`,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(res.status, 401);
      const refused = gw.logs.filter((r) => r.msg === UNAUTHORIZED_REFUSED);
      assert.deepEqual(
        refused.map((r) => r.path),
        ['/mcp'],
      );
      assert.ok(!JSON.stringify(gw.logs).includes(secret), 'no token from the query in the log');
    } finally {
      await gw.close();
    }
  });
});
