import assert from 'node:assert/strict';
import { withCompletion } from '../../../src/gateway/mcp/modern-endpoint';

describe('modern tools/call results: withCompletion', () => {
  const META = '{"io.modelcontextprotocol/serverInfo":{"name":"g","version":"1"}}';

  it('appends resultType and the server info to a call result, keeping everything else', () => {
    const result = '{"content":[{"type":"text","text":"{\\"a\\":1}"}],"structuredContent":{"a":1,"_meta":{"x":1}}}';
    assert.deepEqual(JSON.parse(withCompletion(result, META)), {
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1, _meta: { x: 1 } },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'g', version: '1' } },
    });
  });

  it('handles an empty object and trailing whitespace', () => {
    assert.deepEqual(JSON.parse(withCompletion('{}', META)).resultType, 'complete');
    assert.deepEqual(JSON.parse(withCompletion('{"isError":true} ', META)).isError, true);
  });
});
