/**
 * What the compiled gateway (dist, as `serve` and the image run it) loads of ajv at start: the config document is
 * checked by the build's generated code, and the subset compiler takes generated tool schemas, so ajv's compiler
 * is loaded only once a schema needs it. Each case loads a config file in a fresh Node process (this one has
 * loaded everything already) and lists the ajv files loaded; `npm run build` first.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { generateInputSchema } from '../../src/schema';
import { botConfig, objectSchema, tool } from '../helpers/config';
import { tempDir } from '../helpers/temp-dir';

const DIST = path.resolve(__dirname, '../../dist/src');

/** The files under node_modules/ajv loaded once the compiled gateway has built its state for `config`. */
function ajvFilesLoadedFor(config: GatewayConfig): string[] {
  const file = path.join(tempDir('startup-modules-'), 'gateway.json');
  writeFileSync(file, JSON.stringify(config));
  const script = `
    const { loadGatewayConfig } = require(${JSON.stringify(path.join(DIST, 'config'))});
    const { buildToolSet } = require(${JSON.stringify(path.join(DIST, 'gateway/tools/tool-set'))});
    const set = buildToolSet(loadGatewayConfig(${JSON.stringify(file)}).tools, () => undefined);
    const refusals = [...set.tools.values()].filter((t) => t.validator === undefined).length;
    const files = Object.keys(require.cache).filter((f) => f.includes('/node_modules/ajv/'));
    process.stdout.write(JSON.stringify({ refusals, files: files.map((f) => f.split('/node_modules/ajv/')[1]) }));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const { refusals, files } = JSON.parse(r.stdout) as { refusals: number; files: string[] };
  assert.equal(refusals, 0);
  return files.sort();
}

describe('ajv at start-up of the compiled gateway', function () {
  this.timeout(120_000);

  it("loads only ajv's runtime helpers for a config whose schemas the subset compiler takes", () => {
    const schema = generateInputSchema({
      id: { type: 'string', required: true, pattern: '^C-[0-9]{4}$', maxLength: 6 },
      when: { type: 'string', format: 'date-time' },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
    });
    const files = ajvFilesLoadedFor(botConfig([tool('lookup', 'http://127.0.0.1:9/lookup', { inputSchema: schema })]));
    assert.ok(files.length > 0, 'the generated config validator requires ajv/dist/runtime/*');
    assert.deepEqual(
      files.filter((f) => !f.startsWith('dist/runtime/')),
      [],
    );
  });

  it("loads ajv's compiler once a tool schema needs it", () => {
    const schema = { ...objectSchema({ id: { type: 'string' } }), minProperties: 1 };
    const files = ajvFilesLoadedFor(botConfig([tool('lookup', 'http://127.0.0.1:9/lookup', { inputSchema: schema })]));
    assert.ok(files.includes('dist/2020.js') && files.includes('dist/core.js'), files.join(', '));
  });
});
