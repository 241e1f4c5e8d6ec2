import assert from 'node:assert/strict';
import {
  ALL_PROTOCOL_VERSIONS,
  headerMismatch,
  isModernRequest,
  methodNotFound,
  unsupportedProtocolVersion,
} from '../../../../src/gateway/mcp/2026/protocol';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('modern protocol: era and refusals', () => {
  describe('isModernRequest', () => {
    it('is modern with a _meta protocol version (any value) and no session id', () => {
      assert.equal(
        isModernRequest({ sessionId: undefined, protocolVersionHeader: '2026-07-28', params: { _meta: META } }),
        true,
      );
      assert.equal(
        isModernRequest({ sessionId: undefined, protocolVersionHeader: undefined, params: { _meta: META } }),
        true,
      );
      const odd = { _meta: { 'io.modelcontextprotocol/protocolVersion': 42 } };
      assert.equal(isModernRequest({ sessionId: undefined, protocolVersionHeader: undefined, params: odd }), true);
    });

    it('is modern with a non-2025 MCP-Protocol-Version header even without _meta (the suite’s missing-_meta probes)', () => {
      for (const header of ['2026-07-28', 'v999.0.0', '2027-01-01']) {
        assert.equal(
          isModernRequest({ sessionId: undefined, protocolVersionHeader: header, params: {} }),
          true,
          header,
        );
      }
      assert.equal(
        isModernRequest({ sessionId: undefined, protocolVersionHeader: '2026-07-28', params: undefined }),
        true,
      );
    });

    it('keeps 2025 requests legacy: initialize, session requests, 2025 headers, no evidence', () => {
      const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
      assert.equal(isModernRequest({ sessionId: undefined, protocolVersionHeader: undefined, params: init }), false);
      assert.equal(
        isModernRequest({
          sessionId: undefined,
          protocolVersionHeader: undefined,
          params: { ...init, protocolVersion: '2026-07-28' },
        }),
        false,
      );
      for (const header of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '']) {
        assert.equal(
          isModernRequest({ sessionId: undefined, protocolVersionHeader: header, params: {} }),
          false,
          header,
        );
      }
      assert.equal(
        isModernRequest({ sessionId: 'abc', protocolVersionHeader: '2026-07-28', params: { _meta: META } }),
        false,
      );
      assert.equal(
        isModernRequest({ sessionId: undefined, protocolVersionHeader: ['2026-07-28', '2026-07-28'], params: {} }),
        false,
      );
    });

    it('does not take _meta from the prototype chain or from non-objects', () => {
      const inherited = Object.create({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
      assert.equal(
        isModernRequest({ sessionId: undefined, protocolVersionHeader: undefined, params: { _meta: inherited } }),
        false,
      );
      for (const params of [
        null,
        'x',
        [{ _meta: META }],
        { _meta: [META] },
        { _meta: 'x' },
        { ['__proto__']: { _meta: META } },
      ]) {
        assert.equal(
          isModernRequest({ sessionId: undefined, protocolVersionHeader: undefined, params }),
          false,
          JSON.stringify(params),
        );
      }
    });
  });

  it('answers removed and unknown methods with 404 and -32601, cutting a huge method name', () => {
    assert.deepEqual(methodNotFound('ping'), { status: 404, code: -32601, message: 'Method not found: ping' });
    assert.equal(methodNotFound('x'.repeat(1024 * 1024)).message, `Method not found: ${'x'.repeat(64)}…`);
  });

  it('builds -32022 with the versions spoken here (modern first) and the requested one', () => {
    assert.deepEqual(ALL_PROTOCOL_VERSIONS, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
    assert.deepEqual(unsupportedProtocolVersion('v999.0.0'), {
      status: 400,
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ALL_PROTOCOL_VERSIONS, requested: 'v999.0.0' },
    });
    assert.equal(unsupportedProtocolVersion('v'.repeat(10_000)).data?.requested.length, 128);
  });

  it('prefixes -32020 messages as the specification’s example does', () => {
    assert.deepEqual(headerMismatch('Mcp-Method header is missing or malformed'), {
      status: 400,
      code: -32020,
      message: 'Header mismatch: Mcp-Method header is missing or malformed',
    });
  });
});
