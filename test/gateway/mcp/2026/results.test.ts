import assert from 'node:assert/strict';
import {
  acknowledgedNotification,
  completeResult,
  discoverResult,
  listenClosedResponse,
  listenFilter,
  sseFrame,
  toolsListChangedNotification,
  toolsListResult,
} from '../../../../src/gateway/mcp/2026/results';

const SERVER = { name: 'cdktf-mcp-gateway', version: '0.1.0', title: 'support-desk' };
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': SERVER };

describe('modern results and stream frames', () => {
  it('marks a result complete and adds the server info to its _meta, keeping other _meta keys', () => {
    assert.deepEqual(completeResult({ content: [], isError: false }, SERVER), {
      content: [],
      isError: false,
      resultType: 'complete',
      _meta: SERVER_META,
    });
    assert.deepEqual(completeResult({ _meta: { 'com.example/x': 1 } }, SERVER), {
      resultType: 'complete',
      _meta: { 'com.example/x': 1, ...SERVER_META },
    });
  });

  it('builds the server/discover result: versions, tools capability with listChanged, cache hints', () => {
    assert.deepEqual(discoverResult(SERVER, { ttlMs: 60_000, cacheScope: 'private' }), {
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      capabilities: { tools: { listChanged: true } },
      ttlMs: 60_000,
      cacheScope: 'private',
      resultType: 'complete',
      _meta: SERVER_META,
    });
    assert.equal(
      discoverResult(SERVER, { ttlMs: 0, cacheScope: 'public' }, 'Tools of the support desk.').instructions,
      'Tools of the support desk.',
    );
  });

  it('builds the tools/list result in the given order with cache hints and no cursor', () => {
    const tools = [
      { name: 'b', inputSchema: { type: 'object' } },
      { name: 'a', inputSchema: { type: 'object' } },
    ];
    assert.deepEqual(toolsListResult(tools, SERVER, { ttlMs: 0, cacheScope: 'public' }), {
      tools,
      ttlMs: 0,
      cacheScope: 'public',
      resultType: 'complete',
      _meta: SERVER_META,
    });
  });

  it('refuses cache hints the schema forbids', () => {
    for (const ttlMs of [-1, 1.5, NaN, Infinity, 1e400]) {
      assert.throws(
        () => toolsListResult([], SERVER, { ttlMs, cacheScope: 'public' }),
        /ttlMs must be a non-negative integer/,
      );
    }
  });

  describe('subscriptions/listen', () => {
    it('acknowledges only toolsListChanged, omitting what the gateway cannot deliver', () => {
      assert.deepEqual(
        listenFilter({
          notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///x'] },
        }),
        { ok: true, filter: { toolsListChanged: true } },
      );
      assert.deepEqual(listenFilter({ notifications: { promptsListChanged: true } }), { ok: true, filter: {} });
      assert.deepEqual(listenFilter({ notifications: { toolsListChanged: false } }), { ok: true, filter: {} });
      assert.deepEqual(listenFilter({ notifications: {} }), { ok: true, filter: {} });
    });

    it('refuses params without a notifications object or with wrongly typed fields (400, -32602)', () => {
      for (const [params, message] of [
        [undefined, 'Invalid params: notifications must be an object'],
        [{ notifications: [] }, 'Invalid params: notifications must be an object'],
        [
          { notifications: { toolsListChanged: 'yes' } },
          'Invalid params: notifications.toolsListChanged must be a boolean',
        ],
        [
          { notifications: { resourceSubscriptions: 'file:///x' } },
          'Invalid params: notifications.resourceSubscriptions must be an array of strings',
        ],
        [
          { notifications: { resourceSubscriptions: [1] } },
          'Invalid params: notifications.resourceSubscriptions must be an array of strings',
        ],
      ] as const) {
        assert.deepEqual(
          listenFilter(params),
          { ok: false, refusal: { status: 400, code: -32602, message } },
          JSON.stringify(params),
        );
      }
    });

    it('does not read a toolsListChanged inherited from the prototype', () => {
      const notifications = Object.create({ toolsListChanged: true });
      assert.deepEqual(listenFilter({ notifications }), { ok: true, filter: {} });
    });

    it('tags the acknowledgement, list changes and the closing result with the listen request id', () => {
      assert.deepEqual(acknowledgedNotification(7, { toolsListChanged: true }), {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 }, notifications: { toolsListChanged: true } },
      });
      assert.deepEqual(toolsListChangedNotification('sub-1'), {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
      });
      assert.deepEqual(listenClosedResponse(7, SERVER), {
        jsonrpc: '2.0',
        id: 7,
        result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 7, ...SERVER_META } },
      });
    });

    it('frames a message as one SSE event whose data is one line even with U+2028 or newlines inside strings', () => {
      const frame = sseFrame({ jsonrpc: '2.0', method: 'x', params: { s: 'a\nb\u2028c' } });
      assert.match(frame, /^event: message\ndata: [^\n]+\n\n$/);
      assert.deepEqual(JSON.parse(frame.slice('event: message\ndata: '.length)), {
        jsonrpc: '2.0',
        method: 'x',
        params: { s: 'a\nb\u2028c' },
      });
    });
  });
});
