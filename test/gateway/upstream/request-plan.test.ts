import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ToolConfig } from '../../../src/config';
import type { RunningGateway } from '../../../src/gateway';
import {
  buildServiceRequest,
  placeholderProblemOf,
  planServiceCall,
  serviceTarget,
} from '../../../src/gateway/upstream/request-plan';
import {
  type EchoResponse,
  startBackend,
  startFakeService,
  type FakeService,
  type TestBackend,
} from '../../helpers/backend';
import { botConfig, gatewayConfig, objectSchema, tool } from '../../helpers/config';
import { type InProcessGateway, startInProcessGateway, startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, type McpSession, openSession, rawCall } from '../../helpers/mcp';
import { BOT, makeToken } from '../../helpers/tokens';

function plan(url: string, method: ToolConfig['backend']['method'] = 'GET') {
  return planServiceCall({ name: 't', description: 'd', input_schema: { type: 'object' }, backend: { url, method } });
}

/** What undici was given before the gateway cut the origin off itself: the WHATWG parse of the filled URL. */
function parsedTarget(url: string): { origin: string; path: string } {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
}

function target(url: string, args: Record<string, unknown>, method: ToolConfig['backend']['method'] = 'GET') {
  const p = plan(url, method);
  const req = buildServiceRequest(p, args);
  return { req, target: serviceTarget(p, req.url) };
}

