import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Testing } from 'cdktf';
import { Manifest, ManifestError } from '../../constructs';
import { generateInputSchema } from '../../src/schema';
import { configOf, hashOf, newStack, synth, thrown } from './synth';

const SHA = hashOf('manifest-token');

/** A service + gateway manifest; tests change a line or two. */
const GOOD = `services:
  get_customer:
    description: Look up a customer
    endpoint: { url: "http://crm:8080/customers/{customer_id}", method: GET }
    input:
      customer_id: { type: string, required: true, min_length: 6 }
    timeout_ms: 5000
    container: { image: "acme/crm:1.4", port: 8080, env: { PORT: 8080 } }
gateways:
  support:
    services: [get_customer]
    validate_input: true
    validation_errors: protocol
    audit_log: true
    auth: { tokens: [{ id: support-bot, sha256: "${SHA}" }] }
    port: 8080
`;

describe('Manifest', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-test-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Write `text` as `name` in the temp dir and return its path. */
  function file(text: string, name = 'support-desk.yaml'): string {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  }

  /** The error message of loading `text`, with the temp dir removed from the file names. */
  function errorOf(text: string): string {
    const p = file(text);
    const err = thrown(() => new Manifest(newStack(), 'm', { path: p }));
    assert.ok(err instanceof ManifestError, `expected a ManifestError, got ${err.message}`);
    return err.message.split(`${dir}${path.sep}`).join('');
  }

  describe('a good manifest', () => {
    it('creates the services and gateways it declares', () => {
      const manifest = new Manifest(newStack(), 'm', { path: file(GOOD) });
      assert.deepEqual([...manifest.services.keys()], ['get_customer']);
      assert.deepEqual([...manifest.gateways.keys()], ['support']);
      const tool = manifest.services.get('get_customer')!.toolConfig();
      assert.deepEqual(
        tool.input_schema,
        generateInputSchema({ customer_id: { type: 'string', required: true, minLength: 6 } }),
      );
      assert.deepEqual(tool.backend, {
        url: 'http://crm:8080/customers/{customer_id}',
        method: 'GET',
        timeout_ms: 5000,
      });
    });

    it('synthesizes the gateway config with the snake_case settings', () => {
      const stack = newStack();
      new Manifest(stack, 'm', { path: file(GOOD) });
      const config = configOf(synth(stack), 'support');
      assert.deepEqual(config.gateway, {
        name: 'support',
        host: '0.0.0.0',
        port: 8080,
        validate_input: true,
        validation_errors: 'protocol',
        auth: { tokens: [{ id: 'support-bot', sha256: SHA }] },
        audit_log: true,
        session_key_store: '/var/lib/cdktf-mcp-gateway/session-key',
      });
    });

    it('reads container env numbers as strings', () => {
      const stack = newStack();
      new Manifest(stack, 'm', { path: file(GOOD) });
      const json = synth(stack);
      const backend = Object.values(json.resource.docker_container).find(
        (c: any) => c.name === 'test-get_customer',
      ) as any;
      assert.deepEqual(backend.env, ['PORT=8080']);
    });

    it('refuses a service and a gateway sharing a name, at the second: both would be one construct of the stack', () => {
      const text = GOOD.replace('gateways:\n  support:', 'gateways:\n  get_customer:');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:10:3: gateways.get_customer: the name `get_customer` is taken by services.get_customer: ' +
          'services, gateways, dashboards, limit stores and openapi entries become constructs of the stack named after their keys, so each needs ' +
          'its own name',
      );
    });

    it("refuses an entry named like the manifest's own construct id, saying so", () => {
      const p = file(GOOD);
      const err = thrown(() => new Manifest(newStack(), 'support', { path: p }));
      assert.equal(
        err.message.split(`${dir}${path.sep}`).join(''),
        'support-desk.yaml:10:3: gateways.support: the name `support` is taken by the id of this Manifest (give the ' +
          'Manifest another id): services, gateways, dashboards, limit stores and openapi entries become constructs of the stack named after their ' +
          'keys, so each needs its own name',
      );
    });
  });

  describe('a bad manifest', () => {
    it('reports a YAML syntax error with line and column', () => {
      const text = GOOD.replace('    timeout_ms: 5000', '    timeout_ms: [5000');
      assert.equal(errorOf(text), 'support-desk.yaml:7:17: this `[` is not closed: end the list with `]`');
    });

    it('reports a value of the wrong type at the value', () => {
      const text = GOOD.replace('    validate_input: true', '    validate_input: "yes"');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:12:21: gateways.support.validate_input: expected a boolean (true or false)',
      );
    });

    it('reports an unknown key at the key, listing the known ones', () => {
      const text = GOOD.replace('    timeout_ms: 5000', '    timeout: 5000');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:7:5: services.get_customer.timeout: unknown key `timeout` (expected one of: description, ' +
          'endpoint, input, input_schema, output, output_schema, response, timeout_ms, container, forward_identity, idempotent, ' +
          'required_scopes, rate_limits)',
      );
    });

    it('names the known key nearest a misspelt one, at every depth', () => {
      assert.match(
        errorOf(GOOD.replace('validate_input:', 'validate_inputs:')),
        /^support-desk\.yaml:12:5: gateways\.support\.validate_inputs: unknown key `validate_inputs`, did you mean `validate_input`\? \(expected one of: services, validate_input, /,
      );
      assert.match(
        errorOf(GOOD.replace('required: true', 'requried: true')),
        /^support-desk\.yaml:6:36: services\.get_customer\.input\.customer_id\.requried: unknown key `requried`, did you mean `required`\? \(expected one of: type, required, /,
      );
      assert.match(
        errorOf(GOOD.replace(`sha256: "${SHA}" }`, `sha256: "${SHA}", scope: [read] }`)),
        /^support-desk\.yaml:15:\d+: gateways\.support\.auth\.tokens\[0\]\.scope: unknown key `scope`, did you mean `scopes`\? \(expected one of: id, sha256, scopes\)$/,
      );
      // camelCase from the TypeScript props, and a top-level key
      assert.match(
        errorOf(GOOD.replace('validate_input:', 'validateInput:')),
        /gateways\.support\.validateInput: unknown key `validateInput`, did you mean `validate_input`\? /,
      );
      assert.match(errorOf(GOOD.replace('gateways:', 'gateway:')), /unknown key `gateway`, did you mean `gateways`\? /);
      // near no known key: the list alone
      assert.match(
        errorOf(GOOD.replace('    port: 8080', '    colour: red')),
        /unknown key `colour` \(expected one of: /,
      );
    });

    it('reads a misspelt key as the one it is near, so that it is the one mistake said for it', () => {
      const known = 'services, gateways, dashboards, limit_stores, openapi';
      // not also a manifest without services, and every gateway's service unknown
      assert.equal(
        errorOf(GOOD.replace('services:\n', 'servcies:\n')),
        `support-desk.yaml:1:1: servcies: unknown key \`servcies\`, did you mean \`services\`? (expected one of: ${known})`,
      );
      assert.equal(
        errorOf(GOOD.replace('gateways:\n', 'gateway:\n')),
        `support-desk.yaml:9:1: gateway: unknown key \`gateway\`, did you mean \`gateways\`? (expected one of: ${known})`,
      );
      // what is under it is checked as what it is near, and said where it is written
      assert.deepEqual(
        errorOf(GOOD.replace('services:\n', 'servcies:\n').replace('timeout_ms: 5000', 'timeout_ms: 5s')).split('\n'),
        [
          `support-desk.yaml:1:1: servcies: unknown key \`servcies\`, did you mean \`services\`? (expected one of: ${known})`,
          'support-desk.yaml:7:17: servcies.get_customer.timeout_ms: expected an integer between 1 and 600000 (milliseconds)',
        ],
      );
      // at every depth: not also a gateway missing its services
      assert.match(
        errorOf(GOOD.replace('    services: [get_customer]', '    servces: [get_customer]')),
        /^support-desk\.yaml:11:5: gateways\.support\.servces: unknown key `servces`, did you mean `services`\? \(expected one of: [^\n]*\)$/,
      );
      // the key it is near is written too, or another misspelling is read as it: the misspelt one is only unknown
      assert.equal(
        errorOf(`${GOOD}servcies:\n  other: {}\n`),
        `support-desk.yaml:17:1: servcies: unknown key \`servcies\`, did you mean \`services\`? (expected one of: ${known})`,
      );
      assert.deepEqual(errorOf(`${GOOD.replace('services:\n', 'servcies:\n')}servces:\n  other: {}\n`).split('\n'), [
        `support-desk.yaml:1:1: servcies: unknown key \`servcies\`, did you mean \`services\`? (expected one of: ${known})`,
        `support-desk.yaml:17:1: servces: unknown key \`servces\`, did you mean \`services\`? (expected one of: ${known})`,
      ]);
    });

    it('reads a misspelt key under a misspelt key as the one it is near too', () => {
      const known = 'services, gateways, dashboards, limit_stores, openapi';
      const serviceKeys =
        'description, endpoint, input, input_schema, output, output_schema, response, timeout_ms, container, ' +
        'forward_identity, idempotent, required_scopes, rate_limits';
      // not also a service missing its endpoint
      assert.deepEqual(
        errorOf(GOOD.replace('services:\n', 'servcies:\n').replace('    endpoint:', '    endpont:')).split('\n'),
        [
          `support-desk.yaml:1:1: servcies: unknown key \`servcies\`, did you mean \`services\`? (expected one of: ${known})`,
          `support-desk.yaml:4:5: servcies.get_customer.endpont: unknown key \`endpont\`, did you mean \`endpoint\`? (expected one of: ${serviceKeys})`,
        ],
      );
      // in a list under it: not also a limit missing its calls, and what is under it said where it is written
      const limits = '    timeout_ms: 5000\n    rate_limit:\n      - cals: 10\n        per: minut\n';
      assert.deepEqual(errorOf(GOOD.replace('    timeout_ms: 5000\n', limits)).split('\n'), [
        `support-desk.yaml:8:5: services.get_customer.rate_limit: unknown key \`rate_limit\`, did you mean \`rate_limits\`? (expected one of: ${serviceKeys})`,
        'support-desk.yaml:9:9: services.get_customer.rate_limit[0].cals: unknown key `cals`, did you mean `calls`? (expected one of: calls, per)',
        'support-desk.yaml:10:14: services.get_customer.rate_limit[0].per: expected one of second, minute, hour, day',
      ]);
    });

    it('reports a gateway naming an unknown service', () => {
      const text = GOOD.replace('    services: [get_customer]', '    services: [get_customer, get_ticket]');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:11:30: gateways.support.services[1]: unknown service `get_ticket` (declared services: get_customer)',
      );
    });

    describe('a limit store', () => {
      const WITH_STORE = `${GOOD}    store: { limit_store: limits }\nlimit_stores:\n  limits:\n    host_port: 6380\n`;

      it('reports a gateway naming an unknown one, listing the declared', () => {
        assert.equal(
          errorOf(WITH_STORE.replace('limit_store: limits', 'limit_store: limit')),
          'support-desk.yaml:17:27: gateways.support.store.limit_store: unknown limit store `limit` (declared under limit_stores: limits)',
        );
      });

      it('reports a store given both a url and a limit_store at the url', () => {
        assert.equal(
          errorOf(WITH_STORE.replace('{ limit_store: limits }', '{ limit_store: limits, url: "redis://x:6379" }')),
          'support-desk.yaml:17:35: gateways.support.store.url: unknown key `url` (expected one of: limit_store)',
        );
      });

      it('reports a bad setting at its value, and a refusal of the construct at the key it names', () => {
        assert.equal(
          errorOf(`${WITH_STORE}    kubernetes: { storage: { size: lots } }\n`),
          "support-desk.yaml:21:36: limit_stores.limits.kubernetes.storage.size: expected a quantity of storage such as '1Gi'",
        );
        assert.match(
          errorOf(WITH_STORE.replace('    host_port: 6380\n', '    host_ip: 10.0.0.5\n')),
          /^support-desk\.yaml:20:14: limit_stores\.limits: .*host_ip needs host_port/,
        );
      });

      it("reports a store named like a service's backend host, and one publishing a gateway's port", () => {
        // GOOD's service runs a container reached as `crm`, and its gateway publishes 8080
        assert.equal(
          errorOf(WITH_STORE.replace('limit_store: limits', 'limit_store: crm').replace('  limits:\n', '  crm:\n')),
          "support-desk.yaml:19:3: limit_stores.crm: the store's name `crm` is also the host of services.get_customer's " +
            "container: on the stack's network one name reaches one container, so the gateway would call one of them " +
            'for both; give the store another name',
        );
        assert.equal(
          errorOf(WITH_STORE.replace('host_port: 6380', 'host_port: 8080')),
          'support-desk.yaml:19:3: limit_stores.limits: host port 8080 is already published by gateways.support: give ' +
            'the store its own `host_port`',
        );
      });

      it('reports an alias written before its anchor at the alias', () => {
        assert.equal(
          errorOf(
            WITH_STORE.replace('limit_store: limits', 'limit_store: *name').replace(
              '  limits:\n',
              '  &name limits :\n',
            ),
          ),
          'support-desk.yaml:17:27: Unresolved alias (the anchor must be set before the alias): name',
        );
      });

      it('reports a store declared twice', () => {
        assert.equal(
          errorOf(`${WITH_STORE}  limits:\n    host_port: 6381\n`),
          "support-desk.yaml:21:3: limit_stores: duplicate limit store 'limits' (the first is at line 19, column 3): " +
            'rename or remove one',
        );
      });
    });

    it('reports a missing required key at its map, saying what the key takes', () => {
      const text = GOOD.replace('    endpoint: { url: "http://crm:8080/customers/{customer_id}", method: GET }\n', '');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:3:5: services.get_customer: missing required key `endpoint`: the HTTP backend',
      );
      assert.equal(
        errorOf(GOOD.replace(`    auth: { tokens: [{ id: support-bot, sha256: "${SHA}" }] }\n`, '')),
        'support-desk.yaml:11:5: gateways.support: missing required key `auth`: `none`, or tokens and/or oauth',
      );
      assert.equal(
        errorOf(GOOD.replace(', method: GET }', ' }')),
        'support-desk.yaml:4:15: services.get_customer.endpoint: missing required key `method`: ' +
          'expected one of GET, POST, PUT, PATCH, DELETE',
      );
    });

    it('says what a map takes instead of a missing key', () => {
      assert.equal(
        errorOf(`${GOOD}    store: {}\n`),
        'support-desk.yaml:17:12: gateways.support.store: missing required key `url`: ' +
          'expected { url, password?, on_unavailable?, timeout_ms? } or { limit_store: NAME }',
      );
    });

    it('asks replicas for a session key at the gateway, in the manifest spelling', () => {
      assert.equal(
        errorOf(`${GOOD}    replicas: 3\n`),
        'support-desk.yaml:17:15: gateways.support: missing required key `session_key`: replicas above 1 share a ' +
          'session key, so that any replica serves any session: add session_key: { variable: NAME } and set it ' +
          'with TF_VAR_NAME=$(openssl rand -base64 32)',
      );
      const oneReplica = new Manifest(newStack(), 'm', { path: file(`${GOOD}    replicas: 1\n`) });
      assert.equal(oneReplica.gateways.size, 1);
      const shared = `${GOOD}    replicas: 3\n    session_key: { variable: support_session_key }\n`;
      assert.equal(new Manifest(newStack(), 'm', { path: file(shared) }).gateways.size, 1);
    });

    it("words a construct's refusal in the manifest's keys, at the first key it names", () => {
      const text = `${GOOD}    header_timeout_ms: 60000\n    request_timeout_ms: 30000\n`;
      assert.equal(
        errorOf(text),
        "support-desk.yaml:17:24: gateways.support: Gateway 'support': header_timeout_ms (60000) is longer than " +
          'request_timeout_ms (30000); the headers are part of the request, so set header_timeout_ms to at most 30000',
      );
      assert.equal(
        errorOf(`${GOOD}    publish_mode: ingress\n`),
        "support-desk.yaml:17:19: gateways.support: Gateway 'support': publish_mode applies to replicas only: set " +
          "'replicas', or drop 'publish_mode'",
      );
    });

    it("says a gateway's checks at synthesis at the manifest's line, in its keys", () => {
      const text = `${GOOD}    rate_limits:\n      - { calls: 10, per: minute, tool: get_ticket }\n`;
      const stack = newStack();
      new Manifest(stack, 'm', { path: file(text) });
      assert.match(
        thrown(() => synth(stack)).message,
        /support-desk\.yaml:18:41: gateways\.support: Gateway 'support': rate_limits\[0\]\.tool 'get_ticket' is not a service of this gateway/,
      );
    });

    it('takes anchors under a top-level x- key, and refuses merge keys with the way to share instead', () => {
      const shared = `x-shared:\n  tokens: &tokens [{ id: support-bot, sha256: "${SHA}" }]\n${GOOD}`.replace(
        `auth: { tokens: [{ id: support-bot, sha256: "${SHA}" }] }`,
        'auth: { tokens: *tokens }',
      );
      assert.equal(new Manifest(newStack(), 'm', { path: file(shared) }).gateways.size, 1);
      assert.match(
        errorOf(GOOD.replace('    timeout_ms: 5000\n', '    <<: { timeout_ms: 5000 }\n')),
        /^support-desk\.yaml:7:5: services\.get_customer\.<<: merge keys \(`<<: \*anchor`\) are not read: write the keys out/,
      );
    });

    it('refuses a header that expects ${…} to be expanded, with the secret to use instead', () => {
      const text = GOOD.replace('method: GET }', 'method: GET, headers: { Authorization: "Bearer ${CRM_TOKEN}" } }');
      assert.match(
        errorOf(text),
        /^support-desk\.yaml:4:\d+: services\.get_customer\.endpoint\.headers\.Authorization: `\$\{…\}` is not expanded in a manifest: write the header as \{ secret: NAME \}/,
      );
    });

    it("keeps the user's own names as written, and says a message about another entry at the gateway", () => {
      const text = GOOD.replace('/customers/{customer_id}', '/customers/{customer_id}/{retentionDays}').replace(
        '      customer_id: { type: string, required: true, min_length: 6 }\n',
        '      customer_id: { type: string, required: true, min_length: 6 }\n      retentionDays: { type: integer }\n',
      );
      assert.match(
        errorOf(text),
        /^support-desk\.yaml:4:\d+: services\.get_customer: .*placeholder \{retentionDays\} is filled from parameter 'retentionDays', which is not required: set required: true on input\.retentionDays/,
      );
      const twice =
        GOOD.replace('    timeout_ms: 5000\n', '    timeout_ms: 5000\n    rate_limits: [{ calls: 5, per: minute }]\n') +
        '    rate_limits:\n      - { calls: 50, per: minute }\n      - { calls: 9, per: minute, tool: get_customer }\n';
      const stack = newStack();
      new Manifest(stack, 'm', { path: file(twice) });
      // about the service's rate_limits[0], not the gateway's: said at the gateway
      assert.match(
        thrown(() => synth(stack)).message,
        /support-desk\.yaml:11:3: gateways\.support: Gateway 'support': service/,
      );
    });

    it('refuses a merge key wherever it is, before what the schema says of its map', () => {
      const text = `x-shared:\n  id: &id { type: string }\n${GOOD}`.replace(
        '      customer_id: { type: string, required: true, min_length: 6 }\n',
        '      <<: { customer_id: *id }\n',
      );
      assert.equal(
        errorOf(text),
        'support-desk.yaml:8:7: services.get_customer.input.<<: merge keys (`<<: *anchor`) are not read: write the ' +
          'keys out, or make the whole value an alias (`input: *shared_input`), its anchor under a top-level `x-` key',
      );
    });

    it("reports a service's timeout outside its range at its line", () => {
      assert.equal(
        errorOf(GOOD.replace('timeout_ms: 5000', 'timeout_ms: 0')),
        'support-desk.yaml:7:17: services.get_customer.timeout_ms: expected an integer between 1 and 600000 (milliseconds)',
      );
    });

    it('reports a value outside its choices', () => {
      const text = GOOD.replace('validation_errors: protocol', 'validation_errors: json');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:13:24: gateways.support.validation_errors: expected one of protocol, tool_result, auto',
      );
    });

    it('reports a token hash that is not 64 hex characters, without echoing it', () => {
      const text = GOOD.replace(SHA, 'my-secret-token');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:15:49: gateways.support.auth.tokens[0].sha256: must be 64 hex characters, the SHA-256 ' +
          'of the token (this value has 15 characters; make it with printf %s "$TOKEN" | sha256sum), never the token itself',
      );
    });

    it('reports an unknown parameter spec key inside input', () => {
      const text = GOOD.replace('min_length: 6', 'minimal: 6');
      assert.equal(
        errorOf(text),
        'support-desk.yaml:6:52: services.get_customer.input.customer_id.minimal: unknown key `minimal`, did you ' +
          'mean `minimum`? (expected ' +
          'one of: type, required, description, default, enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, ' +
          'minLength, maxLength, pattern, format, minItems, maxItems, uniqueItems, items, properties, ' +
          'additionalProperties, aliases, forwardAs)',
      );
    });

    it('reports a declared input the schema generator refuses at the input', () => {
      const text = GOOD.replace('min_length: 6', 'minimum: 6');
      const reason = thrown(() =>
        generateInputSchema({ customer_id: { type: 'string', required: true, minimum: 6 } }),
      ).message;
      assert.equal(errorOf(text), `support-desk.yaml:6:7: services.get_customer.input: ${reason}`);
    });

    it("reports a construct's own refusal at the entry", () => {
      const text = GOOD.replace('{customer_id}', '{id}');
      assert.equal(
        errorOf(text),
        "support-desk.yaml:4:22: services.get_customer: Service 'get_customer': endpoint.url placeholder {id} names " +
          "no parameter: declare a top-level parameter 'id' (or one with forwardAs: 'id') or remove the placeholder",
      );
    });

    it('reports every mistake found, one per line', () => {
      const text = GOOD.replace('method: GET', 'method: FETCH').replace('port: 8080\n', 'port: 80800\n');
      assert.equal(
        errorOf(text),
        [
          'support-desk.yaml:4:73: services.get_customer.endpoint.method: expected one of GET, POST, PUT, PATCH, DELETE',
          'support-desk.yaml:16:11: gateways.support.port: expected an integer between 1 and 65535',
        ].join('\n'),
      );
    });

    it('reports an entry key that is not a valid name at the key, with the other mistakes, saying to rename it', () => {
      const text = GOOD.replace('  get_customer:\n', '  get customer:\n')
        .replace('[get_customer]', '["get customer"]')
        .replace('  support:\n', '  support desk:\n')
        .replace('method: GET', 'method: FETCH');
      const rule = "1-64 letters, digits, '_', '.' or '-' (^[A-Za-z0-9_.-]{1,64}$)";
      assert.equal(
        errorOf(`${text}limit_stores:\n  Counters: {}\n`),
        [
          `support-desk.yaml:2:3: services.get customer: \`get customer\` is not a valid tool name: a tool name is ${rule}; the key is the tool name, so rename it`,
          'support-desk.yaml:4:73: services.get customer.endpoint.method: expected one of GET, POST, PUT, PATCH, DELETE',
          `support-desk.yaml:10:3: gateways.support desk: \`support desk\` is not a valid gateway name: a gateway name is ${rule}; the key is the gateway name, so rename it`,
          'support-desk.yaml:18:3: limit_stores.Counters: `Counters` is not a valid limit store name: a limit store name is a host name: lower-case letters, digits and -, starting with a letter and not ending with -; the key is the limit store name, so rename it',
        ].join('\n'),
      );
    });

    it('reports two services deploying a container for one host at the second, before synthesis', () => {
      const text = GOOD.replace(
        'gateways:\n',
        '  list_customers:\n' +
          '    endpoint: { url: "http://crm:8080/customers", method: GET }\n' +
          '    container: { image: "acme/crm:1.4", port: 8080 }\n' +
          'gateways:\n',
      );
      assert.equal(
        errorOf(text),
        'support-desk.yaml:9:3: services.list_customers: a second `container` for host `crm` (services.get_customer ' +
          'deploys one already): one network alias names one container; keep `container` on one service only ' +
          '(services may share a backend)',
      );
    });

    it('reports two gateways on one host port at the second, also when the port is the default', () => {
      const text = `${GOOD}  internal:\n    services: [get_customer]\n    auth: none\n`;
      assert.equal(
        errorOf(text),
        'support-desk.yaml:17:3: gateways.internal: host port 8080 (the default) is already published by ' +
          'gateways.support: give each gateway its own `port`',
      );
    });

    it('reports a key with no value as the wrong type', () => {
      const text = GOOD.replace('    port: 8080\n', '    port:\n');
      assert.equal(errorOf(text), 'support-desk.yaml:16:5: gateways.support.port: expected an integer');
    });

    it('exposes the position of the first mistake', () => {
      const p = file(GOOD.replace('    validate_input: true', '    validate_input: 1'));
      const err = thrown(() => new Manifest(newStack(), 'm', { path: p })) as ManifestError;
      assert.deepEqual([err.file, err.line, err.column], [p, 12, 21]);
    });

    it('reports a file that cannot be read', () => {
      const missing = path.join(dir, 'nope.yaml');
      assert.equal(
        thrown(() => new Manifest(newStack(), 'm', { path: missing })).message,
        `${missing}: cannot read the manifest (ENOENT); the path is relative to the directory the app runs in`,
      );
    });
  });

  it('refuses nothing at synthesis that it accepted', () => {
    const stack = newStack();
    new Manifest(stack, 'm', { path: file(GOOD) });
    assert.doesNotThrow(() => Testing.synth(stack, true));
  });
});
