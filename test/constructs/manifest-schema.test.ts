import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv from 'ajv';
import * as ts from 'typescript';
import { Manifest } from '../../constructs';
import { MANIFEST_SCHEMA } from '../../constructs/manifest-schema';
import { BACKEND_METHODS, MAX_PORT, VALIDATION_CHANNELS } from '../../src/config';
import { PARAM_TYPES } from '../../src/validation';
import { isQuantity } from '../../constructs/kubernetes/quantity';
import { newStack, thrown } from './synth';

const ROOT = path.resolve(__dirname, '../..');
type Schema = Record<string, any>;

/**
 * Props without a manifest twin, with the reason. Keys are dotted prop paths (camelCase, TypeScript's).
 */
const TYPESCRIPT_ONLY: Record<string, string> = {
  'service.name': 'the tool name is the entry key under `services`',
  'gateway.name': 'the gateway name is the entry key under `gateways`',
  'gateway.secrets':
    'the manifest gives every secret its services name a sensitive Terraform variable of that name (TF_VAR_NAME)',
  'dashboard.name': 'the dashboard name is the entry key under `dashboards`',
  'limitStore.name': 'the store name is the entry key under `limit_stores`',
};

/** Manifest keys without a prop of the same name (snake_case of the prop), with the reason or the prop. */
const MANIFEST_ONLY: Record<string, string> = {
  'service.endpoint.tls.ca_secret': 'twin of `endpoint.tls.ca` (a `Secret.env(NAME)` in TypeScript)',
  'gateway.session_key.variable':
    'twin of `sessionKey`: the manifest names a sensitive Terraform variable, never the key itself',
  'gateway.registry.password.variable':
    'twin of `registry.password`: the manifest names a sensitive Terraform variable, never the password itself',
  'gateway.store.limit_store':
    'twin of `store` given a `LimitStore`: the manifest names an entry under `limit_stores`, deployed by the stack',
  'limit_store.password.variable':
    'twin of `password`: the manifest names a sensitive Terraform variable, never the password itself',
  'gateway.store.password.variable':
    'twin of `store.password`: the manifest names a sensitive Terraform variable (a `Secret.env(NAME)` in TypeScript), never the password itself',
};

