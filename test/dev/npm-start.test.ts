import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isAlive, killGroup, portIsOpen, processTree, spawnGroup, Spawned } from './process-helpers';
import { eventually } from '../helpers/eventually';

const root = path.resolve(__dirname, '../..');

describe('npm start (as a user runs it)', function () {
  this.timeout(150_000);
  let start: Spawned | undefined;
  let auditDir: string;
  before(() => {
    auditDir = fs.mkdtempSync(path.join(os.tmpdir(), 'npm-start-test-'));
  });
  after(() => {
    killGroup(start?.child.pid);
    fs.rmSync(auditDir, { recursive: true, force: true });
  });

  it('builds, serves the example gateways with its backend, prints URL and token, and Ctrl-C stops every process it started', async () => {
    // Ephemeral ports so the test never collides with a gateway already on 8080/8081.
    start = spawnGroup('npm', ['start', '--', '--port', '0', '--audit-dir', auditDir], { cwd: root });
    const url = (await start.waitFor(/^MCP URL: (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m, 90_000))[1];
    await start.waitFor(/Press Ctrl-C to stop\./, 10_000);
    const out = start.output();
    const token = /^MCP URL: .*\nToken: (\S+)$/m.exec(out)![1];
    assert.match(
      out,
      /^Gateway agents \(stack support-desk; tools: get_customer, search_tickets, create_ticket, health, update_settings, create_task, get_ticket\)$/m,
    );
    assert.match(out, /^Gateway legacy \(stack support-desk; tools: get_customer, search_tickets, create_ticket\)$/m);
    // a flag the banner names is worded as npm passes it on (`npm start --fresh` would be npm's own, and dropped)
    assert.match(out, /\(kept across restarts; npm start -- --fresh makes new ones\)$/m);
    const dashboard = /^Dashboard: (http:\/\/127\.0\.0\.1:(\d+)\/)$/m.exec(out);
    assert.ok(dashboard, `no Dashboard: line in\n${out}`);
    const ports = [
      ...out.matchAll(/^MCP URL: http:\/\/127\.0\.0\.1:(\d+)\/mcp$/gm),
      ...out.matchAll(/Backend: http:\/\/127\.0\.0\.1:(\d+)$/gm),
    ].map((m) => Number(m[1]));
    assert.equal(ports.length, 3, out);
    ports.push(Number(dashboard[2]));

    const client = new Client({ name: 'npm-start-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['get_customer', 'search_tickets', 'create_ticket', 'health', 'update_settings', 'create_task', 'get_ticket'],
      );
      const refused = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-42' } });
      assert.equal(refused.isError, true);
      assert.deepEqual(refused.content, [
        { type: 'text', text: 'Invalid value for `customer_id`: expected to match pattern ^C-[0-9]{4}$' },
      ]);
      const ok = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-0001' } });
      assert.equal(ok.isError, undefined);
      assert.equal((ok.structuredContent as { name: string }).name, 'Ada Lovelace');
      // response controls, as the image applies them: the email is redacted in both the structured and the text form
      assert.equal((ok.structuredContent as { email: string }).email, '[redacted]');
      assert.ok(!JSON.stringify(ok).includes('ada@example.com'), JSON.stringify(ok));
      // the tool generated from the OpenAPI document reaches the same backend
      const ticket = await client.callTool({ name: 'get_ticket', arguments: { id: 'T-1001' } });
      assert.equal(ticket.isError, undefined, JSON.stringify(ticket));
      assert.equal((ticket.structuredContent as { subject: string }).subject, 'Cannot log in');
      const badId = await client.callTool({ name: 'get_ticket', arguments: { id: '1001' } });
      assert.deepEqual(badId.content, [
        { type: 'text', text: 'Invalid value for `id`: expected to match pattern ^T-[0-9]{4}$' },
      ]);
    } finally {
      await client.close();
    }
    // the example's audit dashboard reads the refusal from the audit log dev writes
    const agent = await eventually(
      async () => {
        const summary = (await (await fetch(`${dashboard[1]}api/summary?window=1h`)).json()) as {
          agents: {
            principal: string;
            refusals: number;
            tools: { tool: string; top_messages: { message: string }[] }[];
          }[];
        };
        const found = summary.agents.find((a) => a.principal === 'support-agents'); // the gateway's declared token id
        return found !== undefined && found.refusals >= 1 ? found : false;
      },
      { timeoutMs: 15_000, intervalMs: 250, what: 'the refusal on the dashboard' },
    );
    const tool = agent.tools.find((t) => t.tool === 'get_customer');
    assert.deepEqual(
      tool?.top_messages.map((m) => m.message),
      ['Invalid value for `customer_id`: expected to match pattern ^C-[0-9]{4}$'],
    );

    const pids = processTree(start.child.pid!);
    assert.ok(pids.length >= 3, `npm, dev and the backend run: ${pids}`);
    process.kill(-start.child.pid!, 'SIGINT'); // what Ctrl-C in a terminal does: SIGINT to the foreground group
    // npm re-raises a SIGINT it received once its script has exited; dev itself prints Stopped. and exits 0.
    assert.ok([0, 130, 'SIGINT'].includes(await start.exited), `npm ended with ${await start.exited}`);
    assert.match(start.output(), /\nStopped\.\n$/);
    await eventually(() => assert.deepEqual(pids.filter(isAlive), [], 'still running'), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    for (const port of ports) assert.equal(await portIsOpen(port), false, `port ${port} is still open`);
  });
});
