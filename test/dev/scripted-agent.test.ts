import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentStep, runScriptedAgent } from '../../examples/support-desk/agent/scripted-agent';
import { DevOptions, DevSession, parseDevArgs, startDevSession } from '../../src/dev';
import { silentLogger } from '../../src/gateway';

const root = path.resolve(__dirname, '../..');

async function session(dir: string, auditDir: string): Promise<DevSession> {
  return startDevSession(parseDevArgs([dir, '--port', '0', '--audit-dir', auditDir], root) as DevOptions, {
    gatewayLogger: silentLogger,
  });
}

const kinds = (steps: readonly AgentStep[]): string[] => steps.map((s) => s.kind);

describe('scripted agent', function () {
  this.timeout(90_000);
  let dev: DevSession | undefined;
  let auditDir: string;
  beforeEach(() => {
    auditDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-test-'));
  });
  afterEach(async () => {
    await dev?.close();
    dev = undefined;
    fs.rmSync(auditDir, { recursive: true, force: true });
  });

  it('repairs a malformed create_ticket from the refusal text alone and succeeds within two retries (support-desk, tool_result channel)', async () => {
    dev = await session('examples/support-desk', auditDir);
    const agents = dev.gateways.find((g) => g.name === 'agents')!;
    const run = await runScriptedAgent({ url: agents.url, token: agents.token! });

    assert.equal(run.succeeded, true, JSON.stringify(run.steps, null, 2));
    assert.ok(run.retries <= 2);
    assert.deepEqual(kinds(run.steps), ['tools', 'call', 'refusal', 'repair', 'call', 'success']);
    assert.deepEqual((run.steps[0] as { names: readonly string[] }).names, [
      'get_customer',
      'search_tickets',
      'create_ticket',
      'health',
      'update_settings',
      'create_task',
      'get_ticket',
    ]);
    assert.deepEqual(run.steps[2], {
      kind: 'refusal',
      attempt: 0,
      channel: 'tool_result',
      message:
        'Missing required parameter: `body`; Invalid type for `customer.addresses[0].zip_code`: expected integer; Unknown parameter: `urgency`',
    });
    const ticket = run.result as { id: string; body: string; customer: { addresses: { zip_code: number }[] } };
    assert.match(ticket.id, /^T-\d{4}$/);
    assert.equal(ticket.customer.addresses[0].zip_code, 10115);
    assert.equal(typeof ticket.body, 'string');
  });

  it('reads refusals sent as JSON-RPC errors too (protocol channel)', async () => {
    dev = await session(path.join(__dirname, 'fixtures/tiny-app'), auditDir);
    const alpha = dev.gateways.find((g) => g.name === 'alpha')!;
    const run = await runScriptedAgent({
      url: alpha.url,
      token: alpha.token!,
      tool: 'echo',
      args: { times: '2', loud: true },
    });

    assert.equal(run.succeeded, true, JSON.stringify(run.steps, null, 2));
    assert.deepEqual(run.steps[2], {
      kind: 'refusal',
      attempt: 0,
      channel: 'protocol',
      message:
        'Missing required parameter: `word`; Invalid type for `times`: expected integer; Unknown parameter: `loud`',
    });
    assert.deepEqual(run.steps[3], {
      kind: 'repair',
      attempt: 0,
      notes: [
        'added `word` = "word (filled in by t"', // cut to the advertised maxLength 20
        'converted `times` from "2" to 2 (integer)',
        'dropped `loud`',
      ],
    });
    assert.deepEqual(run.result, { echo: 'word (filled in by t word (filled in by t' });
  });

  it('gives up after two retries when the refusal asks for something it cannot produce', async () => {
    dev = await session('examples/support-desk', auditDir);
    const agents = dev.gateways.find((g) => g.name === 'agents')!;
    const run = await runScriptedAgent({
      url: agents.url,
      token: agents.token!,
      tool: 'get_customer',
      args: { customer_id: 'Ada' },
    });

    assert.equal(run.succeeded, false);
    assert.deepEqual(kinds(run.steps), [
      'tools',
      'call',
      'refusal',
      'repair',
      'call',
      'refusal',
      'repair',
      'call',
      'refusal',
      'failure',
    ]);
    assert.deepEqual(run.steps[3], {
      kind: 'repair',
      attempt: 0,
      notes: ['could not repair `customer_id` (expected to match pattern ^C-[0-9]{4}$)'],
    });
    assert.deepEqual(run.steps[9], { kind: 'failure', attempt: 2, reason: 'still refused after 2 retries' });
  });
});
