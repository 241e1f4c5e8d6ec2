/**
 * What a gateway loads at start: the heavy optional modules (jose for OAuth, prom-client for metrics, yaml for a
 * YAML config, the OpenAPI parser) only when its config needs them, RE2 (re2js) only for a pattern V8 does not
 * answer, and undici only at the first service call. Each case runs in a fresh Node process (this
 * process has loaded everything already), starts the gateway from the sources and lists the packages loaded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { botConfig, objectSchema, tool } from '../helpers/config';

const ROOT = path.resolve(__dirname, '../..');
const OPTIONAL = ['jose', 'prom-client', 'yaml', '@readme/openapi-parser'];

/** The packages (under node_modules) loaded once `startGateway` has answered for `config`. */
function packagesLoadedFor(config: GatewayConfig): string[] {
  const script = `
    const { startGateway, silentLogger } = require('./src/gateway');
    (async () => {
      const gw = await startGateway({ config: ${JSON.stringify(config)}, port: 0, host: '127.0.0.1', logger: silentLogger });
      const loaded = new Set();
      for (const file of Object.keys(require.cache)) {
        const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(file);
        if (m) loaded.add(m[1]);
      }
      await gw.close();
      process.stdout.write(JSON.stringify([...loaded].sort()));
    })();`;
  const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as string[];
}

describe('modules a gateway loads', function () {
  this.timeout(120_000);
  const tools = [
    tool('lookup', 'http://127.0.0.1:9/lookup', { inputSchema: objectSchema({ id: { type: 'string' } }) }),
  ];

  it('loads none of jose, prom-client, yaml or the OpenAPI parser for a plain config with static tokens', () => {
    const loaded = packagesLoadedFor(botConfig(tools));
    assert.deepEqual(
      OPTIONAL.filter((p) => loaded.includes(p)),
      [],
    );
    assert.ok(loaded.includes('ajv'), loaded.join(', '));
    // undici's agent loads on the first service call, not at start
    assert.equal(loaded.includes('undici'), false, loaded.join(', '));
  });

  it('loads RE2 only for a pattern of unbounded repetition, not for a bounded one', () => {
    const withPattern = (pattern: string) =>
      packagesLoadedFor(
        botConfig([
          tool('lookup', 'http://127.0.0.1:9/lookup', {
            inputSchema: objectSchema({ id: { type: 'string', pattern } }),
          }),
        ]),
      );
    assert.equal(withPattern('^C-[0-9]{4}$').includes('re2js'), false);
    assert.equal(withPattern('^C-[0-9]+$').includes('re2js'), true);
  });

  it('loads prom-client once metrics are on', () => {
    const loaded = packagesLoadedFor(botConfig(tools, { metrics: true }));
    assert.ok(loaded.includes('prom-client'), loaded.join(', '));
    assert.equal(loaded.includes('jose'), false);
  });
});
