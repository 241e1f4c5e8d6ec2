/**
 * Attack suite (issue 20, names): names that are also properties of every JavaScript object — `toString`,
 * `constructor`, `valueOf`, `hasOwnProperty`, `__proto__` — used over the wire against a real gateway: as tool
 * names, parameters, aliases, `forward_as` targets, header names and values, token ids and scopes. Each call works
 * or is refused with its documented message; none crashes, none reads an inherited value.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../../src/config';
import { readAuditLog, waitForAuditRecords } from '../helpers/audit-log';
import { startBackend, type TestBackend, type EchoResponse } from '../helpers/backend';
import { objectSchema, tool } from '../helpers/config';
import { initializeSession, postMcp, toolsCallRequest } from '../helpers/mcp';
import { makeToken, tokenEntry, sha256Hex } from '../helpers/tokens';
import { configApply, configOf, newStack, synth, thrown } from '../constructs/synth';
import { Gateway, Manifest, Secret, Service } from '../../constructs';
import { parseGatewayConfig } from '../../src/config';
import type { InputSpec } from '../../src/schema';
import { type TerraformStack, TerraformVariable } from 'cdktf';
import { startGatewayProcess, killAllGatewayProcesses } from '../helpers/gateway-process';
import { SECRETS_DIR_ENV } from '../../src/config/deployment';
import { parseDevArgs, resolveGatewayPort, type DevOptions } from '../../src/dev/dev-options';
import { startOn, type GatewayOnPort } from '../helpers/gateway-on-port';

/** Names every plain object answers through its prototype. */
export const OBJECT_NAMES = ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__'] as const;

/** One token per object name, as its id. */
const TOKENS = OBJECT_NAMES.map((name) => makeToken(name));
/** A token with scopes named like object properties. */
const SCOPED = makeToken('scoped');

/** An own property even for `__proto__` (an object literal's `__proto__:` would set the prototype). */
function own(entries: [string, unknown][]): Record<string, unknown> {
  return Object.fromEntries(entries);
}

