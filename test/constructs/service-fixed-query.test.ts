import * as assert from 'node:assert/strict';
import { Service } from '../../constructs';
import { newStack } from './synth';

describe('Service: a parameter named like a query parameter fixed in endpoint.url (docs/gateway.md)', () => {
  it('refuses a GET parameter sent under a query name the URL fixes, naming the parameter and the fix', () => {
    assert.throws(
      () =>
        new Service(newStack(), 'search', {
          endpoint: { url: 'http://api:8080/x?fixed=1', method: 'GET' },
          input: { q: { type: 'string' }, fixed: { type: 'string' } },
        }),
      {
        message:
          "Service 'search': parameter 'fixed' would be sent as query parameter 'fixed', which endpoint.url already " +
          "fixes (?fixed=…): rename the parameter, give it forwardAs: '<another name>', or remove fixed from endpoint.url",
      },
    );
  });

  it('refuses a forwardAs rename onto a fixed query name', () => {
    assert.throws(
      () =>
        new Service(newStack(), 'search', {
          endpoint: { url: 'http://api:8080/x?source=agent', method: 'DELETE' },
          input: { origin: { type: 'string', forwardAs: 'source' } },
        }),
      /parameter 'origin' would be sent as query parameter 'source', which endpoint\.url already fixes/,
    );
  });

  it('refuses it in a raw inputSchema too', () => {
    assert.throws(
      () =>
        new Service(newStack(), 'search', {
          endpoint: { url: 'http://api:8080/x?a%20b=1', method: 'GET' },
          inputSchema: { type: 'object', properties: { 'a b': { type: 'string' } }, additionalProperties: false },
        }),
      /parameter 'a b' would be sent as query parameter 'a b'/,
    );
  });

  it('accepts the same name in a POST body and a query placeholder filled by its parameter', () => {
    new Service(newStack(), 'post', {
      endpoint: { url: 'http://api:8080/x?fixed=1', method: 'POST' },
      input: { fixed: { type: 'string' } },
    });
    new Service(newStack(), 'get', {
      endpoint: { url: 'http://api:8080/x?q={q}', method: 'GET' },
      input: { q: { type: 'string', required: true } },
    });
  });
});