describe('manifest.schema.json', () => {
  it('is shipped at the package root and exported as cdktf-mcp-gateway/manifest.schema.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.exports['./manifest.schema.json'], './manifest.schema.json');
    assert.ok(pkg.files.includes('manifest.schema.json'));
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(ROOT, 'manifest.schema.json'), 'utf8')), MANIFEST_SCHEMA);
  });

  it('is a valid draft-07 JSON Schema', () => {
    const ajv = new Ajv({ strict: false });
    assert.equal(ajv.validateSchema(MANIFEST_SCHEMA), true, JSON.stringify(ajv.errors));
  });

  it("states the package's own rules: methods, validation channels, ports", () => {
    const defs = (MANIFEST_SCHEMA as Schema).definitions;
    assert.deepEqual(defs.service.properties.endpoint.properties.method.enum, [...BACKEND_METHODS]);
    assert.deepEqual(defs.gateway.properties.validation_errors.enum, [...VALIDATION_CHANNELS]);
    assert.deepEqual(defs.port, { type: 'integer', minimum: 1, maximum: MAX_PORT });
    assert.deepEqual(defs.param.properties.type.enum, [...PARAM_TYPES]);
  });

  it('takes the Kubernetes quantities the constructs take, wherever it asks for one', () => {
    const patterns = new Set<string>();
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Schema;
      if (typeof n.pattern === 'string' && n.pattern.includes('Mi')) patterns.add(n.pattern);
      Object.values(n).forEach(walk);
    };
    walk(MANIFEST_SCHEMA);
    assert.equal(patterns.size, 1, [...patterns].join('\n'));
    const schemaTakes = new RegExp([...patterns][0]);
    for (const q of [
      ...['250m', '1.5', '256Mi', '1Pi', '2Ei', '1e3', '5E-2', '1E', '0', '.5', '1.', '+1'],
      ...['lots', '1x', '-1', '', ' 1Gi', '1e400', '1e', '1ki', '.', '+', '1.5.1'],
    ]) {
      assert.equal(schemaTakes.test(q), isQuantity(q), q);
    }
  });

  describe('and the construct props', () => {
    const props = propPaths();
    const schema = schemaPaths();

    it('read the nested props and keys, not only the top level', () => {
      for (const p of [
        'gateway.auth.oauth.jwksUri',
        'gateway.auth.tokens.scopes',
        'dashboard.flag.minRate',
        'service.container.build.dockerfile',
        'gateway.metrics.port',
        'openapi.baseUrl',
        'openapi.container.build.dockerfile',
      ]) {
        assert.ok(props.includes(p), p);
      }
      for (const p of [
        'gateway.auth.oauth.jwks_uri',
        'gateway.auth.tokens.scopes',
        'dashboard.flag.min_rate',
        'service.container.build.dockerfile',
        'gateway.metrics.port',
        'openapi.base_url',
        'openapi.container.build.dockerfile',
      ]) {
        assert.ok(schema.includes(p), p);
      }
    });

    it('give every prop a manifest twin, or name it TypeScript-only with its reason', () => {
      const missing = props.filter((p) => !(p in TYPESCRIPT_ONLY) && !schema.includes(snakePath(p)));
      const twinned = Object.values(MANIFEST_ONLY).join(' ');
      assert.deepEqual(
        missing.filter((p) => !twinned.includes(`\`${p.split('.').slice(1).join('.')}\``)),
        [],
        'add the key to manifest.schema.json (and the reader) or list the prop in TYPESCRIPT_ONLY with the reason',
      );
    });

    it('give every manifest key a prop, or name its twin', () => {
      const snakeProps = props.map(snakePath);
      assert.deepEqual(
        schema.filter((p) => !snakeProps.includes(p) && !(p in MANIFEST_ONLY)),
        [],
        'a manifest key the constructs do not take',
      );
    });

    it('list no prop or key that no longer exists', () => {
      assert.deepEqual(
        Object.keys(TYPESCRIPT_ONLY).filter((p) => !props.includes(p)),
        [],
      );
      assert.deepEqual(
        Object.keys(MANIFEST_ONLY).filter((p) => !schema.includes(p)),
        [],
      );
    });

    it('spell every parameter spec key as ParamSpec does, and in snake_case', () => {
      const param = (MANIFEST_SCHEMA as Schema).definitions.param;
      const keys = interfaceKeys('src/schema/input-spec.ts', 'ParamSpec');
      assert.deepEqual([...param['x-keys']].sort(), [...keys].sort());
      assert.deepEqual(Object.keys(param.properties).sort(), [...new Set([...keys, ...keys.map(snake)])].sort());
    });
  });

  describe('errors', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-schema-test-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    function errorOf(text: string): string {
      const file = path.join(dir, 'm.yaml');
      fs.writeFileSync(file, text);
      return thrown(() => new Manifest(newStack(), 'm', { path: file }))
        .message.split(`${dir}${path.sep}`)
        .join('');
    }

    const SERVICE = '  get_invoice:\n    endpoint: { url: "http://billing:8080/i", method: GET }\n';
    const GATEWAY = 'gateways:\n  billing:\n    services: [get_invoice]\n    auth: none\n';

    it('read a manifest holding a long lowercase text, and still keep a camelCase word as written', () => {
      // each camelCase word is gathered from the text: a search tried from every letter of a long run never ended
      const comment = `# ${'k'.repeat(262_144)}\n`;
      assert.match(
        errorOf(`${comment}services:\n${SERVICE}    timeoutMs: 5\n${GATEWAY}`),
        /^m\.yaml:5:5: services\.get_invoice\.timeoutMs: unknown key `timeoutMs`, did you mean `timeout_ms`\?/,
      );
    });

    it('say each of 16,000 problems once, in file order (placing a problem does not walk every key of its map)', () => {
      let services = '';
      for (let i = 0; i < 16_000; i++)
        services += `  s${i}:\n    endpoint: { url: "http://b:8080/i", method: GET }\n    timeout_ms: -1\n`;
      const lines = errorOf(`services:\n${services}gateways:\n  g:\n    services: [s0]\n    auth: none\n`).split('\n');
      assert.equal(lines.length, 16_000);
      const reason = 'expected an integer between 1 and 600000 (milliseconds)';
      assert.equal(lines[0], `m.yaml:4:17: services.s0.timeout_ms: ${reason}`);
      assert.equal(lines[15_999], `m.yaml:${3 * 16_000 + 1}:17: services.s15999.timeout_ms: ${reason}`);
      assert.equal(new Set(lines).size, 16_000);
    });

    it('name the object a duplicate key is in, at the repeat, and where the first one is', () => {
      assert.equal(
        errorOf(`services:\n${SERVICE}${SERVICE}${GATEWAY}`),
        "m.yaml:4:3: services: duplicate service 'get_invoice' (the first is at line 2, column 3): rename or remove one",
      );
      assert.equal(
        errorOf(`services:\n${SERVICE}    timeout_ms: 5\n    timeout_ms: 6\n${GATEWAY}`),
        "m.yaml:5:5: services.get_invoice: duplicate key 'timeout_ms' (the first is at line 4, column 5): keep one",
      );
      assert.equal(
        errorOf(`services:\n${SERVICE}${GATEWAY}${GATEWAY.replace('gateways:\n', '')}`),
        "m.yaml:8:3: gateways: duplicate gateway 'billing' (the first is at line 5, column 3): rename or remove one",
      );
    });

    it('report a key repeated inside a repeated entry at its own line, not at the last entry', () => {
      const first = `${SERVICE}    timeout_ms: 5\n    timeout_ms: 6\n`;
      assert.deepEqual(errorOf(`services:\n${first}${SERVICE}${GATEWAY}`).split('\n'), [
        "m.yaml:5:5: services.get_invoice: duplicate key 'timeout_ms' (the first is at line 4, column 5): keep one",
        "m.yaml:6:3: services: duplicate service 'get_invoice' (the first is at line 2, column 3): rename or remove one",
      ]);
    });

    it('point an invalid pattern at the line of the pattern itself', () => {
      const text =
        `services:\n${SERVICE}    input:\n      invoice_id:\n        type: string\n` +
        `        description: the id\n        pattern: "(a+)+\\\\1"\n${GATEWAY}`;
      const message = errorOf(text);
      assert.match(
        message,
        /^m\.yaml:8:18: services\.get_invoice\.input: Invalid input spec at `invoice_id`: pattern /,
      );
    });

    it('point an invalid pattern of a nested parameter at its line', () => {
      const text =
        `services:\n${SERVICE}    input:\n      invoice:\n        type: object\n        properties:\n` +
        `          lines:\n            type: array\n            items: { type: string, pattern: "[" }\n${GATEWAY}`;
      assert.match(
        errorOf(text),
        /^m\.yaml:10:45: services\.get_invoice\.input: Invalid input spec at `invoice\.lines\[\]`: pattern "\[" /,
      );
    });

    it('point a refusal of a parameter that names no one spec key at the parameter', () => {
      const text =
        `services:\n${SERVICE}    input:\n      invoice_id: { type: string, required: true }\n` +
        `      lines: { type: integer, minimum: 10, maximum: 1 }\n${GATEWAY}`;
      assert.match(
        errorOf(text),
        /^m\.yaml:6:7: services\.get_invoice\.input: Invalid input spec at `lines`: minimum \(10\) must be <= maximum \(1\)/,
      );
      const snake = `services:\n${SERVICE}    input:\n      invoice_id: { type: string, min_length: -1 }\n${GATEWAY}`;
      assert.match(
        errorOf(snake),
        /^m\.yaml:5:7: services\.get_invoice\.input: Invalid input spec at `invoice_id`: min_length/,
      );
    });

    it('report every refused parameter, its keys named as the manifest writes them', () => {
      const text =
        `services:\n${SERVICE}    input:\n      code: { type: string, min_length: 5, max_length: 2 }\n` +
        `      lines: { type: integer, minimum: 10, maximum: 1 }\n      retentionDays: { type: string, minLength: -1 }\n${GATEWAY}`;
      const lines = errorOf(text).split('\n');
      assert.equal(lines.length, 3, lines.join('\n'));
      assert.match(
        lines[0],
        /^m\.yaml:5:7: services\.get_invoice\.input: Invalid input spec at `code`: .*min_length.*max_length/,
      );
      assert.doesNotMatch(lines[0], /minLength|maxLength/);
      assert.match(lines[1], /^m\.yaml:6:7: .*`lines`: minimum \(10\) must be <= maximum \(1\)/);
      // written in TypeScript's spelling, said in it
      assert.match(lines[2], /^m\.yaml:7:7: .*`retentionDays`: minLength must be a non-negative integer/);
    });

    it('spell a spec key as the spec at fault writes it, and nothing else', () => {
      const input = (spec: string) => `services:\n${SERVICE}    input:\n${spec}${GATEWAY}`;
      // a property named like a spec key does not respell the key of another spec
      assert.match(
        errorOf(
          input(
            '      box: { type: object, properties: { max_length: { type: integer }, code: { type: string, maxLength: -1 } } }\n',
          ),
        ),
        /`box\.code`: maxLength must be a non-negative integer/,
      );
      // the spec at fault is the items' spec, which wrote minItems
      assert.match(
        errorOf(input('      tags: { type: array, min_items: 1, items: { type: string, minItems: 2 } }\n')),
        /`tags\[\]`: minItems applies to array parameters/,
      );
      // an input shared through an alias is read through it
      const shared =
        'x-shared: &in\n  code: { type: string, min_length: 3, max_length: 1 }\n' +
        `services:\n${SERVICE}    input: *in\n${GATEWAY}`;
      assert.match(errorOf(shared), /`code`: min_length \(3\) must be <= max_length \(1\)/);
    });

    it("keep a construct's refusal in the user's names, whatever the input's specs spell", () => {
      const text =
        'services:\n  get_invoice:\n    endpoint: { url: "http://billing:8080/i/{invoiceId}", method: GET }\n' +
        '    input:\n      invoiceId: { type: string }\n' +
        '      meta: { type: object, properties: { invoice_id: { type: string } } }\n' +
        GATEWAY;
      const message = errorOf(text);
      assert.match(message, /'invoiceId'/);
      assert.match(message, /input\.invoiceId/);
      assert.doesNotMatch(message, /invoice_id/);
    });

    it('report a parameter refused alone and a clash of the whole input together', () => {
      const text =
        `services:\n${SERVICE}    input:\n      a: { type: string, aliases: [b] }\n` +
        `      b: { type: string, min_length: -1 }\n${GATEWAY}`;
      const lines = errorOf(text).split('\n');
      assert.equal(lines.length, 2, lines.join('\n'));
      assert.match(lines.join('\n'), /`b`: min_length must be a non-negative integer/);
      assert.match(lines.join('\n'), /alias/);
    });

    it('name a list item reached through an alias by its index', () => {
      const text =
        'x-list: &l [get_invoice, 2024]\n' +
        `services:\n${SERVICE}gateways:\n  billing:\n    services: *l\n    auth: none\n`;
      assert.match(errorOf(text), /gateways\.billing\.services\[1\]: expected a string/);
    });

    it('refuse a key YAML reads as another name than written', () => {
      const renamed = SERVICE.replace('get_invoice', '1e3');
      const text = `services:\n${renamed}gateways:\n  billing:\n    services: ["1e3"]\n    auth: none\n`;
      const message = errorOf(text);
      assert.match(
        message.split('\n')[0],
        /^m\.yaml:2:3: services: YAML reads the key 1e3 as the number 1000: put it in quotes \("1e3"\)$/,
      );
      const file = path.join(dir, 'quoted-key.yaml');
      fs.writeFileSync(file, text.replace('  1e3:', '  "1e3":'));
      assert.doesNotThrow(() => new Manifest(newStack(), 'm', { path: file }));
      assert.match(
        errorOf(`services:\n${SERVICE.replace('get_invoice', '~')}${GATEWAY}`),
        /YAML reads the key ~ as null/,
      );
    });

    it('say to remove the quotes from a number or boolean written as a string, and only then', () => {
      const text =
        `services:\n${SERVICE}    timeout_ms: "5000"\n    rate_limits: [{ calls: "60", per: minute }]\n` +
        `    input:\n      n: { type: number, minimum: "-1.5", max_length: "1.5" }\n` +
        `${GATEWAY}    port: "8081"\n    max_body_bytes: "0x10"\n    validate_input: "true"\n    audit_log: "no"\n`;
      assert.deepEqual(errorOf(text).split('\n'), [
        'm.yaml:4:17: services.get_invoice.timeout_ms: expected an integer between 1 and 600000 (milliseconds) ' +
          '(the quotes make "5000" a string: remove them)',
        'm.yaml:5:28: services.get_invoice.rate_limits[0].calls: expected an integer (the quotes make "60" a string: remove them)',
        'm.yaml:7:35: services.get_invoice.input.n.minimum: expected a number (the quotes make "-1.5" a string: remove them)',
        // not an integer, nor a decimal YAML would read as one: no hint
        'm.yaml:7:55: services.get_invoice.input.n.max_length: expected an integer',
        'm.yaml:12:11: gateways.billing.port: expected an integer (the quotes make "8081" a string: remove them)',
        'm.yaml:13:21: gateways.billing.max_body_bytes: expected an integer',
        'm.yaml:14:21: gateways.billing.validate_input: expected a boolean (true or false) ' +
          '(the quotes make "true" a string: remove them)',
        'm.yaml:15:16: gateways.billing.audit_log: expected a boolean, "store" or { path }',
      ]);
      // a key whose fixed values mix booleans and text: the hint when unquoted it is one of them
      assert.equal(
        errorOf(`services:\n${SERVICE}${GATEWAY}    audit_log: "true"\n`),
        'm.yaml:8:16: gateways.billing.audit_log: expected a boolean, "store" or { path } ' +
          '(the quotes make "true" a string: remove them)',
      );
    });

    it('say nothing of the quotes around a number the key would refuse without them', () => {
      const text =
        `services:\n${SERVICE}    timeout_ms: "0"\n    rate_limits: [{ calls: "12345678901234567890", per: minute }]\n` +
        `${GATEWAY}    port: "99999"\n    max_body_bytes: "-0"\n`;
      assert.deepEqual(errorOf(text).split('\n'), [
        'm.yaml:4:17: services.get_invoice.timeout_ms: expected an integer between 1 and 600000 (milliseconds)',
        'm.yaml:5:28: services.get_invoice.rate_limits[0].calls: expected an integer',
        'm.yaml:10:11: gateways.billing.port: expected an integer',
        'm.yaml:11:21: gateways.billing.max_body_bytes: expected an integer',
      ]);
    });

    it('point a refusal of a parameter whose name is no identifier at that parameter', () => {
      const text =
        `services:\n${SERVICE}    input:\n      2024: { type: string, min_length: -1 }\n` +
        `      box: { type: object, properties: { "a.b": { type: integer, minimum: 5, maximum: 1 } } }\n${GATEWAY}`;
      const lines = errorOf(text).split('\n');
      assert.match(lines[0], /^m\.yaml:5:7: .*`\["2024"\]`: min_length must be a non-negative integer/);
      assert.match(lines[1], /^m\.yaml:6:42: .*`box\["a\.b"\]`: minimum \(5\) must be <= maximum \(1\)/);
    });

    it('name a service called 2024 as a key, and say how to write it as a name', () => {
      const numeric = SERVICE.replace('get_invoice', '2024');
      const text = `services:\n${numeric}    timeout_ms: -5\n${GATEWAY.replace('[get_invoice]', '[2024]')}`;
      assert.equal(
        errorOf(text),
        'm.yaml:4:17: services.2024.timeout_ms: expected an integer between 1 and 600000 (milliseconds)\n' +
          'm.yaml:7:16: gateways.billing.services[0]: expected a string (YAML reads this as a number: put it in quotes)',
      );
      const file = path.join(dir, 'quoted.yaml');
      fs.writeFileSync(file, text.replace('timeout_ms: -5', 'timeout_ms: 5').replace('[2024]', '["2024"]'));
      assert.doesNotThrow(() => new Manifest(newStack(), 'm', { path: file }));
    });

    it('read container.healthcheck and a dashboard host_ip into the props', () => {
      const file = path.join(dir, 'twins.yaml');
      fs.writeFileSync(
        file,
        `services:\n${SERVICE}    container: { image: "acme/billing:2.0", port: 8080, healthcheck: [node, check.js] }\n` +
          `${GATEWAY}dashboards:\n  ops:\n    gateways: [billing]\n    auth: none\n    host_ip: 127.0.0.1\n`,
      );
      const manifest = new Manifest(newStack(), 'm', { path: file });
      assert.equal(manifest.dashboards.get('ops')!.hostIp, '127.0.0.1');
      const text = `services:\n${SERVICE}    container: { image: a, port: 8080, healthcheck: [] }\n${GATEWAY}`;
      assert.equal(
        errorOf(text),
        'm.yaml:4:53: services.get_invoice.container.healthcheck: expected `image` or a command as a list of strings',
      );
    });

    it('say what a container needs when it has neither image nor build', () => {
      const text = `services:\n${SERVICE}    container: { port: 8080 }\n${GATEWAY}`;
      assert.equal(
        errorOf(text),
        'm.yaml:4:16: services.get_invoice.container: set exactly one of `image` and `build`',
      );
    });

    it('report a parameter spec key written in both spellings at the second one', () => {
      const text = `services:\n${SERVICE}    input:\n      id: { type: string, min_length: 1, minLength: 2 }\n${GATEWAY}`;
      assert.equal(
        errorOf(text),
        'm.yaml:5:42: services.get_invoice.input.id.minLength: `minLength` repeats `min_length`: keep one spelling',
      );
    });
  });
});

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function snakePath(p: string): string {
  return p.split('.').map(snake).join('.');
}

