/**
 * One shared body thread: a call's timeout dropped only the bodies waiting for it, and the one being worked on ran
 * to its end while a plain tool's answer waited behind it (about 39 s unavailable after two hostile 4 MiB calls).
 * A body whose call timed out is now abandoned with its thread, and a fresh thread takes the bodies behind it.
 * Runs the build (`dist/`): a fresh thread there loads compiled JavaScript, as in the gateway image.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type * as BodyThreadModule from '../../src/gateway/upstream/body-thread';
import type * as OutcomeModule from '../../src/response/body-result';
import type * as ResponseModule from '../../src/response';
import { asText } from '../helpers/outcome';

const DIST = path.resolve(__dirname, '../../dist/src');
const { BodyThread } = require(`${DIST}/gateway/upstream/body-thread`) as typeof BodyThreadModule;
const { bodyResult } = require(`${DIST}/response/body-result`) as typeof OutcomeModule;
const { compileResponseControls } = require(`${DIST}/response`) as typeof ResponseModule;

const MIB = 1024 * 1024;
/** Nested empty arrays, then a card number: slow for V8 to parse and serialize again (shaping reshapes it). */
const HOSTILE = Buffer.from(
  `{"items":[${'[[[[[[[[]]]]]]]],'.repeat(Math.floor((4 * MIB - 100) / 17))}"4111111111111111"]}`,
);
const PLAIN = Buffer.from(JSON.stringify({ rows: Array.from({ length: 6000 }, (_, i) => ({ id: i, note: 'row' })) }));
describe('security: a body whose call timed out does not hold the body thread', function () {
  this.timeout(60_000);

  it('abandons it with its thread; a plain body behind it waits for a fresh thread, not for the hostile body', async () => {
    const compiled = compileResponseControls({ response: { redact_patterns: { card: '\\b[0-9]{13,16}\\b' } } }, true);
    assert.ok('shaper' in compiled && compiled.shaper !== undefined);
    const shaper = compiled.shaper;
    // what one hostile body costs, worked out here once
    const t0 = performance.now();
    assert.equal(bodyResult(HOSTILE, 'application/json', 8 * MIB, shaper).ok, true);
    const hostileMs = performance.now() - t0;

    const thread = new BodyThread();
    try {
      // a thread's start and a plain body: what the fresh thread below costs
      const t1 = performance.now();
      assert.equal((await thread.result(Buffer.from(PLAIN), 'application/json', 8 * MIB, undefined)).ok, true);
      const freshMs = performance.now() - t1;
      let wanted = true;
      const hostile = [
        thread.result(Buffer.from(HOSTILE), 'application/json', 8 * MIB, shaper, () => wanted),
        thread.result(Buffer.from(HOSTILE), 'application/json', 8 * MIB, shaper, () => wanted),
      ];
      await new Promise((resolve) => setTimeout(resolve, 20));
      const started = performance.now();
      wanted = false; // both calls timed out
      thread.drop();
      const plain = await thread.result(Buffer.from(PLAIN), 'application/json', 8 * MIB, undefined);
      const plainMs = performance.now() - started;
      assert.deepEqual(asText(plain), bodyResult(PLAIN, 'application/json', 8 * MIB, undefined));
      // behind the hostile body the thread works on, it would have waited most of hostileMs
      assert.ok(
        plainMs < freshMs + hostileMs / 2,
        `plain body after ${plainMs.toFixed(0)} ms; a fresh thread took ${freshMs.toFixed(0)} ms, a hostile body ${hostileMs.toFixed(0)} ms`,
      );
      for (const outcome of await Promise.all(hostile)) assert.equal(outcome.ok, false);
    } finally {
      await thread.close();
    }
  });
});
