/**
 * docs/gateway.md "Reload": the new config is loaded, compiled, then swapped atomically. Under traffic every call sees
 * exactly one config (never A's schema with B's backend); an invalid config is refused, logged, and the running
 * one kept. Over SIGHUP and `--watch`; `reload()` itself is tested in test/gateway/start-gateway.test.ts.
 */
import * as assert from 'node:assert/strict';
import type { GatewayConfig } from '../../../src/config';
import { startBackend, type TestBackend } from '../../helpers/backend';
import { gatewayConfig, objectSchema, tool } from '../../helpers/config';
import { type GatewayProcess, killAllGatewayProcesses, startGatewayProcess } from '../../helpers/gateway-process';
import { type McpSession, openSession } from '../../helpers/mcp';
import { eventually, sleep } from '../../helpers/eventually';
import { makeToken } from '../../helpers/tokens';

type Which = 'A' | 'B';
const bot = makeToken('reload-bot');

/**
 * Config A: `echo` requires `a`, calls `/config-a`, plus tool `only_a`; config B likewise with `b`. A call that
 * was validated by one and forwarded by the other would be visible as a mix.
 */
function configFor(which: Which, backendUrl: string): GatewayConfig {
  const key = which.toLowerCase();
  return gatewayConfig({
    tokens: [bot],
    tools: [
      tool('echo', `${backendUrl}/config-${key}`, { inputSchema: objectSchema({ [key]: { type: 'integer' } }, [key]) }),
      tool(`only_${key}`, `${backendUrl}/only-${key}`),
    ],
  });
}

const refusalOf = (sent: Which): string => {
  // The schema of the other config: its required key missing, ours unknown.
  const [mine, theirs] = sent === 'A' ? ['a', 'b'] : ['b', 'a'];
  return `Missing required parameter: \`${theirs}\`; Unknown parameter: \`${mine}\``;
};

/** Which config answered a call that sent `{a:1}` (A) or `{b:1}` (B); `undefined` for a mix or a failure. */
async function callAndClassify(session: McpSession, sent: Which): Promise<Which | string> {
  const key = sent.toLowerCase();
  const res = await session.callTool('echo', { [key]: 1 });
  const path = res.message?.result?.structuredContent?.path;
  if (path === `/config-${key}`) return sent;
  if (res.message?.error?.code === -32602 && res.message.error.message === refusalOf(sent))
    return sent === 'A' ? 'B' : 'A';
  return `sent ${sent}: HTTP ${res.status} ${res.text.slice(0, 200)}`;
}

async function waitForConfig(session: McpSession, which: Which): Promise<void> {
  await eventually(async () => (await callAndClassify(session, 'A')) === which, {
    intervalMs: 25,
    what: `config ${which} to be in effect`,
  });
}

