import assert from 'node:assert/strict';
import { checkModernRequest, decodeSentinel, type ModernHeaders } from '../../../../src/gateway/mcp/2026/request';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '2.4.0' },
};
const LIST: ModernHeaders = { protocolVersion: '2026-07-28', method: 'tools/list', name: undefined };
const CALL: ModernHeaders = { protocolVersion: '2026-07-28', method: 'tools/call', name: 'lookup' };
const callParams = (name: unknown = 'lookup', meta: unknown = META) => ({ name, arguments: {}, _meta: meta });

function refusalOf(
  headers: ModernHeaders,
  method: string,
  params: unknown,
): { status: number; code: number; message: string; data?: unknown } {
  const check = checkModernRequest(headers, method, params);
  assert.equal(check.ok, false, 'expected a refusal');
  return (check as { refusal: { status: number; code: number; message: string } }).refusal;
}

describe('checkModernRequest', () => {
  it('accepts a well-formed request and reads the client info for the audit', () => {
    assert.deepEqual(checkModernRequest(CALL, 'tools/call', callParams()), {
      ok: true,
      meta: { protocolVersion: '2026-07-28', clientCapabilities: {}, client: { name: 'agent', version: '2.4.0' } },
    });
  });

  it('accepts a request without clientInfo, and treats a malformed one as absent (cut to 128 otherwise)', () => {
    const { 'io.modelcontextprotocol/clientInfo': _, ...bare } = META;
    const noInfo = checkModernRequest(LIST, 'tools/list', { _meta: bare });
    assert.ok(noInfo.ok && noInfo.meta.client.name === null && noInfo.meta.client.version === null);
    const bad = checkModernRequest(LIST, 'tools/list', {
      _meta: { ...bare, 'io.modelcontextprotocol/clientInfo': 'x' },
    });
    assert.ok(bad.ok && bad.meta.client.name === null);
    const long = checkModernRequest(LIST, 'tools/list', {
      _meta: { ...bare, 'io.modelcontextprotocol/clientInfo': { name: 'n'.repeat(1000), version: 3 } },
    });
    assert.ok(long.ok && long.meta.client.name === 'n'.repeat(128) && long.meta.client.version === null);
  });

  it('refuses a missing or malformed MCP-Protocol-Version header first (400, -32020)', () => {
    for (const protocolVersion of [undefined, '', '   ', ['2026-07-28', '2026-07-28'], '2026-07-28\u00e9']) {
      assert.deepEqual(refusalOf({ ...LIST, protocolVersion }, 'tools/list', {}), {
        status: 400,
        code: -32020,
        message: 'Header mismatch: MCP-Protocol-Version header is missing or malformed',
      });
    }
  });

  it('refuses a missing or malformed _meta with 400 and -32602, naming what is missing', () => {
    const cases: [unknown, string][] = [
      [
        undefined,
        'Invalid params: _meta is required (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)',
      ],
      [
        {},
        'Invalid params: _meta is required (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)',
      ],
      [
        { _meta: [] },
        'Invalid params: _meta is required (io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities)',
      ],
      [
        { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } },
        'Invalid params: _meta io.modelcontextprotocol/protocolVersion must be a string',
      ],
      [
        { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
        'Invalid params: _meta io.modelcontextprotocol/clientCapabilities must be an object',
      ],
      [
        { _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': [] } },
        'Invalid params: _meta io.modelcontextprotocol/clientCapabilities must be an object',
      ],
      [
        { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 20260728 } },
        'Invalid params: _meta io.modelcontextprotocol/protocolVersion must be a string',
      ],
    ];
    for (const [params, message] of cases) {
      assert.deepEqual(
        refusalOf(LIST, 'tools/list', params),
        { status: 400, code: -32602, message },
        JSON.stringify(params),
      );
    }
  });

  it('refuses a header that differs from _meta (400, -32020) before looking at the version', () => {
    const params = { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } };
    assert.deepEqual(refusalOf(LIST, 'tools/list', params), {
      status: 400,
      code: -32020,
      message: 'Header mismatch: MCP-Protocol-Version header does not match _meta protocol version',
    });
  });

  it('refuses a version it does not speak with 400, -32022 and { supported, requested }', () => {
    const params = { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } };
    assert.deepEqual(refusalOf({ ...LIST, protocolVersion: 'v999.0.0' }, 'tools/list', params), {
      status: 400,
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: 'v999.0.0' },
    });
    // A 2025 version in _meta is a version of the other era: the modern era does not speak it.
    const legacy = { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } };
    assert.equal(refusalOf({ ...LIST, protocolVersion: '2025-11-25' }, 'tools/list', legacy).code, -32022);
  });

  it('refuses a missing, mismatched or case-changed Mcp-Method (values are case-sensitive)', () => {
    for (const [method, message] of [
      [undefined, 'Header mismatch: Mcp-Method header is missing or malformed'],
      ['prompts/list', 'Header mismatch: Mcp-Method header does not match the body method'],
      ['TOOLS/LIST', 'Header mismatch: Mcp-Method header does not match the body method'],
      ['tools/list, tools/list', 'Header mismatch: Mcp-Method header does not match the body method'],
      [['tools/list', 'tools/list'], 'Header mismatch: Mcp-Method header is missing or malformed'],
    ] as const) {
      assert.deepEqual(
        refusalOf({ ...LIST, method: method as ModernHeaders['method'] }, 'tools/list', { _meta: META }),
        { status: 400, code: -32020, message },
      );
    }
  });

  it('accepts header values with surrounding whitespace (RFC 9110 optional whitespace)', () => {
    assert.ok(
      checkModernRequest(
        { protocolVersion: ' 2026-07-28\t', method: '  tools/call ', name: '  lookup  ' },
        'tools/call',
        callParams(),
      ).ok,
    );
  });

  it('refuses tools/call with a missing or wrong Mcp-Name, and accepts the base64 sentinel form', () => {
    assert.deepEqual(refusalOf({ ...CALL, name: undefined }, 'tools/call', callParams()), {
      status: 400,
      code: -32020,
      message: 'Header mismatch: Mcp-Name header is missing or malformed',
    });
    assert.deepEqual(refusalOf({ ...CALL, name: 'wrong_tool_name' }, 'tools/call', callParams()), {
      status: 400,
      code: -32020,
      message: 'Header mismatch: Mcp-Name header does not match the body params.name',
    });
    const unicode = 'wetter_für_köln';
    assert.ok(
      checkModernRequest(
        { ...CALL, name: `=?base64?${Buffer.from(unicode).toString('base64')}?=` },
        'tools/call',
        callParams(unicode),
      ).ok,
    );
    // A literal name that looks like the sentinel must itself be encoded: sent plainly, it is decoded and differs.
    assert.equal(
      refusalOf({ ...CALL, name: '=?base64?bG9va3Vw?=' }, 'tools/call', callParams('=?base64?bG9va3Vw?=')).code,
      -32020,
    );
  });

  it('leaves a non-string params.name to the method (no Mcp-Name needed), and ignores Mcp-Name elsewhere', () => {
    assert.ok(checkModernRequest({ ...CALL, name: undefined }, 'tools/call', callParams(42)).ok);
    assert.ok(checkModernRequest({ ...LIST, name: 'anything' }, 'tools/list', { _meta: META }).ok);
  });

  it('uses params.uri for resources/read and params.name for prompts/get', () => {
    const uri = 'file:///x';
    assert.ok(
      checkModernRequest({ ...LIST, method: 'resources/read', name: uri }, 'resources/read', { uri, _meta: META }).ok,
    );
    assert.equal(
      refusalOf({ ...LIST, method: 'resources/read', name: 'file:///y' }, 'resources/read', { uri, _meta: META }).code,
      -32020,
    );
    assert.equal(
      refusalOf({ ...LIST, method: 'prompts/get', name: undefined }, 'prompts/get', { name: 'p', _meta: META }).code,
      -32020,
    );
  });

  it('does not trip over __proto__, constructor or toString as method or name', () => {
    for (const method of ['__proto__', 'constructor', 'toString']) {
      assert.ok(
        checkModernRequest({ ...LIST, method, name: undefined }, method, { name: 'x', _meta: META }).ok,
        method,
      );
    }
    assert.ok(checkModernRequest({ ...CALL, name: '__proto__' }, 'tools/call', callParams('__proto__')).ok);
  });

  it('handles a 1 MiB header value and a 1 MiB name (refused when malformed, accepted when equal)', () => {
    const huge = 'a'.repeat(1024 * 1024);
    assert.equal(refusalOf({ ...CALL, name: `${huge}\u0000` }, 'tools/call', callParams(huge)).code, -32020);
    assert.equal(refusalOf({ ...CALL, name: `=?base64?${huge}!?=` }, 'tools/call', callParams(huge)).code, -32020);
    assert.ok(checkModernRequest({ ...CALL, name: huge }, 'tools/call', callParams(huge)).ok);
  });

  describe('decodeSentinel', () => {
    it('decodes strict base64 of UTF-8 and keeps other values literal', () => {
      assert.equal(decodeSentinel('=?base64?SGVsbG8sIOS4lueVjA==?='), 'Hello, 世界');
      assert.equal(decodeSentinel('=?base64?IHBhZGRlZCA=?='), ' padded ');
      assert.equal(decodeSentinel('plain'), 'plain');
      assert.equal(decodeSentinel('=?BASE64?SGk=?='), '=?BASE64?SGk=?=');
    });

    it('refuses malformed base64 inside the wrapper', () => {
      for (const bad of [
        '=?base64?SGk?=',
        '=?base64?SGk==?=',
        '=?base64?S-k=?=',
        '=?base64?SGl=?=',
        '=?base64?/w==?=',
        '=?base64?SGVsbG8=x?=',
      ]) {
        assert.equal(decodeSentinel(bad), undefined, bad);
      }
    });
  });
});
