/**
 * Hostile backends behind a tool with response controls: a 100 MB body, a 1 MiB string next to a redact pattern,
 * nesting deeper than the gateway shapes, numbers JSON cannot carry, and a declared integer holding 2^60. Each
 * gets its exact refusal (or its exact shaped result), and the gateway keeps answering other calls meanwhile.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateOutputSchema } from '../../../src/schema';
import type { ToolConfig } from '../../../src/config';
import { botConfig, tool } from '../../helpers/config';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { initializeSession, rawCall } from '../../helpers/mcp';

const OUTPUT = generateOutputSchema({
  id: { type: 'string', required: true },
  count: { type: 'integer' },
  total: { type: 'number' },
  note: { type: 'string' },
  meta: { type: 'object' },
});
const MIB = 1024 * 1024;
const NEAR_PATTERN = JSON.stringify({ id: 'C-1', note: `${'9'.repeat(MIB)} 4111111111111111 ${'a'.repeat(1000)}` });

/**
 * Just under 4 MiB of empty arrays nested 8 deep, then a card number: every 17 bytes cost V8 eight arrays to parse
 * and to serialize again, so shaping it takes hundreds of milliseconds.
 */
const VALUES = (() => {
  const tail = '"4111111111111111"]}';
  const unit = '[[[[[[[[]]]]]]]],';
  return `{"items":[${unit.repeat(Math.floor((4 * MIB - 100) / unit.length))}${tail}`;
})();
/** Resolved when the backend has handed the last byte of {@link VALUES} to the connection. */
let valuesSent: { promise: Promise<void>; resolve: () => void };
function resetValuesSent(): void {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  valuesSent = { promise, resolve };
}

/** A backend whose answers are written by hand: streamed, unbounded, or exactly the bytes given. */
async function startHostileBackend(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    res.setHeader('content-type', 'application/json');
    if (path === '/100mb') {
      // 100 MB of a JSON string, streamed without a content-length, until the gateway hangs up.
      const chunk = Buffer.alloc(MIB, 'x');
      let sent = 0;
      res.write('{"id":"C-1","note":"');
      const pump = (): void => {
        while (sent < 100 && res.write(chunk)) sent++;
        if (sent >= 100) res.end('"}');
        else res.once('drain', pump);
      };
      res.on('error', () => undefined);
      req.socket.on('error', () => undefined);
      pump();
      return;
    }
    if (path === '/values') {
      res.on('finish', () => valuesSent.resolve());
      res.end(VALUES);
      return;
    }
    const bodies: Record<string, string> = {
      '/ok': '{"id":"C-1","count":3}',
      '/near': NEAR_PATTERN,
      '/deep': `{"id":"C-1","meta":${'{"a":'.repeat(600_000)}1${'}'.repeat(600_000)}}`,
      '/deep-array': `{"id":"C-1","meta":{"a":${'['.repeat(MIB)}${']'.repeat(MIB)}}}`,
      '/inf': '{"id":"C-1","total":1e400}',
      '/inf-open': '{"id":"C-1","meta":{"x":-1e400}}',
      '/big-int': '{"id":"C-1","count":1152921504606846976}',
    };
    res.end(bodies[path] ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('response controls e2e: hostile backends', function () {
  this.timeout(60_000);
  let backend: Awaited<ReturnType<typeof startHostileBackend>>;
  let gw: InProcessGateway;
  let session: string;

  before(async () => {
    backend = await startHostileBackend();
    const withOutput = (name: string, path: string, extra: Partial<ToolConfig> = {}): ToolConfig => ({
      ...tool(name, `${backend.url}${path}`),
      output_schema: OUTPUT,
      ...extra,
    });
    const redacting = { response: { redact: ['note'], redact_patterns: { card: '\\b[0-9]{13,16}\\b' } } };
    gw = await startInProcessGateway(
      botConfig([
        withOutput('ok', '/ok'),
        withOutput('huge', '/100mb', redacting),
        withOutput('near', '/near', { response: { redact_patterns: { card: '\\b[0-9]{13,16}\\b' } } }),
        withOutput('deep', '/deep', redacting),
        withOutput('deep_array', '/deep-array'),
        withOutput('inf', '/inf'),
        // No declared output: nothing validates, but shaping must not turn 1e400 into null.
        { ...tool('inf_open', `${backend.url}/inf-open`), ...redacting, response: { redact_patterns: { x: 'x' } } },
        withOutput('big_int', '/big-int'),
        { ...tool('values', `${backend.url}/values`), response: { redact_patterns: { card: '\\b[0-9]{13,16}\\b' } } },
      ]),
    );
    session = await initializeSession(gw.url);
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  const call = (name: string) => rawCall(gw.url, session, name, {});
  const errorText = (reply: any): string => {
    assert.equal(reply.result?.isError, true, JSON.stringify(reply).slice(0, 300));
    return reply.result.content[0].text;
  };

  it('refuses a 100 MB body at the gateway response limit and keeps answering meanwhile', async () => {
    const huge = call('huge');
    const others = await Promise.all([call('ok'), call('ok'), call('ok')]);
    for (const r of others) assert.deepEqual(r.result.structuredContent, { id: 'C-1', count: 3 });
    assert.equal(errorText(await huge), 'Service response too large');
    assert.deepEqual((await call('ok')).result.structuredContent, { id: 'C-1', count: 3 });
  });

  it('keeps answering other calls while it shapes a body that is slow to parse (on its body thread)', async () => {
    resetValuesSent();
    let done = false;
    const values = call('values').finally(() => (done = true));
    await valuesSent.promise;
    // Calls one after another until the slow body is answered: on the gateway's own thread, shaping it would
    // leave no room for any of them.
    let answered = 0;
    while (!done) {
      assert.deepEqual((await call('ok')).result.structuredContent, { id: 'C-1', count: 3 });
      answered++;
    }
    const reply = await values;
    assert.equal(reply.result.isError, undefined, JSON.stringify(reply).slice(0, 300));
    assert.ok(reply.result.structuredContent.items.at(-1) === '[redacted]');
    assert.ok(answered >= 10, `only ${answered} calls were answered while the body was shaped`);
  });

  it('redacts a match next to a 1 MiB string, exactly and without a trace in the reply', async () => {
    const reply = await call('near');
    const note: string = reply.result.structuredContent.note;
    assert.equal(note, `${'9'.repeat(MIB)} [redacted] ${'a'.repeat(1000)}`);
    assert.ok(!JSON.stringify(reply).includes('4111111111111111'));
  });

  it('refuses nesting deeper than 512 levels before parsing it (objects and arrays)', async () => {
    const started = Date.now();
    for (const name of ['deep', 'deep_array']) {
      assert.equal(errorText(await call(name)), 'Service returned an invalid response: nested deeper than 512 levels');
    }
    // A generous sanity bound (the real figure is a bench row): parsing these would take seconds.
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  });

  it('refuses 1e400 where a number is declared, with the validation message', async () => {
    assert.equal(
      errorText(await call('inf')),
      'Service returned an invalid response: Invalid type for `total`: expected number',
    );
  });

  it('refuses 1e400 in an undeclared place rather than forwarding it as null, naming none of its keys', async () => {
    assert.equal(
      errorText(await call('inf_open')),
      'Service returned an invalid response: Invalid value for `*.*`: expected a finite number',
    );
  });

  it('refuses a declared integer holding 2^60 (it cannot be forwarded exactly)', async () => {
    const text = errorText(await call('big_int'));
    assert.match(text, /^Service returned an invalid response: Invalid value for `count`: /);
    assert.ok(!text.includes('1152921504606846976') && !text.includes('1152921504606847000'));
  });
});
