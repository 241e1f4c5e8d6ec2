/** The worked example of docs/openapi.md, served by a gateway in front of the real support-desk backend. */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Gateway, OpenApiServices } from '../../constructs';
import { startSupportDeskBackend, type RunningSupportDeskBackend } from '../../examples/support-desk/backend';
import { startInProcessGateway, type InProcessGateway } from '../helpers/in-process-gateway';
import { openSession, type McpSession } from '../helpers/mcp';
import { configOf, newStack, synth } from '../constructs/synth';

const DOCUMENT = path.join(__dirname, '..', '..', 'examples', 'support-desk', 'openapi', 'support-desk-api.yaml');

describe('docs/openapi.md worked example', () => {
  let backend: RunningSupportDeskBackend;
  let gateway: InProcessGateway;
  let session: McpSession;

  before(async () => {
    backend = await startSupportDeskBackend({ port: 0 });
    const stack = newStack();
    const desk = new OpenApiServices(stack, 'desk', {
      document: DOCUMENT,
      baseUrl: backend.url,
      operations: ['getTicket', 'createTask'],
      overrides: { createTask: { name: 'create_task', timeoutMs: 5000 } },
    });
    new Gateway(stack, 'agents', { services: [...desk.services], auth: 'none' });
    gateway = await startInProcessGateway(configOf(synth(stack), 'agents'));
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

  it('reads a ticket through getTicket and refuses a malformed id', async () => {
    const ok = await session.callTool('getTicket', { id: 'T-1001' });
    assert.equal(ok.message?.result?.structuredContent?.id, 'T-1001', ok.text);
    const bad = await session.callTool('getTicket', { id: '1001' });
    assert.equal(bad.message?.error?.message, 'Invalid value for `id`: expected to match pattern ^T-[0-9]{4}$');
  });

  it('creates a task with a JSON body, and refuses one without its required description', async () => {
    const refused = await session.callTool('create_task', { title: 'Call back' });
    assert.equal(refused.message?.error?.message, 'Missing required parameter: `description`');
    const created = await session.callTool('create_task', { title: 'Call back', description: 'About T-1001' });
    assert.equal(created.message?.result?.structuredContent?.title, 'Call back', created.text);
  });
});
