import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DevGateway, DevOptions, DevSession, parseDevArgs, startDevSession } from '../../src/dev';
import { silentLogger } from '../../src/gateway';

const root = path.resolve(__dirname, '../..');
const inspectorCli = path.join(root, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');

/**
 * Runs `mcp-inspector-cli --cli URL --transport http --method … --header "Authorization: Bearer …"` and parses its JSON.
 * Its cwd is test/: inspector-cli 1.0.3 checks `fs.existsSync('../package.json')` relative to the cwd but imports
 * it relative to its own module, so it only finds its package.json when the cwd's parent has one (any
 * directory inside a project does).
 */
async function inspector(gateway: DevGateway, args: readonly string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      inspectorCli,
      '--cli',
      gateway.url,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${gateway.token}`,
      ...args,
    ],
    { cwd: path.join(root, 'test'), timeout: 30_000 },
  );
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}

describe('MCP Inspector CLI against dev', function () {
  this.timeout(90_000);
  let dev: DevSession;
  let auditDir: string;
  let agents: DevGateway;
  before(async () => {
    auditDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inspector-test-'));
    dev = await startDevSession(
      parseDevArgs(['examples/support-desk', '--port', '0', '--audit-dir', auditDir], root) as DevOptions,
      { gatewayLogger: silentLogger },
    );
    agents = dev.gateways.find((g) => g.name === 'agents')!;
  });
  after(async () => {
    await dev?.close();
    fs.rmSync(auditDir, { recursive: true, force: true });
  });

  it('lists the tools of the agents gateway', async () => {
    const listed = (await inspector(agents, ['--method', 'tools/list'])) as { tools: { name: string }[] };
    assert.deepEqual(
      listed.tools.map((t) => t.name),
      ['get_customer', 'search_tickets', 'create_ticket', 'health', 'update_settings', 'create_task', 'get_ticket'],
    );
  });

  it('works from the repository root with the README command: npm run inspect -- URL …', async () => {
    // npm_* variables of the running `npm test` would point the child npm at this package's settings: drop them
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const { stdout } = await promisify(execFile)(
      'npm',
      [
        'run',
        '--silent',
        'inspect',
        '--',
        agents.url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${agents.token}`,
        '--method',
        'tools/list',
      ],
      { cwd: root, env, timeout: 60_000 },
    );
    const listed = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { tools: { name: string }[] };
    assert.equal(listed.tools.length, 7);
  });

  it('calls a tool, and gets a refusal naming the field for an out-of-range value', async () => {
    const ok = (await inspector(agents, [
      '--method',
      'tools/call',
      '--tool-name',
      'get_customer',
      '--tool-arg',
      'customer_id=C-0002',
    ])) as {
      structuredContent: { name: string };
    };
    assert.equal(ok.structuredContent.name, 'Grace Hopper');
    const refused = await inspector(agents, [
      '--method',
      'tools/call',
      '--tool-name',
      'search_tickets',
      '--tool-arg',
      'limit=500',
    ]);
    assert.deepEqual(refused, {
      content: [{ type: 'text', text: 'Invalid value for `limit`: expected <= 100' }],
      structuredContent: {
        violations: [{ path: 'limit', rule: 'maximum', message: 'Invalid value for `limit`: expected <= 100' }],
      },
      isError: true,
    });
  });
});
