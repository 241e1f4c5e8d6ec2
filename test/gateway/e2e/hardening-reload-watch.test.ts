/**
 * Issue 10 item 9: `--watch` applies a config only once the file has been stable for a short interval, so a
 * non-atomic write (truncate, write half, pause, write the rest) is never applied half-written, even though the
 * first half of a YAML config cut at a line boundary is a valid config on its own.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../../src/gateway';
import { loadGatewayConfig } from '../../../src/config';
import { eventually, sleep } from '../../helpers/eventually';

function yamlConfig(tools: readonly string[]): string {
  const lines = [
    'version: 1',
    'gateway: {name: watched, auth: none, audit_log: false, host: 127.0.0.1, port: 8080}',
    'tools:',
  ];
  for (const name of tools) {
    lines.push(
      `  - name: ${name}`,
      '    description: d',
      '    input_schema: {type: object, properties: {}, additionalProperties: false}',
      `    backend: {url: "http://127.0.0.1:9/${name}", method: GET}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('hardening e2e: --watch reloads only a stable file', () => {
  let dir: string;
  let file: string;
  let gateway: RunningGateway;
  const reloads: Record<string, unknown>[] = [];

  beforeEach(async () => {
    reloads.length = 0;
    dir = mkdtempSync(join(tmpdir(), 'mcp-gw-watch-'));
    file = join(dir, 'gateway.yaml');
    writeFileSync(file, yamlConfig(['first']));
    gateway = await startGateway({
      config: loadGatewayConfig(file),
      configPath: file,
      watch: true,
      port: 0,
      host: '127.0.0.1',
      logger: (level, msg, fields) => {
        if (msg.startsWith('config reloaded') || msg.startsWith('reload refused')) reloads.push({ msg, ...fields });
      },
    });
  });
  afterEach(async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not apply a config written in two halves with a pause shorter than the stability window', async () => {
    const whole = yamlConfig(['a', 'b', 'c']);
    const cut = whole.indexOf('  - name: b');
    // The first half alone is a valid config with one tool: applying it would drop b and c.
    writeFileSync(file, whole.slice(0, cut));
    await sleep(250);
    appendFileSync(file, whole.slice(cut));
    await eventually(() => reloads.length > 0, { timeoutMs: 5000, what: 'the reload' });
    // any later reload would have happened by now: the poll of the file (each second) sees the change too
    await sleep(1_600);
    assert.deepEqual(
      reloads.map((r) => [r.msg, r.tools]),
      [['config reloaded', 3]],
    );
  });

  it('applies an atomic replacement (write a temp file, rename it over the config) once', async () => {
    const temp = join(dir, '.gateway.yaml.tmp');
    writeFileSync(temp, yamlConfig(['x', 'y']));
    renameSync(temp, file);
    await eventually(() => reloads.length > 0, { timeoutMs: 5000, what: 'the reload' });
    await sleep(1_600);
    assert.deepEqual(
      reloads.map((r) => [r.msg, r.tools]),
      [['config reloaded', 2]],
    );
  });
});
