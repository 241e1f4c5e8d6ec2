/**
 * Attack suite (issue 20): a raw `inputSchema` that recurses through `$ref` and reaches the same value twice per
 * level (an `anyOf` whose branches both descend into `items` with the same `$ref`). Without the per-value memo
 * ajv walked 2^depth paths: 20 levels took 414 ms and 30 blocked the event loop for more than 30 s. The bound
 * below is a generous sanity check, not a benchmark (bench/worst-case.ts measures it).
 */
import assert from 'node:assert/strict';
import { compileToolSchema } from '../../src/validation';
import { startBackend, type TestBackend } from '../helpers/backend';
import { botConfig, tool } from '../helpers/config';
import { startSilentGateway } from '../helpers/in-process-gateway';
import { modernRequest, postModern } from '../helpers/modern';
import { BOT } from '../helpers/tokens';
import type { RunningGateway } from '../../src/gateway';

const BRANCHING = {
  type: 'object',
  properties: { tree: { $ref: '#/$defs/node' } },
  $defs: {
    node: {
      anyOf: [
        { type: 'array', items: { $ref: '#/$defs/node' } },
        { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 1000 },
        { type: 'integer' },
      ],
    },
  },
};

/** `depth` levels of nested arrays around `leaf`. */
function nested(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('attack: the exponential recursive raw schema', function () {
  this.timeout(30_000);

  it('validates 30 levels of data in well under 50 ms, valid or not, with the deepest violation named', () => {
    const compiled = compileToolSchema(BRANCHING);
    assert.ok(compiled.ok);
    for (const leaf of [1, 'x']) {
      const started = performance.now();
      const result = compiled.validator.validate({ tree: nested(30, leaf) });
      const ms = performance.now() - started;
      assert.ok(ms < 50, `30 levels took ${ms.toFixed(1)} ms`);
      assert.equal(result.valid, leaf === 1);
      if (!result.valid) {
        assert.equal(result.violations[0].path, `tree${'[0]'.repeat(30)}`);
        assert.equal(
          result.violations[0].message,
          `Invalid value for \`tree${'[0]'.repeat(30)}\`: expected to match one of the allowed schemas`,
        );
      }
    }
  });

  it('a verdict is never reused for a value changed between two validations (the memo lives for one run)', () => {
    const compiled = compileToolSchema(BRANCHING);
    assert.ok(compiled.ok);
    const inner: unknown[] = [1];
    const args = { tree: [[inner]] };
    assert.equal(compiled.validator.validate(args).valid, true);
    inner[0] = 'x';
    assert.equal(compiled.validator.validate(args).valid, false);
    inner[0] = 2;
    assert.equal(compiled.validator.validate(args).valid, true);
  });

  describe('over the wire', () => {
    let backend: TestBackend;
    let gateway: RunningGateway;
    before(async () => {
      backend = await startBackend();
      gateway = await startSilentGateway(
        botConfig([{ ...tool('tree', `${backend.url}/tree`, { method: 'POST' }), input_schema: BRANCHING }]),
      );
    });
    after(async () => {
      await gateway?.close();
      await backend?.close();
    });

    it('answers a 30-level refusal and a 30-level call promptly; /healthz is never held up', async () => {
      const started = performance.now();
      const health = fetch(gateway.url.replace(/\/mcp$/, '/healthz'));
      const [refused, passed] = await Promise.all([
        postModern(
          gateway.url,
          modernRequest('tools/call', { name: 'tree', arguments: { tree: nested(30, 'x') } }),
          BOT.token,
        ),
        postModern(
          gateway.url,
          modernRequest('tools/call', { name: 'tree', arguments: { tree: nested(30, 1) } }),
          BOT.token,
        ),
      ]);
      assert.equal((await health).status, 200);
      const ms = performance.now() - started;
      assert.ok(ms < 5_000, `took ${ms.toFixed(0)} ms`);
      assert.equal(refused.status, 200);
      assert.equal(refused.message?.error?.code, -32602);
      assert.equal(passed.message?.error, undefined, JSON.stringify(passed.message));
    });
  });
});
