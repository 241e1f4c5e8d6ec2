import assert from 'node:assert/strict';
import { resultResponseJson } from '../../../../src/gateway/errors/jsonrpc';
import { withCompletion } from '../../../../src/gateway/mcp/2026/endpoint';

describe('modern tools/call results: withCompletion', () => {
  const META = '{"io.modelcontextprotocol/serverInfo":{"name":"g","version":"1"}}';
  /** The response a result makes, given as text and as bytes (a result from the body thread): both must agree. */
  const both = (result: string): unknown[] =>
    [result, Buffer.from(result)].map((given) => {
      const response = resultResponseJson(7, ...withCompletion(given, META));
      assert.equal(typeof response, typeof given, 'text stays text, bytes stay bytes');
      return JSON.parse(String(response));
    });

  it('appends resultType and the server info to a call result, keeping everything else', () => {
    const result = '{"content":[{"type":"text","text":"{\\"a\\":1}"}],"structuredContent":{"a":1,"_meta":{"x":1}}}';
    for (const response of both(result)) {
      assert.deepEqual(response, {
        jsonrpc: '2.0',
        id: 7,
        result: {
          content: [{ type: 'text', text: '{"a":1}' }],
          structuredContent: { a: 1, _meta: { x: 1 } },
          resultType: 'complete',
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'g', version: '1' } },
        },
      });
    }
  });

  it('handles an empty object, whitespace and text beyond ASCII', () => {
    for (const response of both('{}'))
      assert.equal((response as { result: { resultType: string } }).result.resultType, 'complete');
    for (const response of both('{ \n}\t'))
      assert.equal((response as { result: { resultType: string } }).result.resultType, 'complete');
    for (const response of both('{"isError":true} \n'))
      assert.equal((response as { result: { isError: boolean } }).result.isError, true);
    const [text, bytes] = both('{"content":[{"type":"text","text":"ü😀 {"}]}');
    assert.deepEqual(bytes, text);
  });
});
