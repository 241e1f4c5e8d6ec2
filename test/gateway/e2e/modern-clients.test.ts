/**
 * Both MCP eras on one endpoint, through the official clients (issue 12): `@modelcontextprotocol/client` 2.x
 * pinned to 2026-07-28, in `auto` mode and in `legacy` mode, and the 1.x SDK client. Each connects, lists, calls,
 * gets a validation refusal with the exact message in each `validation_errors` channel, and hears
 * `notifications/tools/list_changed` after a reload (a `subscriptions/listen` stream for the modern era, the GET
 * stream for 2025). The audit record of a refusal is the same in both eras except `session` (null when modern) and
 * the client.
 */
import assert from 'node:assert/strict';
import {
  Client as Client2,
  ProtocolError,
  StreamableHTTPClientTransport as Transport2,
} from '@modelcontextprotocol/client';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ValidationErrorsChannel } from '../../../src/config';
import { readAuditLog, waitForAuditRecords } from '../../helpers/audit-log';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, supportDeskTools } from '../../helpers/config';
import { eventually, within } from '../../helpers/eventually';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { connectSdkClient } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';

const REFUSED_ARGS = { subject: 'x', customer: { name: 'Ada', addresses: [{}] } };
const MESSAGE = 'Missing required parameter: `customer.addresses[0].zip_code`';
const VIOLATIONS = [{ path: 'customer.addresses[0].zip_code', rule: 'required', message: MESSAGE }];
const TOOL_NAMES = ['get_customer', 'create_ticket', 'create_task', 'health'];

/** What a test needs from a connected client, whichever generation it is. */
interface Connected {
  readonly protocolVersion: string | undefined;
  listToolNames(): Promise<string[]>;
  /** A `tools/call`: its result, or the JSON-RPC error it was refused with. */
  call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }>;
  /** Resolves on the next `notifications/tools/list_changed`. */
  listChanged(): Promise<void>;
  close(): Promise<void>;
}

type Mode = { pin: '2026-07-28' } | 'auto' | 'legacy';

