/**
 * Secret references of backend headers and CA bundles (docs/constructs.md `endpoint.headers`): read at start from
 * `/run/secrets/NAME` (here a temp dir) or the environment; a missing one is one line naming it; the value is
 * never in an error. The header rules (reserved names, sendable values) are the config's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConfigError, parseGatewayConfig, type GatewayConfig, type ToolConfig } from '../../../src/config';
import { readSecrets } from '../../../src/gateway/upstream/secrets';
import { planServiceCall } from '../../../src/gateway/upstream/request-plan';
import { botConfig, tool } from '../../helpers/config';

const CANARY = 'canary-5ecret-value-never-shown';

function withHeaders(
  headers: NonNullable<ToolConfig['backend']['headers']>,
  url = 'http://127.0.0.1:9/x',
): GatewayConfig {
  const t = tool('crm', url);
  return botConfig([{ ...t, backend: { ...t.backend, headers } }]);
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('backend secrets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads /run/secrets/NAME first, dropping one trailing line break, then the environment variable NAME', () => {
    writeFileSync(path.join(dir, 'CRM_API_KEY'), `${CANARY}\n`);
    const config = withHeaders({ authorization: { secret: 'CRM_API_KEY' }, 'x-other': { secret: 'OTHER_KEY' } });
    const values = readSecrets(config, { dir, env: { CRM_API_KEY: 'from-env', OTHER_KEY: 'env-value' } });
    assert.equal(values.get('CRM_API_KEY'), CANARY);
    assert.equal(values.get('OTHER_KEY'), 'env-value');
  });

  it('refuses a missing secret with one line naming the field, the secret, the file and the variable', () => {
    const err = errorOf(() => readSecrets(withHeaders({ Authorization: { secret: 'CRM_API_KEY' } }), { dir, env: {} }));
    assert.ok(err instanceof ConfigError);
    assert.equal(
      err.message,
      `tools[0].backend.headers.Authorization: secret CRM_API_KEY is not set: give the gateway the file ${path.join(dir, 'CRM_API_KEY')} ` +
        '(a Docker secret) or the environment variable CRM_API_KEY',
    );
    assert.ok(!err.message.includes('\n'));
  });

  it('refuses an empty secret, and never reads a key of the prototype as a variable', () => {
    assert.match(
      errorOf(() => readSecrets(withHeaders({ a: { secret: 'EMPTY' } }), { dir, env: { EMPTY: '' } })).message,
      /secret EMPTY is empty$/,
    );
    const env = Object.create({ INHERITED: CANARY }) as Record<string, string>;
    assert.match(
      errorOf(() => readSecrets(withHeaders({ a: { secret: 'INHERITED' } }), { dir, env })).message,
      /secret INHERITED is not set/,
    );
  });

  it('names an unreadable secret file by its error code, not its content', () => {
    mkdirSync(path.join(dir, 'A_DIR'));
    const err = errorOf(() => readSecrets(withHeaders({ a: { secret: 'A_DIR' } }), { dir, env: {} }));
    assert.match(err.message, /secret A_DIR: cannot read .*A_DIR \(EISDIR\)$/);
  });

  it('refuses a secret value that cannot be a header value, without quoting it', () => {
    const config = withHeaders({ authorization: { secret: 'MULTI' } });
    const secrets = readSecrets(config, { dir, env: { MULTI: `${CANARY}\r\nx-injected: 1` } });
    const err = errorOf(() => planServiceCall(config.tools[0], secrets, 'tools[0]'));
    assert.equal(
      err.message,
      'tools[0].backend.headers.authorization: secret MULTI holds a line break, which cannot be sent in a header',
    );
    assert.ok(!err.message.includes(CANARY));
  });

  it("puts literal and secret header values after the gateway's own headers", () => {
    const config = withHeaders({ Authorization: { secret: 'KEY' }, 'X-Tenant': 'acme' });
    const plan = planServiceCall(config.tools[0], readSecrets(config, { dir, env: { KEY: 'Bearer k' } }), 'tools[0]');
    assert.deepEqual(plan.headers, [
      'accept',
      'application/json',
      'user-agent',
      'cdktf-mcp-gateway',
      'authorization',
      'Bearer k',
      'x-tenant',
      'acme',
    ]);
  });
});

describe('backend headers in a config', () => {
  const refused = (headers: Record<string, unknown>, url?: string): string =>
    errorOf(() => parseGatewayConfig(withHeaders(headers as never, url))).message;

  for (const name of [
    'Host',
    'content-length',
    'Connection',
    'transfer-encoding',
    'keep-alive',
    'upgrade',
    'te',
    'trailer',
    'Proxy-Authorization',
    'content-type',
  ]) {
    it(`refuses the reserved header ${name}`, () => {
      assert.match(
        refused({ [name]: 'x' }),
        new RegExp(
          `^tools\\[0\\]\\.backend\\.headers(\\.|\\[")${name}("\\])?: is reserved: the gateway or the connection sets it$`,
        ),
      );
    });
  }

  it('refuses X-MCP-Principal and X-MCP-Client: only forward_identity sets them', () => {
    assert.match(refused({ 'X-MCP-Principal': 'admin' }), /is reserved: it is set only by forward_identity/);
    assert.match(refused({ 'x-mcp-client': 'x' }), /is reserved: it is set only by forward_identity/);
  });

  it('allows Authorization (credentials towards the backend are the point)', () => {
    assert.doesNotThrow(() => parseGatewayConfig(withHeaders({ Authorization: { secret: 'CRM_API_KEY' } })));
  });

  it('refuses a header twice in another case, an invalid name, a literal with a line break, a bad secret name', () => {
    assert.match(refused({ 'X-Key': 'a', 'x-key': 'b' }), /headers\["x-key"\]: repeats the header "X-Key"/);
    assert.match(refused({ 'bad name': 'a' }), /headers\["bad name"\]: is not a valid header name/);
    assert.match(refused({ 'x-a': 'a\r\nhost: evil' }), /headers\["x-a"\]: holds a line break/);
    assert.match(refused({ 'x-a': { secret: '1BAD' } }), /headers\["x-a"\]\.secret: must be a secret name/);
    assert.match(refused({ 'x-a': { secret: 'A', extra: 1 } }), /headers\["x-a"\]\.extra: unknown field/);
    assert.match(refused({ 'x-a': 42 }), /headers\["x-a"\]: must be a string or \{ secret: NAME \}/);
  });

  it('refuses tls on an http:// URL and a tls without exactly one of ca_file and ca_secret', () => {
    const t = tool('crm', 'http://127.0.0.1:9/x');
    const bad = (tls: unknown, url = t.backend.url): string =>
      errorOf(() => parseGatewayConfig(botConfig([{ ...t, backend: { ...t.backend, url, tls: tls as never } }])))
        .message;
    assert.match(bad({ ca_file: '/ca.pem' }), /tools\[0\]\.backend\.tls: applies only to an https:\/\/ URL/);
    assert.match(
      bad({}, 'https://127.0.0.1/x'),
      /tools\[0\]\.backend\.tls: must be \{ ca_file: PATH \} or \{ ca_secret: NAME \}/,
    );
    assert.match(bad({ ca_file: 'a', ca_secret: 'B' }, 'https://127.0.0.1/x'), /tools\[0\]\.backend\.tls: must be/);
  });

  it('accepts __proto__ and constructor as header names as plain own keys', () => {
    const doc = JSON.parse('{"__proto__":"a","constructor":"b"}') as Record<string, string>;
    const config = parseGatewayConfig(withHeaders(doc));
    const plan = planServiceCall(config.tools[0], readSecrets(config, { env: {} }), 'tools[0]');
    assert.deepEqual(plan.headers.slice(-4), ['__proto__', 'a', 'constructor', 'b']);
  });
});
