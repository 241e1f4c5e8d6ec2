import * as assert from 'node:assert/strict';
import { Service } from '../../constructs';
import { newStack, thrown } from './synth';

const input = { id: { type: 'string', required: true }, dry: { type: 'boolean' }, body: { type: 'array' } } as const;

describe('Service endpoint.queryParams and endpoint.bodyParam', () => {
  it('puts them in the backend config of a body-sending service', () => {
    const service = new Service(newStack(), 'put_items', {
      endpoint: { url: 'http://api:8080/items/{id}', method: 'PUT', queryParams: ['dry'], bodyParam: 'body' },
      input,
    });
    assert.deepEqual(service.toolConfig().backend, {
      url: 'http://api:8080/items/{id}',
      method: 'PUT',
      timeout_ms: 10000,
      query_params: ['dry'],
      body_param: 'body',
    });
  });

  it('refuses them on GET, for a field that is no parameter, and a field sent both ways', () => {
    const make = (endpoint: Record<string, unknown>) =>
      thrown(
        () =>
          new Service(newStack(), 't', {
            endpoint: { url: 'http://api:8080/items/{id}', method: 'POST', ...endpoint },
            input,
          }),
      ).message;
    assert.equal(
      make({ method: 'GET', queryParams: ['dry'] }),
      "Service 't': endpoint.queryParams and endpoint.bodyParam apply to POST, PUT and PATCH; GET sends every field as the query",
    );
    assert.equal(
      make({ queryParams: ['nope'] }),
      "Service 't': endpoint 'nope' in queryParams/bodyParam names no forwarded parameter: declare it or remove it",
    );
    assert.equal(
      make({ queryParams: ['body'], bodyParam: 'body' }),
      "Service 't': endpoint.bodyParam 'body' is also in endpoint.queryParams: a field goes either way, not both",
    );
  });
});