/** Dotted paths of the manifest's keys under each entry kind, following nested objects (not name maps). */
function schemaPaths(): string[] {
  const defs = (MANIFEST_SCHEMA as Schema).definitions;
  const paths: string[] = [];
  const walk = (node: Schema | undefined, at: string): void => {
    if (node === undefined) return;
    // a port or a parameter spec: a value, not props; a group of a service's keys (an `openapi` entry reuses them)
    if (node.$ref !== undefined) {
      if (node.$ref.startsWith('#/definitions/service/')) walk(refTarget(node.$ref), at);
      return;
    }
    for (const branch of [node.then, node.else, node.items]) walk(branch, at);
    for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, Schema>)) {
      paths.push(`${at}.${key}`);
      if (!['input', 'input_schema', 'headers', 'env', 'args'].includes(key)) walk(child, `${at}.${key}`);
    }
  };
  for (const kind of ['service', 'gateway', 'dashboard', 'limit_store', 'openapi']) walk(defs[kind], kind);
  return paths;
}

/** The schema node a local `$ref` (`#/definitions/…`) points at. */
function refTarget(ref: string): Schema {
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Schema, key) => node[key], MANIFEST_SCHEMA as Schema);
}

/** Dotted paths of the props of each construct a manifest declares, following nested options. */
function propPaths(): string[] {
  const program = ts.createProgram([path.join(ROOT, 'constructs/index.ts')], { strict: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const paths: string[] = [];
  const walk = (type: ts.Type, at: string, depth: number): void => {
    for (const prop of checker.getPropertiesOfType(type)) {
      const p = `${at}.${prop.name}`;
      paths.push(p);
      if (['input', 'inputSchema', 'headers', 'env', 'args', 'secrets'].includes(prop.name) || depth > 3) continue;
      const decl = prop.valueDeclaration ?? prop.declarations![0];
      for (const member of objectMembers(
        checker,
        checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(prop, decl)),
      )) {
        walk(member, p, depth + 1);
      }
    }
  };
  const roots = [
    ['constructs/service.ts', 'ServiceProps', 'service'],
    ['constructs/gateway.ts', 'GatewayProps', 'gateway'],
    ['constructs/audit-dashboard.ts', 'AuditDashboardProps', 'dashboard'],
    ['constructs/limit-store.ts', 'LimitStoreProps', 'limitStore'],
    ['constructs/openapi-services.ts', 'OpenApiServicesProps', 'openapi'],
  ];
  for (const [file, name, kind] of roots) walk(interfaceType(program, file, name), kind, 0);
  return paths;
}

/** The option objects a prop's type holds: interfaces and object literals (of arrays too), not constructs. */
function objectMembers(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  const members = type.isUnion() ? type.types : [type];
  return members.flatMap((t) => {
    if (checker.isArrayType(t)) return objectMembers(checker, checker.getTypeArguments(t as ts.TypeReference)[0]);
    if (!(t.flags & ts.TypeFlags.Object)) return [];
    const declaration = t.getSymbol()?.declarations?.[0];
    const isOptions =
      declaration !== undefined && (ts.isInterfaceDeclaration(declaration) || ts.isTypeLiteralNode(declaration));
    return isOptions ? [t] : [];
  });
}

function interfaceType(program: ts.Program, file: string, name: string): ts.Type {
  const source = program.getSourceFile(path.join(ROOT, file))!;
  const checker = program.getTypeChecker();
  const decl = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
  );
  assert.ok(decl, `${name} in ${file}`);
  return checker.getTypeAtLocation(decl);
}

function interfaceKeys(file: string, name: string): string[] {
  const program = ts.createProgram([path.join(ROOT, file)], { strict: true, skipLibCheck: true });
  return program
    .getTypeChecker()
    .getPropertiesOfType(interfaceType(program, file, name))
    .map((p) => p.name);
}