describe('gateway e2e: reload', function () {
  this.timeout(30_000);
  let backend: TestBackend;

  before(async () => {
    backend = await startBackend({ keepReceived: 10 });
  });

  after(async () => {
    await killAllGatewayProcesses();
    await backend?.close();
  });

  describe('SIGHUP under traffic', () => {
    let gw: GatewayProcess;
    let sessions: McpSession[];

    before(async () => {
      gw = await startGatewayProcess({ config: configFor('A', backend.url) });
      sessions = await Promise.all([1, 2, 3].map(() => openSession(gw.url, { token: bot.token })));
    });

    it('answers every call consistently with exactly one config while A and B swap 6 times', async () => {
      let stop = false;
      const seen: Record<Which, number> = { A: 0, B: 0 };
      const mixes: string[] = [];
      const worker = async (w: number): Promise<void> => {
        for (let n = 0; !stop; n++) {
          const sent: Which = (n + w) % 2 === 0 ? 'A' : 'B';
          try {
            const which = await callAndClassify(sessions[w % sessions.length], sent);
            if (which === 'A' || which === 'B') seen[which]++;
            else mixes.push(which);
          } catch (err) {
            mixes.push(`sent ${sent}: ${String(err)}`);
          }
        }
      };
      const workers = Array.from({ length: 10 }, (_, w) => worker(w));
      let current: Which = 'A';
      for (let swap = 0; swap < 6; swap++) {
        await sleep(150);
        current = current === 'A' ? 'B' : 'A';
        gw.writeConfig(configFor(current, backend.url));
        gw.signal('SIGHUP');
      }
      await sleep(150);
      stop = true;
      await Promise.all(workers);
      assert.deepEqual(mixes.slice(0, 5), [], `${mixes.length} calls saw no single config`);
      assert.ok(seen.A > 0 && seen.B > 0, `both configs must have answered: ${JSON.stringify(seen)}`);
      await waitForConfig(sessions[0], current);
    });

    it('refuses an invalid config on SIGHUP, logs it, and keeps serving the running tools', async () => {
      gw.writeConfig(configFor('B', backend.url));
      gw.signal('SIGHUP');
      await waitForConfig(sessions[0], 'B');

      const offset = gw.outputOffset();
      const valid = configFor('A', backend.url);
      gw.writeConfig(JSON.stringify({ ...valid, gateway: { ...valid.gateway, port: 'eighty' } }));
      gw.signal('SIGHUP');
      const line = await gw.waitForOutput(/^.*gateway\.port.*$/m, 5_000, offset);
      assert.match(line, /reload|refus|invalid|keep/i);

      assert.equal(await callAndClassify(sessions[1], 'B'), 'B');
      const list = await sessions[2].request('tools/list', {});
      assert.deepEqual(list.message?.result?.tools?.map((t: { name: string }) => t.name).sort(), ['echo', 'only_b']);
      assert.equal(gw.child.exitCode, null, 'the gateway exited');
    });

    it('says in its log line what the reload changed, by name, and that a reload of the same file changed nothing', async () => {
      const base = configFor('B', backend.url);
      const reloaded = async (config: GatewayConfig): Promise<Record<string, unknown>> => {
        const offset = gw.outputOffset();
        gw.writeConfig(config);
        gw.signal('SIGHUP');
        return JSON.parse(await gw.waitForOutput(/^.*"msg":"config reloaded".*$/m, 5_000, offset)) as Record<
          string,
          unknown
        >;
      };
      await reloaded(base);
      const toggled = await reloaded({
        ...base,
        gateway: { ...base.gateway, validate_input: false },
        tools: [{ ...base.tools[0], description: 'changed' }, tool('only_c', `${backend.url}/only-c`)],
      });
      assert.deepEqual(toggled.settings_changed, ['gateway.validate_input']);
      assert.deepEqual(toggled.tools_added, ['only_c']);
      assert.deepEqual(toggled.tools_removed, ['only_b']);
      assert.deepEqual(toggled.tools_changed, ['echo']);
      assert.equal(toggled.unchanged, undefined);

      const again = await reloaded(base);
      assert.deepEqual(again.settings_changed, ['gateway.validate_input']);
      const same = await reloaded(base);
      assert.equal(same.unchanged, true, JSON.stringify(same));
      for (const field of ['settings_changed', 'tools_added', 'tools_removed', 'tools_changed'])
        assert.equal(same[field], undefined, field);
      await waitForConfig(sessions[0], 'B');
    });

    it('refuses a config whose file is not JSON or YAML and keeps serving', async () => {
      const offset = gw.outputOffset();
      gw.writeConfig('{ "version": 1, "gateway": ');
      gw.signal('SIGHUP');
      await gw.waitForOutput(/reload|refus|invalid|config/i, 5_000, offset);
      assert.equal(await callAndClassify(sessions[0], 'B'), 'B');
    });
  });

  describe('--watch', () => {
    it('reloads when the config file changes', async () => {
      const gw = await startGatewayProcess({ config: configFor('A', backend.url), extraArgs: ['--watch'] });
      const session = await openSession(gw.url, { token: bot.token });
      assert.equal(await callAndClassify(session, 'A'), 'A');
      gw.writeConfig(configFor('B', backend.url));
      await waitForConfig(session, 'B');
      await gw.stop();
    });
  });
});
