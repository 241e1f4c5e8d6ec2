/**
 * The "try it" recipe of docs/rate-limits.md, run as the page writes it: its shell blocks (a redis-server with a
 * password, a config that counts 3 calls a minute in it, `serve`, four curls and `/readyz`), a second `serve` of
 * the same file, then the page's shutdown command. Only the ports are swapped for free ones, and `npx
 * cdktf-mcp-gateway` for this clone's built CLI. What the page says the output shows is asserted, so an edit of
 * the page or of the gateway that breaks the recipe fails here.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawnGroup, type Spawned, stopGroup } from '../dev/process-helpers';
import { freePort } from '../helpers/free-port';
import { NEEDS_REDIS, REDIS_SERVER } from '../helpers/redis-server';
import { sleep } from '../helpers/eventually';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const PAGE = readFileSync(path.join(ROOT, 'docs/rate-limits.md'), 'utf8');

/** The page's fenced `sh` block that contains `marker`. */
function shBlock(marker: string): string {
  const block = [...PAGE.matchAll(/^```sh\n([^]*?)^```$/gm)].map((m) => m[1]).find((b) => b.includes(marker));
  assert.ok(block !== undefined, `docs/rate-limits.md has no sh block with ${marker}`);
  return block;
}

/** The responses of `curl -si` in `output`, each its status line, headers (lower-cased) and body. */
function responses(output: string): { status: string; headers: string; body: string }[] {
  return output
    .split(/^(?=HTTP\/1\.1 )/m)
    .filter((r) => r.startsWith('HTTP/1.1 '))
    .map((r) => {
      const [head, body = ''] = r.split(/\r\n\r\n/);
      const [status, ...headers] = head.split('\r\n');
      return { status, headers: headers.join('\n').toLowerCase(), body };
    });
}

if (REDIS_SERVER === undefined) {
  describe('docs/rate-limits.md: the local store recipe', () => it.skip(`${NEEDS_REDIS}: the recipe as written`));
} else {
  describe('docs/rate-limits.md: the local store recipe', function () {
    this.timeout(90_000);
    const dir = mkdtempSync(path.join(tmpdir(), 'limits-recipe-'));
    const served: Spawned[] = [];
    let ports: Record<string, string> = {};
    /** The page's text with its ports and `npx cdktf-mcp-gateway` made this test's. */
    const local = (text: string): string =>
      text.replace(/\b(6390|8080|8081|8082)\b/g, (p) => ports[p]).replaceAll('npx cdktf-mcp-gateway', `node ${CLI}`);
    const bash = (script: string): string =>
      execFileSync('bash', ['-c', script], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 30_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });

    before(async () => {
      ports = Object.fromEntries(
        await Promise.all(['6390', '8080', '8081', '8082'].map(async (p) => [p, String(await freePort())])),
      );
    });
    after(async () => {
      for (const s of served) await stopGroup(s);
      // the page's own way to stop the store, then a kill in case the test failed before it ran
      const shutdown = /`(redis-cli -p 6390 [^`]*shutdown[^`]*)`/.exec(PAGE)?.[1];
      if (shutdown !== undefined) {
        try {
          bash(local(shutdown));
        } catch {
          /* already stopped */
        }
      }
      try {
        execFileSync('pkill', ['-f', `redis-server 127.0.0.1:${ports['6390']}`]);
      } catch {
        /* none left */
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses the fourth call of the minute with 429 and -32023, says the count is shared, and a second serve refuses at once', async () => {
      const setup = shBlock('redis-server --port 6390');
      const serveLine = setup.split('\n').find((l) => l.includes('npx cdktf-mcp-gateway serve'));
      assert.ok(serveLine !== undefined, 'the setup block runs serve');
      const calls = shBlock('for i in 1 2 3 4');
      // the limit counts in windows of a calendar minute: the four calls and the second serve's one fall in one
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 40_000) await sleep(60_000 - intoMinute + 100);

      const first = spawnGroup('bash', ['-c', local(setup)], { cwd: dir });
      served.push(first);
      await first.waitFor(/"msg":"listening"/, 30_000);
      const output = bash(local(calls));
      const answers = responses(output);
      assert.equal(answers.length, 4, output);
      for (const a of answers.slice(0, 3)) {
        assert.equal(a.status.trim(), 'HTTP/1.1 200 OK');
        assert.match(a.body, /"isError":true/);
        assert.match(a.body, /Service unavailable: connection refused/);
      }
      const refused = answers[3];
      assert.equal(refused.status.trim(), 'HTTP/1.1 429 Too Many Requests');
      assert.match(refused.headers, /^retry-after: \d+$/m);
      assert.match(refused.headers, /^ratelimit-limit: 3$/m);
      assert.match(refused.headers, /^ratelimit-remaining: 0$/m);
      assert.match(refused.body, /\{"code":-32023,"message":"Rate limit reached: 3 calls per minute"/);
      const readyz = output.slice(output.lastIndexOf('HTTP/1.1 429'));
      assert.match(readyz, /"rate_limits":"shared"/);
      assert.match(readyz, /"store":"available"/);

      // "A second serve of the same file on --port 8082 refuses at once"
      const second = spawnGroup('bash', ['-c', local(serveLine.replace('--port 8080', '--port 8082'))], { cwd: dir });
      served.push(second);
      await second.waitFor(/"msg":"listening"/, 30_000);
      const oneCall = calls.split('\n').filter((l) => !/^\s*(for|done|echo)\b/.test(l) && !l.includes('/readyz'));
      const again = responses(bash(local(oneCall.join('\n').replaceAll('8080', '8082'))));
      assert.equal(again.length, 1);
      assert.equal(again[0].status.trim(), 'HTTP/1.1 429 Too Many Requests');
    });
  });
}
