/**
 * A backend URL with user info (`http://user:secret@host`) is refused wherever one enters: a Service's endpoint, an
 * OpenAPI document's server or `baseUrl`, a gateway config. The backend never receives those credentials, and they
 * would sit in clear in the synthesized JSON; no message quotes the URL.
 */
import * as assert from 'node:assert/strict';
import { OpenApiServices, Service } from '../../constructs';
import { parseGatewayConfig, ConfigError, USER_INFO_ADVICE } from '../../src/config';
import { newStack, thrown } from '../constructs/synth';
import { botConfig, tool } from '../helpers/config';
import { documentFile, OK, openapi30 } from '../openapi/fixtures';

const SECRET = 's3cr3t-pa55';
const URLS = [
  `http://user:${SECRET}@crm:8080/customers`,
  `https://${SECRET}@crm/customers/{id}`,
  `http://user:${SECRET}@crm:8080/`,
  `http:user:${SECRET}@crm/customers`,
];

describe('security: backend URLs with user info', () => {
  for (const url of URLS) {
    it(`refuses a Service endpoint ${url.replace(SECRET, '…')} without quoting it`, () => {
      const message = thrown(
        () => new Service(newStack(), 'get_customer', { endpoint: { url, method: 'GET' } }),
      ).message;
      assert.equal(message, `Service 'get_customer': endpoint.url ${USER_INFO_ADVICE}`);
      assert.ok(!message.includes(SECRET));
    });

    it(`refuses a gateway config whose backend is ${url.replace(SECRET, '…')}`, () => {
      const config = botConfig([{ ...tool('get_customer', 'http://crm/x'), backend: { url, method: 'GET' } }]);
      const err = thrown(() => parseGatewayConfig(config));
      assert.ok(err instanceof ConfigError, String(err));
      // the config's schema already wants `scheme://`: `http:user@host` is refused there, for its form
      const expected = url.includes('://')
        ? `tools[0].backend.url ${USER_INFO_ADVICE}`
        : 'tools[0].backend.url: must be an http(s) URL';
      assert.ok(err.message.endsWith(expected), err.message);
      assert.ok(!err.message.includes(SECRET));
    });
  }

  it("refuses an OpenAPI document whose server carries user info, and a 'baseUrl' that does", () => {
    const doc = openapi30({ '/x': { get: { operationId: 'getX', responses: OK } } }) as { servers: { url: string }[] };
    doc.servers = [{ url: `http://user:${SECRET}@api.test:8080/v1` }];
    const fromDocument = thrown(() => new OpenApiServices(newStack(), 'api', { document: documentFile(doc) })).message;
    assert.match(fromDocument, new RegExp(`the document's first server ${escape(USER_INFO_ADVICE)}$`));
    assert.ok(!fromDocument.includes(SECRET));
    const plain = openapi30({ '/x': { get: { operationId: 'getX', responses: OK } } });
    const fromProp = thrown(
      () =>
        new OpenApiServices(newStack(), 'api', { document: documentFile(plain), baseUrl: `https://u:${SECRET}@crm` }),
    ).message;
    assert.match(fromProp, new RegExp(`'baseUrl' ${escape(USER_INFO_ADVICE)}$`));
    assert.ok(!fromProp.includes(SECRET));
  });

  it('keeps the password out of the placeholder refusal of http://user:password@{host}/x', () => {
    const message = thrown(
      () => new Service(newStack(), 'x', { endpoint: { url: `http://user:${SECRET}@{host}/x`, method: 'GET' } }),
    ).message;
    assert.match(message, /has a placeholder in the scheme, host or port/);
    assert.ok(!message.includes(SECRET), message);
  });

  it('accepts an @ in the path or query, which is not user info', () => {
    new Service(newStack(), 'mail', { endpoint: { url: 'http://crm:8080/users/a@b.example?cc=c@d', method: 'GET' } });
    parseGatewayConfig(botConfig([tool('mail', 'http://crm:8080/users/a@b.example')]));
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
