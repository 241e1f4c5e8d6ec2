/**
 * `tools/list` in pages over the wire: a 2026-07-28 list answers `tools_list_page_size` tools with `nextCursor`
 * until the last page, in every revision (a 2025 session too); a cursor the gateway did not
 * issue for this list (forged, of another tool set after a reload, not a string) is -32602 with its message. Raw
 * requests and the official clients (2.x pinned to 2026-07-28, which pages; 1.x on a 2025 session).
 */
import assert from 'node:assert/strict';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, tool } from '../../helpers/config';
import { startInProcessGateway, type InProcessGateway } from '../../helpers/in-process-gateway';
import { connectSdkClient, openSession } from '../../helpers/mcp';
import { modernRequest, postModern } from '../../helpers/modern';
import { BOT } from '../../helpers/tokens';

const UNKNOWN =
  'Invalid params: cursor is not one this gateway issued for this tool list (it may have changed): list again without a cursor';
const NOT_STRING = 'Invalid params: cursor must be a string';

describe('tools/list paging (tools_list_page_size)', function () {
  this.timeout(20_000);
  let service: FakeService;
  let gw: InProcessGateway;
  const names = (n: number, prefix = 'tool_') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const config = (toolNames: readonly string[]) =>
    botConfig(
      toolNames.map((n) => tool(n, `${service.url}/health`)),
      { tools_list_page_size: 10 },
    );
  const list = (params: Record<string, unknown> = {}, id: string | number = 'l') =>
    postModern(gw.url, modernRequest('tools/list', params, id), BOT.token);

  before(async () => {
    service = await startFakeService();
    gw = await startInProcessGateway(config(names(25)));
  });
  after(async () => {
    await gw.close();
    await service.close();
  });

  it('answers a 2026-07-28 list in pages with nextCursor, every tool once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await list(cursor === undefined ? {} : { cursor }, i);
      assert.equal(res.status, 200, res.text);
      const result = JSON.parse(res.text).result;
      assert.equal(result.resultType, 'complete');
      sizes.push(result.tools.length);
      seen.push(...result.tools.map((t: { name: string }) => t.name));
      cursor = result.nextCursor;
      if (cursor === undefined) break;
      assert.equal(typeof cursor, 'string');
    }
    assert.deepEqual(sizes, [10, 10, 5]);
    assert.deepEqual(seen, names(25));
  });

  it('refuses a forged, malformed or non-string cursor with HTTP 400 and -32602, echoing the id', async () => {
    const first = JSON.parse((await list()).text).result.nextCursor as string;
    const forged = `${(20).toString(36)}.${first.split('.')[1]}`;
    for (const cursor of [forged, '', '10', 'not-a-cursor', `${first}x`]) {
      const res = await list({ cursor }, 'bad');
      assert.equal(res.status, 400, cursor);
      assert.deepEqual(JSON.parse(res.text), { jsonrpc: '2.0', id: 'bad', error: { code: -32602, message: UNKNOWN } });
    }
    for (const cursor of [10, null, { offset: 10 }]) {
      const res = await list({ cursor }, 'typed');
      assert.equal(res.status, 400);
      assert.deepEqual(JSON.parse(res.text), {
        jsonrpc: '2.0',
        id: 'typed',
        error: { code: -32602, message: NOT_STRING },
      });
    }
  });

  it('pages a 2025 session the same way, with the cursors a 2026-07-28 list issues', async () => {
    const session = await openSession(gw.url, { token: BOT.token });
    const first = JSON.parse((await session.request('tools/list')).text).result;
    assert.deepEqual(
      first.tools.map((t: { name: string }) => t.name),
      names(25).slice(0, 10),
    );
    const modernCursor = JSON.parse((await list()).text).result.nextCursor as string;
    assert.equal(first.nextCursor, modernCursor);
    const page = JSON.parse((await session.request('tools/list', { cursor: first.nextCursor })).text).result;
    assert.deepEqual(
      page.tools.map((t: { name: string }) => t.name),
      names(25).slice(10, 20),
    );
    const last = JSON.parse((await session.request('tools/list', { cursor: page.nextCursor })).text).result;
    assert.deepEqual(
      last.tools.map((t: { name: string }) => t.name),
      names(25).slice(20),
    );
    assert.equal(last.nextCursor, undefined);
    const refused = await session.request('tools/list', { cursor: 'forged' });
    assert.equal(refused.status, 200);
    assert.deepEqual(JSON.parse(refused.text).error, { code: -32602, message: UNKNOWN });
  });

  it('pages through the official 1.x client on a 2025 session', async () => {
    const sdk = await connectSdkClient(gw.url, BOT.token);
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 5; i++) {
        const page = await sdk.client.listTools(cursor === undefined ? {} : { cursor });
        seen.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
        if (cursor === undefined) break;
      }
      assert.deepEqual(seen, names(25));
    } finally {
      await sdk.close();
    }
  });

  it('pages through the official 2.x client pinned to 2026-07-28', async () => {
    const client = new Client2(
      { name: 'pager', version: '2.4.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new Transport2(new URL(gw.url), { requestInit: { headers: { Authorization: `Bearer ${BOT.token}` } } }),
    );
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 5; i++) {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        seen.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
        if (cursor === undefined) break;
      }
      assert.deepEqual(seen, names(25));
    } finally {
      await client.close();
    }
  });

  it('refuses a cursor of the tool set a reload replaced, and pages the new one', async () => {
    const old = JSON.parse((await list()).text).result.nextCursor as string;
    await gw.gateway.reload(config(names(25, 'renamed_')));
    try {
      const res = await list({ cursor: old }, 'after-reload');
      assert.equal(res.status, 400);
      assert.equal(JSON.parse(res.text).error.message, UNKNOWN);
      const fresh = JSON.parse((await list()).text).result;
      assert.equal(fresh.tools[0].name, 'renamed_0');
      const second = JSON.parse((await list({ cursor: fresh.nextCursor })).text).result;
      assert.equal(second.tools[0].name, 'renamed_10');
    } finally {
      await gw.gateway.reload(config(names(25)));
    }
  });
});