describe('attack: object-property names over the wire', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let gw: GatewayOnPort;
  const sessions = new Map<string, string>();
  let gwConfig: GatewayConfig;

  before(async () => {
    backend = await startBackend();
    const params = objectSchema(
      { toString: { type: 'string' }, valueOf: { type: 'string' }, hasOwnProperty: { type: 'integer' } },
      ['toString'],
    );
    const tools = OBJECT_NAMES.map((name) => ({
      ...tool(name, `${backend.url}/echo/${name}/{toString}`, {
        method: 'POST',
        inputSchema: params,
        aliases: { isPrototypeOf: 'valueOf' },
        forwardAs: { hasOwnProperty: 'toLocaleString' },
      }),
      required_scopes: name === '__proto__' ? ['constructor'] : ['valueOf'],
    }));
    const headers = own([
      ['__proto__', 'valueOf'],
      ['constructor', 'toString'],
    ]);
    const config: GatewayConfig = {
      version: 1,
      gateway: {
        name: 'names-gw',
        host: '127.0.0.1',
        port: 8080,
        metrics: true,
        // refusals as JSON-RPC errors whatever the revision, so each is asserted by its code
        validation_errors: 'protocol',
        auth: {
          tokens: [
            ...TOKENS.map(tokenEntry),
            { ...tokenEntry(SCOPED), scopes: ['valueOf', 'hasOwnProperty', 'toString', '__proto__'] },
          ],
        },
      },
      tools: tools.map((t) => ({
        ...t,
        backend: { ...t.backend, headers: headers as Record<string, string>, forward_identity: true },
      })),
    };
    gw = await startOn(config);
    gwConfig = config;
    for (const t of [...TOKENS, SCOPED]) sessions.set(t.id, await initializeSession(gw.url, '2025-11-25', t.token));
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  async function call(token: { id: string; token: string }, body: unknown) {
    const res = await postMcp(gw.url, body, { token: token.token, sessionId: sessions.get(token.id) });
    return { status: res.status, message: res.message, headers: res.headers };
  }

  it('a tool of each name is listed and called, its parameters, alias and forward_as applied as own names', async () => {
    for (const name of OBJECT_NAMES) {
      const before = backend.requests;
      const args = { toString: 'C-1', isPrototypeOf: 'v', hasOwnProperty: 7 };
      const { status, message } = await call(TOKENS[0], toolsCallRequest(name, args));
      assert.equal(status, 200, name);
      assert.equal(message?.error, undefined, `${name}: ${JSON.stringify(message?.error)}`);
      assert.equal(backend.requests, before + 1);
      const echo = (message?.result as { structuredContent?: EchoResponse }).structuredContent;
      const text = JSON.parse((message?.result as { content: { text: string }[] }).content[0].text) as EchoResponse;
      const seen = echo ?? text;
      assert.equal(seen.path, `/echo/${name === '__proto__' ? '__proto__' : name}/C-1`);
      assert.deepEqual(
        seen.body,
        own([
          ['valueOf', 'v'],
          ['toLocaleString', 7],
        ]),
      );
      assert.equal(seen.headers['constructor'], 'toString');
      assert.equal(seen.headers['x-mcp-principal'], TOKENS[0].id);
    }
  });

  it('a backend header named __proto__ is sent as configured (Node servers drop it from req.headers: raw headers)', async () => {
    const raw = await new Promise<string[]>((resolve, reject) => {
      const server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        server.close();
        resolve(req.rawHeaders);
      });
      server.listen(0, '127.0.0.1', () => {
        const port = (server.address() as AddressInfo).port;
        const config = JSON.parse(JSON.stringify(gwConfig)) as GatewayConfig;
        const t = {
          ...config.tools[0],
          name: 'raw',
          backend: { ...config.tools[0].backend, url: `http://127.0.0.1:${port}/{toString}` },
        };
        startOn({ ...config, tools: [t] })
          .then(async (other) => {
            try {
              const session = await initializeSession(other.url, '2025-11-25', TOKENS[0].token);
              await postMcp(other.url, toolsCallRequest('raw', { toString: 'x' }), {
                token: TOKENS[0].token,
                sessionId: session,
              });
            } finally {
              await other.close();
            }
          })
          .catch(reject);
      });
    });
    const pairs = new Map<string, string>();
    for (let i = 0; i < raw.length; i += 2) pairs.set(raw[i].toLowerCase(), raw[i + 1]);
    assert.equal(pairs.get('__proto__'), 'valueOf');
    assert.equal(pairs.get('constructor'), 'toString');
  });

  it('tools/list shows every tool to a token without scopes, and only the tools its scopes allow to a scoped one', async () => {
    const all = await call(TOKENS[1], { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const names = (all.message?.result as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    assert.deepEqual(names, [...OBJECT_NAMES].sort());
    const scoped = await call(SCOPED, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const visible = (scoped.message?.result as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    assert.deepEqual(visible, ['constructor', 'hasOwnProperty', 'toString', 'valueOf']);
  });

  it('a call needing the scope `constructor` is refused 403 insufficient_scope to a token without it', async () => {
    const before = backend.requests;
    const res = await call(SCOPED, toolsCallRequest('__proto__', { toString: 'C-1' }));
    assert.equal(res.status, 403);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    assert.match(res.headers.get('www-authenticate') ?? '', /scope="constructor"/);
    assert.equal(backend.requests, before);
    const ok = await call(SCOPED, toolsCallRequest('valueOf', { toString: 'C-1' }));
    assert.equal(ok.message?.error, undefined);
  });

  it('unknown tools named like inherited properties are Unknown tool, never a prototype hit', async () => {
    for (const name of ['prototype', 'isPrototypeOf', '__defineGetter__', 'propertyIsEnumerable', 'toLocaleString']) {
      const { status, message } = await call(TOKENS[2], toolsCallRequest(name, {}));
      assert.equal(status, 200);
      assert.equal(message?.error?.code, -32602, name);
      assert.equal(message?.error?.message, `Unknown tool: \`${name}\``);
    }
  });

  it('arguments named __proto__, constructor or prototype are unknown properties, refused before the backend', async () => {
    const before = backend.requests;
    for (const key of ['__proto__', 'constructor', 'prototype', 'valueOf ']) {
      const body = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"toString","arguments":{"toString":"C-1",${JSON.stringify(key)}:{"polluted":true}}}}`;
      const res = await postMcp(gw.url, JSON.parse(body), {
        token: TOKENS[3].token,
        sessionId: sessions.get(TOKENS[3].id),
      });
      assert.equal(res.status, 200);
      assert.equal(res.message?.error?.code, -32602, key);
      assert.equal(
        (res.message?.error?.data as { violations: { path: string; rule: string }[] }).violations[0].rule,
        'additionalProperties',
        key,
      );
    }
    assert.equal(backend.requests, before);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('params and a tool name of the wrong shape, or named like inherited properties, are refused with their code', async () => {
    for (const params of [
      own([['__proto__', { name: 'toString' }]]),
      { name: { toString: 'x' } },
      { name: 'toString', arguments: [] },
    ]) {
      const res = await call(TOKENS[4], { jsonrpc: '2.0', id: 4, method: 'tools/call', params });
      assert.equal(res.status, 200);
      assert.equal(res.message?.error?.code, -32602, JSON.stringify(params));
    }
  });

  it('each token id is its own principal in the audit and the metrics', async () => {
    await waitForAuditRecords(gw.auditLogPath, 5, { where: (r) => r.tool !== null });
    const principals = new Set(readAuditLog(gw.auditLogPath).map((r) => `${String(r.auth)}:${String(r.principal)}`));
    assert.ok(principals.has('token:toString'));
    const metrics = await fetch(gw.url.replace(/\/mcp$/, '/metrics'), {
      headers: { authorization: `Bearer ${TOKENS[1].token}` },
    });
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    assert.match(text, /mcp_gateway_tool_calls_total\{[^}]*tool="__proto__"[^}]*principal="toString"/);
  });
});

/** The names that are plain parameter names (the other two are refused as parameters by design). */
const PARAM_NAMES = ['toString', 'valueOf', 'hasOwnProperty'] as const;

describe('object-property names at synthesis', () => {
  function stackWith(name: string): TerraformStack {
    const stack = newStack();
    const service = new Service(stack, 'svc', {
      name,
      description: `The ${name} service`,
      endpoint: {
        url: 'http://crm:8080/x/{toString}',
        method: 'POST',
        headers: own([
          ['constructor', 'toString'],
          ['__proto__', Secret.env('__proto__')],
          ['valueOf', Secret.env('constructor')],
        ]) as Record<string, string>,
      },
      input: {
        toString: { type: 'string', required: true, aliases: ['constructorName'] },
        valueOf: { type: 'integer', forwardAs: 'toLocaleString' },
        hasOwnProperty: { type: 'object', properties: { toString: { type: 'string' }, valueOf: { type: 'boolean' } } },
      } as InputSpec,
      requiredScopes: ['constructor', '__proto__'],
    });
    const secret = (id: string) => new TerraformVariable(stack, id, { type: 'string', sensitive: true }).stringValue;
    new Gateway(stack, 'names', {
      services: [service],
      secrets: own([
        ['__proto__', secret('proto-secret')],
        ['constructor', secret('constructor-secret')],
      ]) as Record<string, string>,
      auth: { tokens: OBJECT_NAMES.map((id) => ({ id, sha256: sha256Hex(id), scopes: ['constructor', 'toString'] })) },
    });
    return stack;
  }

  for (const name of OBJECT_NAMES) {
    it(`a service named ${name} with such parameters, alias, forwardAs, headers, secrets, scopes and token ids synthesizes them as own names`, () => {
      const json = synth(stackWith(name));
      const config = configOf(json, 'names');
      const t = config.tools[0];
      assert.equal(t.name, name);
      const properties = (t.input_schema as { properties: Record<string, unknown> }).properties;
      assert.deepEqual(Object.keys(properties), [...PARAM_NAMES]);
      assert.deepEqual(Object.keys((properties['hasOwnProperty'] as unknown as { properties: object }).properties), [
        'toString',
        'valueOf',
      ]);
      assert.deepEqual(t.aliases, { constructorName: 'toString' });
      assert.deepEqual(t.forward_as, { valueOf: 'toLocaleString' });
      assert.deepEqual(t.required_scopes, ['constructor', '__proto__']);
      const headers = t.backend.headers!;
      assert.deepEqual(Object.keys(headers), ['constructor', '__proto__', 'valueOf']);
      assert.equal(headers.constructor, 'toString');
      assert.deepEqual(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value, { secret: '__proto__' });
      // the secrets reach the gateway through its config hand-over, as files under /run/secrets
      const files = configApply(json, 'names').handoff.files.map((f) => f.path);
      assert.ok(files.includes('/run/secrets/__proto__') && files.includes('/run/secrets/constructor'), String(files));
      const auth = config.gateway.auth as unknown as { tokens: { id: string }[] };
      assert.deepEqual(
        auth.tokens.map((tok) => tok.id),
        [...OBJECT_NAMES],
      );
    });
  }

  it('__proto__, constructor and prototype are refused as parameter names, aliases and forwardAs targets, naming the fix', () => {
    for (const bad of ['__proto__', 'constructor', 'prototype']) {
      const err = (input: Record<string, unknown>) =>
        thrown(
          () =>
            new Service(newStack(), 'svc', {
              endpoint: { url: 'http://crm:8080/x', method: 'POST' },
              input: input as never,
            }),
        ).message;
      const why = '(JavaScript objects inherit or use it: __proto__, constructor, prototype)';
      assert.equal(
        err(own([[bad, { type: 'string' }]])),
        `Service 'svc': invalid 'input': Invalid input spec at \`${bad}\`: the name "${bad}" is reserved ${why}; choose another name`,
      );
      assert.equal(
        err({ a: { type: 'string', aliases: [bad] } }),
        `Service 'svc': invalid 'input': Invalid input spec at \`a\`: alias "${bad}" is reserved ${why}; choose another alias`,
      );
      assert.equal(
        err({ a: { type: 'string', forwardAs: bad } }),
        `Service 'svc': invalid 'input': Invalid input spec at \`a\`: forwardAs "${bad}" is reserved ${why}; choose another backend field name`,
      );
    }
  });

  it('a manifest whose parameters, aliases, forward_as, headers and secrets are such names synthesizes them', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'names-manifest-'));
    try {
      const file = path.join(dir, 'names.yaml');
      const tokens = OBJECT_NAMES.map((id) => `{ id: "${id}", sha256: "${sha256Hex(id)}" }`).join(', ');
      writeFileSync(
        file,
        `services:
  lookup:
    endpoint: { url: "http://crm:8080/x/{toString}", method: POST, headers: { constructor: toString, __proto__: { secret: __proto__ } } }
    input:
      toString: { type: string, required: true, aliases: [constructorName] }
      valueOf: { type: integer, forward_as: toLocaleString }
      hasOwnProperty: { type: object, properties: { toString: { type: string } } }
    required_scopes: [constructor]
gateways:
  names:
    services: [lookup]
    auth: { tokens: [${tokens}] }
`,
      );
      const stack = newStack();
      new Manifest(stack, 'm', { path: file });
      const config = configOf(synth(stack), 'names');
      const t = config.tools[0];
      assert.deepEqual(Object.getOwnPropertyDescriptor(t.backend.headers, '__proto__')?.value, { secret: '__proto__' });
      assert.equal(t.backend.headers!.constructor, 'toString');
      assert.deepEqual(Object.keys(t.input_schema.properties as object), [...PARAM_NAMES]);
      assert.deepEqual(t.aliases, { constructorName: 'toString' });
      assert.deepEqual(t.forward_as, { valueOf: 'toLocaleString' });
      assert.deepEqual(t.required_scopes, ['constructor']);
      assert.deepEqual(
        (config.gateway.auth as unknown as { tokens: { id: string }[] }).tokens.map((x) => x.id),
        [...OBJECT_NAMES],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('object-property names in a config', () => {
  /** A config document as text, so that `__proto__` keys are own keys as a file would give them. */
  function configText(): string {
    return JSON.stringify({
      version: 1,
      gateway: {
        name: 'names-config',
        host: '127.0.0.1',
        port: 8080,
        auth: {
          tokens: OBJECT_NAMES.map((id) => ({ id, sha256: sha256Hex(id), scopes: ['constructor', '__proto__'] })),
        },
      },
      tools: OBJECT_NAMES.map((name) => ({
        name,
        description: name,
        input_schema: objectSchema({ toString: { type: 'string' }, valueOf: { type: 'string' } }, ['toString']),
        aliases: { hasOwnProperty: 'valueOf' },
        forward_as: { valueOf: 'toLocaleString' },
        required_scopes: ['constructor'],
        backend: {
          url: 'http://127.0.0.1:9/{toString}',
          method: 'POST',
          headers: own([
            ['constructor', 'x'],
            ['__proto__', { secret: 'constructor' }],
          ]),
        },
      })),
    });
  }

  it('loads tools, parameters, aliases, forward_as, headers, secrets, scopes and token ids with such names as own names', () => {
    const config = parseGatewayConfig(JSON.parse(configText()));
    assert.deepEqual(
      config.tools.map((t) => t.name),
      [...OBJECT_NAMES],
    );
    assert.deepEqual(Object.getOwnPropertyDescriptor(config.tools[4].backend.headers, '__proto__')?.value, {
      secret: 'constructor',
    });
  });

  it('serve runs such a config file: secrets named __proto__ and constructor read, every tool called', async () => {
    const backend = await startBackend();
    const secrets = mkdtempSync(path.join(tmpdir(), 'names-secrets-'));
    const saved = process.env[SECRETS_DIR_ENV];
    try {
      writeFileSync(path.join(secrets, '__proto__'), 'proto-secret\n');
      writeFileSync(path.join(secrets, 'constructor'), 'constructor-secret\n');
      process.env[SECRETS_DIR_ENV] = secrets;
      const text = configText()
        .replaceAll('http://127.0.0.1:9', backend.url)
        .replace(/"constructor":"x"/g, '"constructor":{"secret":"__proto__"}');
      const gw = await startGatewayProcess({ config: text, auditLog: false });
      for (const id of OBJECT_NAMES) {
        const session = await initializeSession(gw.url, '2025-11-25', id);
        for (const name of OBJECT_NAMES) {
          const res = await postMcp(gw.url, toolsCallRequest(name, { toString: 'C-1', hasOwnProperty: 'v' }), {
            token: id,
            sessionId: session,
          });
          assert.equal(res.status, 200, `${id} calling ${name}`);
          assert.equal(res.message?.error, undefined, `${id} calling ${name}: ${JSON.stringify(res.message?.error)}`);
          const echo = JSON.parse(
            (res.message?.result as { content: { text: string }[] }).content[0].text,
          ) as EchoResponse;
          assert.equal(echo.path, '/C-1');
          assert.deepEqual(echo.body, { toLocaleString: 'v' });
          assert.equal(echo.headers.constructor, 'proto-secret');
        }
      }
    } finally {
      if (saved === undefined) delete process.env[SECRETS_DIR_ENV];
      else process.env[SECRETS_DIR_ENV] = saved;
      await killAllGatewayProcesses();
      rmSync(secrets, { recursive: true, force: true });
      await backend.close();
    }
  });

  it('refuses __proto__, constructor and prototype as parameter names, aliases and forward_as targets, naming the fix', () => {
    for (const bad of ['__proto__', 'constructor', 'prototype']) {
      const doc = JSON.parse(configText()) as { tools: Record<string, unknown>[] };
      doc.tools = [{ ...doc.tools[0], aliases: own([[bad, 'valueOf']]) }];
      assert.throws(() => parseGatewayConfig(doc), new RegExp(`${bad}.*reserved`));
      doc.tools = [{ ...doc.tools[0], aliases: {}, forward_as: { valueOf: bad } }];
      assert.throws(() => parseGatewayConfig(doc), new RegExp(`${bad}.*reserved`));
    }
  });
});

describe('object-property names as construct ids', () => {
  it('a Service or Gateway with such an id is refused with the fix (the name as a prop for a service)', () => {
    for (const id of OBJECT_NAMES) {
      assert.equal(
        thrown(() => new Service(newStack(), id, { endpoint: { url: 'http://crm:8080/x', method: 'GET' } })).message,
        `Service id '${id}' is a name every JavaScript object inherits, which the constructs library takes for an ` +
          `existing child: give it another id and set name: '${id}' (the name can be any; the id cannot)`,
      );
      assert.equal(
        thrown(() => new Gateway(newStack(), id, { services: [], auth: 'none' })).message,
        `Gateway id '${id}' is a name every JavaScript object inherits, which the constructs library takes for an ` +
          'existing child: give it another id',
      );
    }
  });

  it('a manifest entry with such a key is refused at the entry, never taken for an existing construct', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'names-manifest-'));
    try {
      const file = path.join(dir, 'names.yaml');
      writeFileSync(
        file,
        `services:
  toString:
    endpoint: { url: "http://crm:8080/x", method: GET }
gateways:
  constructor:
    services: [toString]
    auth: none
`,
      );
      const message = thrown(() => new Manifest(newStack(), 'm', { path: file })).message;
      const why =
        'is one every JavaScript object inherits, which the constructs library cannot hold as a construct id ' +
        '(services, gateways, dashboards and limit stores become constructs named after their keys): give the entry another name';
      assert.equal(
        message.replaceAll(file, 'names.yaml'),
        `names.yaml:2:3: services.toString: the name \`toString\` ${why}\n` +
          `names.yaml:5:3: gateways.constructor: the name \`constructor\` ${why}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('object-property names in dev', () => {
  it('a gateway named like an inherited property gets its port by its own name, never an inherited value', () => {
    const o = parseDevArgs(['--port', 'toString=9001', '--port-offset', '10'], '/work') as DevOptions;
    assert.equal(resolveGatewayPort(o, 'toString', 8080, 3), 9001);
    for (const name of ['constructor', 'valueOf', 'hasOwnProperty', '__proto__']) {
      assert.equal(resolveGatewayPort(o, name, 8081, 3), 8091, name);
    }
    const own = parseDevArgs(['--port', '__proto__=9002'], '/work') as DevOptions;
    assert.equal(resolveGatewayPort(own, '__proto__', 8080, 2), 9002);
  });
});

describe('object-property names in response controls (a hostile backend)', function () {
  this.timeout(30_000);

  it('declared fields, redact paths and redact patterns with such names act on own fields only', async () => {
    const body =
      '{"__proto__":{"polluted":"x","email":"a@b.c"},"constructor":"c","toString":"secret-123",' +
      '"valueOf":{"email":"v@x.y"},"hasOwnProperty":[{"card":"4111"}]}';
    const backend = await startBackend({ respond: () => ({ body }) });
    const token = makeToken('reader');
    const output = {
      ...objectSchema({
        constructor: { type: 'string' },
        toString: { type: 'string' },
        valueOf: objectSchema({ email: { type: 'string' } }),
        hasOwnProperty: { type: 'array', items: objectSchema({ card: { type: 'string' } }) },
      }),
      additionalProperties: true,
    };
    const redacted = {
      constructor: '[redacted]',
      toString: '[redacted]',
      valueOf: { email: '[redacted]' },
      hasOwnProperty: [{ card: '[redacted]' }],
    };
    try {
      for (const fields of ['declared', 'all'] as const) {
        const config: GatewayConfig = {
          version: 1,
          gateway: { name: 'response-names', host: '127.0.0.1', port: 8080, auth: { tokens: [tokenEntry(token)] } },
          tools: [
            {
              ...tool('lookup', `${backend.url}/x`),
              output_schema: output,
              response: {
                fields,
                redact: ['toString', '__proto__.email', 'valueOf.email', 'hasOwnProperty[].card', 'constructor'],
                redact_patterns: { constructor: 'secret-[0-9]+' },
              },
            },
          ],
        };
        const gw = await startOn(config);
        try {
          const session = await initializeSession(gw.url, '2025-11-25', token.token);
          const res = await postMcp(gw.url, toolsCallRequest('lookup', {}), { token: token.token, sessionId: session });
          const structured = (res.message?.result as { structuredContent: Record<string, unknown> }).structuredContent;
          const expected =
            fields === 'declared'
              ? redacted
              : own([['__proto__', { polluted: 'x', email: '[redacted]' }], ...Object.entries(redacted)]);
          assert.deepEqual(structured, expected, fields);
        } finally {
          await gw.close();
        }
      }
    } finally {
      await backend.close();
    }
  });
});