async function connectV2(url: string, mode: Mode, name: string): Promise<Connected> {
  let onChanged: (() => void) | undefined;
  const client = new Client2(
    { name, version: '2.4.0' },
    {
      versionNegotiation: { mode },
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onChanged?.() } },
    },
  );
  const transport = new Transport2(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${BOT.token}` } },
  });
  await client.connect(transport);
  return {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (tool, args) => {
      try {
        return { result: await client.callTool({ name: tool, arguments: args }) };
      } catch (err) {
        assert.ok(err instanceof ProtocolError, `expected a ProtocolError, got ${String(err)}`);
        return { error: { code: err.code, message: err.message, data: err.data } };
      }
    },
    listChanged: () =>
      new Promise((resolve) => {
        onChanged = resolve;
      }),
    close: () => client.close(),
  };
}

async function connectV1(url: string, name: string): Promise<Connected> {
  const { client, transport, close } = await connectSdkClient(url, BOT.token, { name, version: '1.32.0' });
  return {
    protocolVersion: transport.protocolVersion,
    listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (tool, args) => {
      try {
        return { result: await client.callTool({ name: tool, arguments: args }) };
      } catch (err) {
        assert.ok(err instanceof McpError, `expected an McpError, got ${String(err)}`);
        // The 1.x SDK prefixes the server's message.
        return {
          error: { code: err.code, message: err.message.replace(`MCP error ${err.code}: `, ''), data: err.data },
        };
      }
    },
    listChanged: () =>
      new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve())),
    close,
  };
}

const CLIENTS: readonly {
  label: string;
  era: 'modern' | '2025';
  version: string;
  connect: (url: string) => Promise<Connected>;
}[] = [
  {
    label: 'client 2.x pinned to 2026-07-28',
    era: 'modern',
    version: '2026-07-28',
    connect: (url) => connectV2(url, { pin: '2026-07-28' }, 'v2-pin'),
  },
  {
    label: 'client 2.x in auto mode',
    era: 'modern',
    version: '2026-07-28',
    connect: (url) => connectV2(url, 'auto', 'v2-auto'),
  },
  {
    label: 'client 2.x in legacy mode',
    era: '2025',
    version: '2025-11-25',
    connect: (url) => connectV2(url, 'legacy', 'v2-legacy'),
  },
  { label: 'SDK 1.x client', era: '2025', version: '2025-11-25', connect: (url) => connectV1(url, 'v1-sdk') },
];

describe('both eras through the official clients (2.x pinned, auto, legacy; 1.x)', function () {
  this.timeout(30_000);
  let service: FakeService;
  const gateways = new Map<ValidationErrorsChannel, InProcessGateway>();
  const open: Connected[] = [];
  let reloads = 0;
  const connect = async (
    c: (typeof CLIENTS)[number],
    channel: ValidationErrorsChannel = 'protocol',
  ): Promise<Connected> => {
    const connected = await c.connect(gateways.get(channel)!.url);
    open.push(connected);
    return connected;
  };

  before(async () => {
    service = await startFakeService();
    for (const channel of ['protocol', 'tool_result', 'auto'] as const) {
      gateways.set(
        channel,
        await startInProcessGateway(botConfig(supportDeskTools(service.url), { validation_errors: channel })),
      );
    }
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => undefined)));
    for (const gw of gateways.values()) await gw.close();
    await service.close();
  });

  for (const c of CLIENTS) {
    describe(c.label, () => {
      it(`connects on protocol ${c.version}, lists the tools in declaration order and calls one`, async () => {
        const client = await connect(c);
        assert.equal(client.protocolVersion, c.version);
        assert.deepEqual(await client.listToolNames(), TOOL_NAMES);
        const { result } = await client.call('get_customer', { customer_id: 'C-1234', limit: 3 });
        assert.equal(result.isError, undefined);
        assert.deepEqual(result.structuredContent, { method: 'GET', url: '/customers/C-1234?limit=3', body: '' });
      });

      it('gets a refusal as a JSON-RPC -32602 error with the exact message (validation_errors: protocol)', async () => {
        const client = await connect(c, 'protocol');
        const { error } = await client.call('create_ticket', REFUSED_ARGS);
        assert.deepEqual(error, {
          code: -32602,
          message: MESSAGE,
          data: { code: 'INVALID_ARGS', violations: VIOLATIONS },
        });
      });

      for (const channel of ['tool_result', 'auto'] as const) {
        it(`gets a refusal as an isError tool result with the exact message (validation_errors: ${channel})`, async () => {
          const client = await connect(c, channel);
          const { result, error } = await client.call('create_ticket', REFUSED_ARGS);
          assert.equal(error, undefined);
          assert.equal(result.isError, true);
          assert.deepEqual(result.content, [{ type: 'text', text: MESSAGE }]);
          assert.deepEqual(result.structuredContent, { violations: VIOLATIONS });
        });
      }

      it('hears notifications/tools/list_changed after a reload', async () => {
        const gw = gateways.get('tool_result')!;
        const streamsBefore = gw.gateway.stats().openStreams;
        const client = await connect(c, 'tool_result');
        // The client opens its stream (GET, or subscriptions/listen) right after connecting: wait until it is open.
        await eventually(() => gw.gateway.stats().openStreams > streamsBefore);
        const changed = client.listChanged();
        // a change (an unchanged config notifies nobody): the body limit, which no test here nears
        await gw.gateway.reload(
          botConfig(supportDeskTools(service.url), {
            validation_errors: 'tool_result',
            max_body_bytes: 1_048_576 + ++reloads,
          }),
        );
        await within(changed, 5_000, `${c.label}: notifications/tools/list_changed`);
      });
    });
  }

  describe('audit', () => {
    it('audits a refusal the same way in both eras: session null and the _meta client when modern', async () => {
      const gw = gateways.get('protocol')!;
      const records = await waitForAuditRecords(gw.auditLogPath, 1, {
        where: (r) => r.outcome === 'refused' && r.client?.name === 'v2-legacy',
      });
      const all = readAuditLog(gw.auditLogPath).filter((r) => r.tool === 'create_ticket' && r.outcome === 'refused');
      const modern = all.find((r) => r.client?.name === 'v2-pin');
      const legacy = records[0];
      assert.ok(modern, 'the pinned client refusal is audited');
      assert.equal(modern.session, null);
      assert.deepEqual(modern.client, { name: 'v2-pin', version: '2.4.0' });
      assert.equal(typeof legacy.session, 'string');
      const comparable = (r: typeof modern) => ({
        gateway: r.gateway,
        principal: r.principal,
        tool: r.tool,
        outcome: r.outcome,
        error: r.error,
      });
      assert.deepEqual(comparable(modern), comparable(legacy));
      assert.deepEqual(modern.error, { code: 'INVALID_ARGS', message: MESSAGE });
    });
  });
});
