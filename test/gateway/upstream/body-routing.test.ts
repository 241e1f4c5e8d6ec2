import assert from 'node:assert/strict';
import { parseGatewayConfig, type ToolConfig } from '../../../src/config';
import { buildServiceRequest, planServiceCall } from '../../../src/gateway/upstream/request-plan';

function request(backend: Partial<ToolConfig['backend']>, args: Record<string, unknown>) {
  const plan = planServiceCall({
    name: 't',
    description: 'd',
    input_schema: { type: 'object' },
    backend: { url: 'http://api:8080/items/{id}', method: 'POST', ...backend },
  });
  return buildServiceRequest(plan, args);
}

describe('backend query_params and body_param (fields of a body-sending call routed elsewhere)', () => {
  it('sends query_params as the query of a POST (arrays as repeated keys) and the rest as the JSON body', () => {
    assert.deepEqual(
      request({ query_params: ['notify', 'tags'] }, { id: 'a b', notify: false, tags: ['x', 'y'], title: 't' }),
      {
        method: 'POST',
        url: 'http://api:8080/items/a%20b?notify=false&tags=x&tags=y',
        body: '{"title":"t"}',
      },
    );
  });

  it('sends the body_param value as the whole body, and no body when the call leaves it out', () => {
    assert.deepEqual(request({ body_param: 'body', query_params: ['dry'] }, { id: '1', dry: true, body: [1, 2] }), {
      method: 'POST',
      url: 'http://api:8080/items/1?dry=true',
      body: '[1,2]',
    });
    assert.deepEqual(request({ body_param: 'body' }, { id: '1' }), { method: 'POST', url: 'http://api:8080/items/1' });
  });

  it('leaves GET and DELETE as they are: every field is the query', () => {
    assert.deepEqual(request({ method: 'GET', query_params: ['q'] }, { id: '1', q: 'a', r: 'b' }), {
      method: 'GET',
      url: 'http://api:8080/items/1?q=a&r=b',
    });
  });

  it('is part of the config the gateway loads, which refuses a malformed one', () => {
    const config = (backend: Record<string, unknown>) => ({
      version: 1,
      gateway: { name: 'g', auth: 'none' },
      tools: [
        {
          name: 't',
          description: '',
          input_schema: { type: 'object' },
          backend: { url: 'http://a/', method: 'POST', ...backend },
        },
      ],
    });
    assert.deepEqual(
      parseGatewayConfig(config({ query_params: ['a'], body_param: 'b' })).tools[0].backend.query_params,
      ['a'],
    );
    assert.throws(
      () => parseGatewayConfig(config({ query_params: ['a', 'a'] })),
      /query_params: must be a list of distinct field names/,
    );
    assert.throws(() => parseGatewayConfig(config({ body_param: '' })), /body_param: must be a field name/);
  });
});
