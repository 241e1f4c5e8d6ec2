/** The worked example of docs/openapi.md, served by a gateway in front of the real support-desk backend. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Gateway, OpenApiServices } from '../../constructs';
import { startSupportDeskBackend, type RunningSupportDeskBackend } from '../../examples/support-desk/backend';
import { startInProcessGateway, type InProcessGateway } from '../helpers/in-process-gateway';
import { openSession, type McpSession } from '../helpers/mcp';
import { withBackendOrigin } from '../helpers/config';
import { configOf, newStack, synth } from '../constructs/synth';
import { compileResponseControls } from '../../src/response';
import type { GatewayConfig } from '../../src/config';

const DOCUMENT = path.join(__dirname, '..', '..', 'examples', 'support-desk', 'openapi', 'support-desk-api.yaml');
const PAGE = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'openapi.md'), 'utf8');

const SERVER = 'http://support-desk-api:8080';

describe('docs/openapi.md worked example', () => {
  let backend: RunningSupportDeskBackend;
  let gateway: InProcessGateway;
  let session: McpSession;
  let config: GatewayConfig;

  before(async () => {
    backend = await startSupportDeskBackend({ port: 0 });
    const stack = newStack();
    const desk = new OpenApiServices(stack, 'desk', {
      document: DOCUMENT,
      operations: ['getTicket', 'createTask'],
      overrides: { createTask: { name: 'create_task', timeoutMs: 5000 } },
    });
    new Gateway(stack, 'agents', { services: [...desk.services], auth: 'none' });
    config = configOf(synth(stack), 'agents');
    // the page's entry names the document's server: the only difference from the served config
    gateway = await startInProcessGateway(withBackendOrigin(config, SERVER, backend.url));
    session = await openSession(gateway.url);
  });

  after(async () => {
    await gateway?.close();
    await backend?.close();
  });

  it('lists the two tools with the schemas the document declares', async () => {
    const res = await session.request('tools/list');
    const tools = res.message?.result?.tools as { name: string; inputSchema: unknown }[];
    assert.deepEqual(
      tools.map((t) => t.name),
      ['getTicket', 'create_task'],
    );
    assert.deepEqual(tools[0].inputSchema, {
      type: 'object',
      properties: { id: { type: 'string', description: 'Ticket id, e.g. T-0001', pattern: '^T-[0-9]{4}$' } },
      required: ['id'],
      additionalProperties: false,
    });
  });

  it("shows getTicket's config entry exactly as synthesized, and its output refusal as the gateway words it", () => {
    const block = /`getTicket` becomes this tool[\s\S]*?```json\n([\s\S]*?)```/.exec(PAGE);
    assert.ok(block, 'the config entry block of docs/openapi.md');
    assert.deepEqual(JSON.parse(block[1]), config.tools[0]);
    const shaper = compileResponseControls(config.tools[0], true);
    assert.ok('shaper' in shaper && shaper.shaper !== undefined);
    const ticket = { id: 'T-1001', subject: 'Cannot log in', status: 'open', priority: 'high' };
    const outcome = shaper.shaper.shape(JSON.stringify(ticket), 'application/json', 1 << 20);
    const quoted = /``(Service returned an invalid response: [^`]*`priority`[^`]*)``/.exec(PAGE)?.[1];
    assert.deepEqual(outcome, { ok: false, code: 'OUTPUT_INVALID', message: quoted });
  });

  it('reads a ticket through getTicket and refuses a malformed id', async () => {
    const ok = await session.callTool('getTicket', { id: 'T-1001' });
    assert.equal(ok.message?.result?.structuredContent?.id, 'T-1001', ok.text);
    const bad = await session.callTool('getTicket', { id: '1001' });
    assert.equal(bad.message?.result?.isError, true, bad.text);
    assert.deepEqual(bad.message?.result?.content, [
      { type: 'text', text: 'Invalid value for `id`: expected to match pattern ^T-[0-9]{4}$' },
    ]);
  });

  it('creates a task with a JSON body, and refuses one without its required description', async () => {
    const refused = await session.callTool('create_task', { title: 'Call back' });
    assert.equal(refused.message?.result?.isError, true, refused.text);
    assert.deepEqual(refused.message?.result?.content, [
      { type: 'text', text: 'Missing required parameter: `description`' },
    ]);
    const created = await session.callTool('create_task', { title: 'Call back', description: 'About T-1001' });
    assert.equal(created.message?.result?.structuredContent?.title, 'Call back', created.text);
  });
});
