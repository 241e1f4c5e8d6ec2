/**
 * `examples/support-desk` deployed for real, as docs/deploy.md walks it: `npx cdktf deploy` in the example's folder
 * with the toolchain's environment, on a Docker host with no image registry (`BASE_IMAGE` names a local Node
 * image; the gateway and backend images build with no network), then `cdktf destroy`, which leaves nothing behind.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCdktf } from '../deploy/cdktf-app';
import { dockerObjects, imageTags } from '../deploy/host';
import { deployTestRequirement, toolchainEnv } from '../deploy/toolchain';
import { modernRequest, postModern } from '../helpers/modern';
import { reusePortNode } from '../helpers/reuse-port-node';
import { command, docker, ensureDockerDaemon, type StartedDaemon } from '../image/docker';

const REPO = path.join(__dirname, '..', '..');
const EXAMPLE_DIR = path.join(REPO, 'examples', 'support-desk');
/** Where cdktf's local backend keeps the example's state (and its backup). */
const STATE_FILES = ['terraform.support-desk.tfstate', 'terraform.support-desk.tfstate.backup'];
/** Built from a Node that strips TypeScript types (the backend runs its sources as they are): no registry here. */
const BASE_IMAGE = 'local/node-base:node22';
const AGENTS_TOKEN = 'support-desk-agents-dev-token';
const LEGACY_TOKEN = 'support-desk-legacy-dev-token';

interface CallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { text: string }[];
}

describe('examples/support-desk deployed with cdktf deploy, on a host without Docker Hub', function () {
  const requirement = deployTestRequirement();
  if (requirement === undefined) {
    it('NOT RUN: needs a run that asks for it (CI=true or npm run test:deploy), the toolchain and Docker');
    return;
  }
  const log = (line: string): void => void process.stdout.write(`      [support-desk] ${line}\n`);
  let env: Record<string, string> = {};
  let daemon: StartedDaemon | undefined;
  let deployed = false;
  const cdktf = async (...args: string[]): Promise<string> => {
    const run = await runCdktf(EXAMPLE_DIR, args, env);
    assert.equal(run.code, 0, `cdktf ${args.join(' ')} failed in examples/support-desk:\n${run.output.slice(-3000)}`);
    log(`cdktf ${args[0]}: ${run.seconds.toFixed(1)} s`);
    return run.output;
  };
  const call = async (port: number, token: string, name: string, args: Record<string, unknown>) => {
    const res = await postModern(
      `http://127.0.0.1:${port}/mcp`,
      modernRequest('tools/call', { name, arguments: args }),
      token,
    );
    return (res.message as { result: CallResult }).result;
  };

  before(async function () {
    this.timeout(30 * 60_000);
    const existing = STATE_FILES.filter((f) => fs.existsSync(path.join(EXAMPLE_DIR, f)));
    // a deployment of this clone's own: the test would take it over and destroy it
    assert.deepEqual(existing, [], 'examples/support-desk holds the state of a deployment: destroy it first');
    const node = reusePortNode();
    if ('missing' in node) assert.fail(`the support-desk deploy test (${requirement}) ${node.missing}`);
    env = { ...toolchainEnv(log), BASE_IMAGE };
    daemon = await ensureDockerDaemon(log);
    const base = await command('bash', [path.join(REPO, 'scripts', 'node-base-image.sh'), BASE_IMAGE], {
      timeoutMs: 300_000,
      env: { ...process.env, NODE_BIN: node.path },
    });
    assert.equal(base.code, 0, `node-base-image.sh failed: ${base.stderr.trim().slice(-1000)}`);
  });

  after(async function () {
    this.timeout(10 * 60_000);
    if (deployed) await cdktf('destroy', '--auto-approve').catch((err: Error) => log(`clean-up: ${err.message}`));
    for (const file of STATE_FILES) fs.rmSync(path.join(EXAMPLE_DIR, file), { force: true });
    await daemon?.stop();
  });

  it('deploys both gateways, the backend built from its sources and the dashboard; agents never see an email; destroy leaves nothing', async function () {
    this.timeout(20 * 60_000);
    deployed = true;
    await cdktf('deploy', '--auto-approve');
    // the deploy waited for the backend's own health check (container.healthcheck: 'image')
    assert.equal(
      await docker(['inspect', '--format', '{{.State.Health.Status}}', 'support-desk-get_customer']),
      'healthy',
    );

    const customer = await call(8080, AGENTS_TOKEN, 'get_customer', { customer_id: 'C-0001' });
    assert.equal(customer.isError, undefined, JSON.stringify(customer));
    assert.equal(customer.structuredContent?.name, 'Ada Lovelace');
    assert.equal(customer.structuredContent?.email, '[redacted]');
    const tickets = await call(8080, AGENTS_TOKEN, 'get_ticket', { id: 'T-1001' });
    assert.doesNotMatch(JSON.stringify(tickets), /@example\.com/, 'get_ticket hands the agent an email address');
    const refused = await call(8080, AGENTS_TOKEN, 'get_customer', { customer_id: '42' });
    assert.equal(refused.isError, true, JSON.stringify(refused));
    assert.match(refused.content[0].text, /customer_id/);
    // legacy forwards unvalidated: the backend itself answers the id it does not know
    const legacy = await call(8081, LEGACY_TOKEN, 'get_customer', { customer_id: '42' });
    assert.equal(legacy.isError, true, JSON.stringify(legacy));
    assert.match(legacy.content[0].text, /404/, JSON.stringify(legacy));
    const dashboard = await fetch('http://127.0.0.1:8090/healthz');
    assert.equal(dashboard.status, 200);

    await cdktf('destroy', '--auto-approve');
    deployed = false;
    for (const kind of ['container', 'volume', 'network'] as const) {
      assert.deepEqual(
        (await dockerObjects(kind)).filter((n) => n.startsWith('support-desk-')),
        [],
        `${kind}s left behind`,
      );
    }
    assert.deepEqual(
      (await imageTags()).filter((t) => /support-desk/.test(t)),
      [],
      'images left behind',
    );
  });
});