describe('service request target', () => {
  it('cuts the fixed origin off the filled URL', () => {
    const { target: t } = target('http://crm:8080/customers/{customer_id}', { customer_id: 'C/1 2', limit: 5 });
    assert.deepEqual(t, { origin: 'http://crm:8080', path: '/customers/C%2F1%202?limit=5' });
  });

  it('resolves a placeholder value of ".." or "." as the URL parser does', () => {
    assert.deepEqual(target('http://crm/a/{id}/b', { id: '..' }).target, { origin: 'http://crm', path: '/b' });
    assert.deepEqual(target('http://crm/a/{id}/b', { id: '.' }).target, { origin: 'http://crm', path: '/a/b' });
  });

  it('escapes a quote in the query as %27, as the URL parser does for http(s)', () => {
    assert.deepEqual(target('http://crm/search', { q: "O'Brien" }).target, {
      origin: 'http://crm',
      path: '/search?q=O%27Brien',
    });
  });

  it('leaves templates the URL parser would rewrite to the parser', () => {
    assert.equal(plan('http://CRM:80/a/{id}').fixedOrigin, undefined);
    assert.equal(plan('http://crm/a b/{id}').fixedOrigin, undefined);
    assert.equal(plan('http://crm/a%2e/{id}').fixedOrigin, undefined);
    assert.equal(plan('http://{host}/a').fixedOrigin, undefined);
    assert.equal(plan('http://crm').fixedOrigin, undefined);
    assert.deepEqual(target('http://CRM:80/a b/{id}', { id: 'x' }).target, { origin: 'http://crm', path: '/a%20b/x' });
    assert.deepEqual(target('http://{host}/a', { host: 'other' }).target, { origin: 'http://other', path: '/a' });
  });

  it('gives the target parsing the filled URL gives, for any arguments', () => {
    const templates = [
      'http://crm:8080/customers/{customer_id}',
      'http://127.0.0.1:9000/v1/{a}/items/{b}?source=agent',
      'https://api.example.com/{a}{b}/x',
      'http://[::1]:8080/{a}',
    ];
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom('.', '..', '%2e', "'", '#', '?', '/', ' ', '\\'),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    );
    for (const template of templates) assert.notEqual(plan(template).fixedOrigin, undefined, template);
    fc.assert(
      fc.property(
        fc.constantFrom(...templates),
        fc.record({ customer_id: value, a: value, b: value }, { requiredKeys: [] }),
        fc.dictionary(fc.string({ minLength: 1 }), value, { maxKeys: 3 }),
        (template, placeholders, rest) => {
          const { req, target: t } = target(template, { ...rest, ...placeholders });
          assert.deepEqual(t, parsedTarget(req.url));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('the service request over /mcp: URL, query, body and headers', () => {
  let service: FakeService;
  let gateway: RunningGateway;
  let session: string;
  const OPEN = { type: 'object' };

  before(async () => {
    service = await startFakeService();
    const o = service.url;
    gateway = await startSilentGateway(
      botConfig([
        tool('get_customer', `${o}/customers/{customer_id}`, { inputSchema: OPEN }),
        tool('search', `${o}/tickets?source=agent`, { inputSchema: OPEN }),
        tool('update_settings', `${o}/settings/{team}`, { inputSchema: OPEN, method: 'PUT' }),
        tool('create_task', `${o}/tasks`, {
          method: 'POST',
          inputSchema: objectSchema({ title: { type: 'string' }, prompt: { type: 'string' } }, ['title', 'prompt']),
          aliases: { description: 'prompt' },
          forwardAs: { prompt: 'description' },
        }),
      ]),
    );
    session = await initializeSession(gateway.url);
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });

  const call = (name: string, args?: unknown): Promise<any> => rawCall(gateway.url, session, name, args);
  const last = () => service.received.at(-1)!;

  it('fills a URL placeholder URL-encoded and sends the rest as the query of a GET', async () => {
    await call('get_customer', { customer_id: 'C/1 2', expand: true, limit: 5 });
    assert.equal(last().method, 'GET');
    assert.equal(last().url, '/customers/C%2F1%202?expand=true&limit=5');
    assert.equal(last().body, '');
  });

  it('sends arrays as repeated keys and objects as JSON text, after an existing query', async () => {
    await call('search', { tag: ['a', 'b c'], filter: { status: 'open' } });
    assert.equal(last().url, `/tickets?source=agent&tag=a&tag=b%20c&filter=${encodeURIComponent('{"status":"open"}')}`);
  });

  it('sends the rest as a JSON body for PUT, the placeholder removed', async () => {
    await call('update_settings', { team: 'blue', settings: { theme: 'dark' } });
    assert.equal(last().method, 'PUT');
    assert.equal(last().url, '/settings/blue');
    assert.equal(last().headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(last().body), { settings: { theme: 'dark' } });
  });

  it('normalizes an alias and forwards the parameter under its forward_as name', async () => {
    await call('create_task', { title: 'T', description: 'do it' });
    assert.deepEqual(JSON.parse(last().body), { title: 'T', description: 'do it' });
    await call('create_task', { title: 'T', prompt: 'again' });
    assert.deepEqual(JSON.parse(last().body), { title: 'T', description: 'again' });
  });

  it('refuses a parameter sent together with its alias', async () => {
    const before = service.received.length;
    const res = await call('create_task', { title: 'T', prompt: 'a', description: 'b' });
    assert.equal(res.error.code, -32602);
    assert.equal(res.error.message, 'Conflicting parameters: `prompt` and `description`');
    assert.equal(service.received.length, before);
  });

  it("never forwards the caller's Authorization header or session", async () => {
    await call('get_customer', { customer_id: 'C-1' });
    assert.equal(last().headers.authorization, undefined);
    assert.equal(last().headers['mcp-session-id'], undefined);
    assert.ok(!JSON.stringify(last().headers).includes(BOT.token));
  });
});

describe('the service request of each method, and what never reaches the service', function () {
  this.timeout(20_000);
  const bot = makeToken('audit-bot');
  let backend: TestBackend;
  let gw: InProcessGateway;
  let session: McpSession;

  const tools = (url: string) => [
    tool('delete_tag', `${url}/tags/{tag}`, {
      method: 'DELETE',
      inputSchema: objectSchema(
        {
          tag: { type: 'string' },
          ids: { type: 'array', items: { type: 'integer' } },
          filter: { type: 'object' },
          force: { type: 'boolean' },
        },
        ['tag'],
      ),
    }),
    tool('update_customer', `${url}/customers/{customer_id}/profile`, {
      method: 'PATCH',
      inputSchema: objectSchema({ customer: { type: 'string' }, email: { type: 'string' } }, ['customer']),
      forwardAs: { customer: 'customer_id' },
    }),
    tool('search', `${url}/search?v=1`, { inputSchema: objectSchema({ q: { type: 'string' } }, ['q']) }),
  ];

  const echo = (text: string): EchoResponse => JSON.parse(JSON.parse(text).result.content[0].text) as EchoResponse;

  before(async () => {
    backend = await startBackend();
    gw = await startInProcessGateway(gatewayConfig({ name: 'review-gw', tokens: [bot], tools: tools(backend.url) }));
    session = await openSession(gw.url, { token: bot.token });
  });

  after(async () => {
    await gw?.close();
    await backend?.close();
  });

  it('DELETE: the placeholder in the path, the rest as the query (arrays repeated, objects as JSON text), no body', async () => {
    const res = await session.callTool('delete_tag', {
      tag: 'a b/c?d#e',
      ids: [3, 1],
      filter: { k: [1] },
      force: true,
    });
    const got = echo(res.text);
    assert.equal(got.method, 'DELETE');
    assert.equal(got.path, '/tags/a%20b%2Fc%3Fd%23e');
    assert.deepEqual(got.query, { ids: ['3', '1'], filter: '{"k":[1]}', force: 'true' });
    assert.equal(got.body, null);
    assert.equal(got.headers['content-type'], undefined);
  });

  it('PATCH: forwardAs renames first, so the renamed field fills the placeholder and leaves the JSON body', async () => {
    const res = await session.callTool('update_customer', { customer: 'C-42', email: 'x@example.com' });
    const got = echo(res.text);
    assert.equal(got.method, 'PATCH');
    assert.equal(got.path, '/customers/C-42/profile');
    assert.deepEqual(got.body, { email: 'x@example.com' });
    assert.equal(got.headers['content-type'], 'application/json');
  });

  it('GET: appends the query to a URL that already has one', async () => {
    const got = echo((await session.callTool('search', { q: 'a&b=c' })).text);
    assert.deepEqual(got.query, { v: '1', q: 'a&b=c' });
  });

  it("sends none of the caller's headers: no Authorization, Cookie, Mcp-Session-Id or forwarding headers", async () => {
    const res = await session.callTool(
      'search',
      { q: 'h' },
      {
        headers: { cookie: 'sid=secret-cookie', 'x-forwarded-for': '10.0.0.1', 'x-api-key': 'secret-key' },
      },
    );
    const headers = echo(res.text).headers;
    for (const name of [
      'authorization',
      'cookie',
      'mcp-session-id',
      'mcp-protocol-version',
      'x-forwarded-for',
      'x-api-key',
    ]) {
      assert.equal(headers[name], undefined, `${name} reached the service`);
    }
  });
});

function planWith(
  url: string,
  options: { method?: ToolConfig['backend']['method']; forwardAs?: Record<string, string> } = {},
) {
  return planServiceCall({
    name: 't',
    description: 'd',
    input_schema: { type: 'object' },
    ...(options.forwardAs !== undefined ? { forward_as: options.forwardAs } : {}),
    backend: { url, method: options.method ?? 'GET' },
  });
}

/** Arguments as the gateway receives them: parsed from JSON text, so `__proto__` is an own key like any other. */
function parsed(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

describe('request plan: names are own properties only (docs/input-and-validation.md)', () => {
  for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
    it(`refuses a URL placeholder {${name}} whose parameter is omitted as missing, not filled with an inherited value`, () => {
      const p = planWith(`http://crm/things/{${name}}`);
      const problem = placeholderProblemOf(p, {});
      assert.ok(problem !== undefined, 'an omitted placeholder parameter must be refused');
      assert.equal(problem.message, `Missing required parameter: \`${name}\``);
      assert.deepEqual(
        problem.violations.map((v) => v.rule),
        ['required'],
      );
    });

    it(`never writes an inherited ${name} into the URL, the query or the body`, () => {
      const get = buildServiceRequest(planWith(`http://crm/things/{${name}}/x`), {});
      assert.equal(get.url, 'http://crm/things//x');
      const post = buildServiceRequest(planWith('http://crm/things', { method: 'POST' }), {});
      assert.equal(post.body, '{}');
    });
  }

  it('fills a placeholder {constructor} from an own value', () => {
    const p = planWith('http://crm/constructors/{constructor}');
    assert.equal(placeholderProblemOf(p, { constructor: 'c1' }), undefined);
    assert.equal(buildServiceRequest(p, { constructor: 'c1' }).url, 'http://crm/constructors/c1');
  });

  it('a field renamed to __proto__ never becomes the prototype of the forwarded fields', () => {
    // {meta: {id: "abc"}} must not fill the placeholder {id} through the prototype chain.
    const p = planWith('http://crm/items/{id}', { forwardAs: { meta: '__proto__' } });
    const problem = placeholderProblemOf(p, { meta: { id: 'abc' } });
    assert.equal(problem?.message, 'Missing required parameter: `id`');
    const req = buildServiceRequest(p, { meta: { id: 'abc' }, id: '7' });
    assert.equal(req.url, 'http://crm/items/7?__proto__=%7B%22id%22%3A%22abc%22%7D');
  });

  it('forwards a caller field named __proto__ as an ordinary query field (GET)', () => {
    const req = buildServiceRequest(planWith('http://crm/search'), parsed('{"__proto__":"x","q":"y"}'));
    assert.equal(req.url, 'http://crm/search?__proto__=x&q=y');
  });

  it('forwards a caller field named __proto__ as an ordinary body field, never as the prototype (POST)', () => {
    const req = buildServiceRequest(
      planWith('http://crm/items', { method: 'POST' }),
      parsed('{"__proto__":{"admin":true},"q":1}'),
    );
    assert.equal(req.body, '{"__proto__":{"admin":true},"q":1}');
  });

  it('forwards __proto__ as an ordinary field through a forward_as rename of another parameter', () => {
    const req = buildServiceRequest(
      planWith('http://crm/items', { method: 'POST', forwardAs: { prompt: 'description' } }),
      parsed('{"__proto__":{"admin":true},"prompt":"p"}'),
    );
    assert.deepEqual(Object.keys(JSON.parse(req.body!) as object), ['__proto__', 'description']);
  });
});

describe('request plan: a query parameter fixed in the URL template (docs/gateway.md)', () => {
  it('never duplicates a fixed query parameter with a caller field of the same name', () => {
    const req = buildServiceRequest(planWith('http://api/x?fixed=1'), { fixed: '2', other: 'o' });
    assert.equal(req.url, 'http://api/x?fixed=1&other=o');
  });

  it('compares decoded names: a fixed `a%20b` or `a+b` is the caller field `a b`', () => {
    assert.equal(buildServiceRequest(planWith('http://api/x?a%20b=1'), { 'a b': '2' }).url, 'http://api/x?a%20b=1');
    assert.equal(buildServiceRequest(planWith('http://api/x?k=v&a+b=1'), { 'a b': '2' }).url, 'http://api/x?k=v&a+b=1');
  });

  it('drops a renamed field that lands on a fixed name, and keeps the others', () => {
    const req = buildServiceRequest(planWith('http://api/x?source=agent', { forwardAs: { origin: 'source' } }), {
      origin: 'me',
      q: 'y',
    });
    assert.equal(req.url, 'http://api/x?source=agent&q=y');
  });

  it('leaves a query placeholder to its parameter and does not count it as fixed', () => {
    const req = buildServiceRequest(planWith('http://api/x?q={q}&fixed=1'), { q: 'a b', fixed: '3', more: 1 });
    assert.equal(req.url, 'http://api/x?q=a%20b&fixed=1&more=1');
  });

  it('keeps a body field of the same name as a fixed query parameter (they do not meet)', () => {
    const req = buildServiceRequest(planWith('http://api/x?fixed=1', { method: 'POST' }), { fixed: 2 });
    assert.equal(req.url, 'http://api/x?fixed=1');
    assert.equal(req.body, '{"fixed":2}');
  });
});
