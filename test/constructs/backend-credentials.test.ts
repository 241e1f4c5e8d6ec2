/**
 * Real backends in the constructs (docs/constructs.md): `endpoint.headers` with `Secret.env`, `Gateway.secrets`,
 * `endpoint.tls`, `forwardIdentity`, `Gateway.hostIp`, and `container.build`, read back from the synthesized
 * JSON. A secret value never reaches the gateway config (canary).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformVariable } from 'cdktf';
import { Gateway, Manifest, Secret, Service, type ServiceProps } from '../../constructs';
import {
  configOf,
  configText,
  handoffSecret,
  gatewayContainer,
  hashOf,
  newStack,
  resourcesOf,
  synth,
  thrown,
  warningsOf,
} from './synth';
import { tempDir } from '../helpers/temp-dir';

const AUTH = { tokens: [{ id: 'bot', sha256: hashOf('credentials-token') }] };
const CANARY = 'canary-synth-7d41-never-in-config';

function crm(
  stack: ReturnType<typeof newStack>,
  extra: Partial<ServiceProps> = {},
  endpoint: Partial<ServiceProps['endpoint']> = {},
): Service {
  return new Service(stack, 'get_customer', {
    endpoint: {
      url: 'https://crm:8443/customers',
      method: 'GET',
      headers: { Authorization: Secret.env('CRM_API_KEY') },
      ...endpoint,
    },
    ...extra,
  });
}

describe('backend credentials and deployment props', () => {
  let dir: string;
  let caFile: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credentials-'));
    caFile = path.join(dir, 'ca.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'ca.key'),
        '-out',
        caFile,
        '-days',
        '2',
        '-subj',
        '/CN=synth test CA',
      ],
      { stdio: 'ignore' },
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('endpoint.headers and Gateway.secrets', () => {
    it('puts only the secret reference in the config and the sensitive variable in a file only the gateway reads', () => {
      const stack = newStack();
      const key = new TerraformVariable(stack, 'crm_api_key', { type: 'string', sensitive: true });
      new Gateway(stack, 'support', {
        services: [crm(stack, {}, { headers: { Authorization: Secret.env('CRM_API_KEY'), 'X-Tenant': 'acme' } })],
        auth: AUTH,
        secrets: { CRM_API_KEY: key.stringValue },
      });
      const json = synth(stack);
      assert.deepEqual(configOf(json, 'support').tools[0].backend.headers, {
        Authorization: { secret: 'CRM_API_KEY' },
        'X-Tenant': 'acme',
      });
      const container = gatewayContainer(json, 'support');
      // a file, never the environment (which docker inspect shows): the environment names only where files are
      assert.equal(JSON.stringify(container.env).includes('crm_api_key'), false);
      assert.equal(JSON.stringify(container.env).includes('CRM_API_KEY'), false);
      // the config hand-over gets it (checks it, then keeps it, mode 0400, in the gateway's state volume) through
      // the deploy's environment; the gateway container itself has no upload to replace when the value changes
      assert.deepEqual(container.upload, []);
      assert.deepEqual(handoffSecret(json, 'support', '/run/secrets/CRM_API_KEY'), {
        path: '/run/secrets/CRM_API_KEY',
        content: '${var.crm_api_key}\n',
        mode: '0400',
        uid: 1000,
        gid: 1000,
      });
      assert.equal(json.variable.crm_api_key.sensitive, true);
    });

    it('never writes a secret value into the gateway config, and warns that a literal value lands in cdk.tf.json', () => {
      const stack = newStack();
      const gateway = new Gateway(stack, 'support', {
        services: [crm(stack)],
        auth: AUTH,
        secrets: { CRM_API_KEY: CANARY },
      });
      const json = synth(stack);
      assert.ok(!configText(json, 'support').includes(CANARY));
      assert.match(
        warningsOf(gateway).join('\n'),
        /secrets\.CRM_API_KEY is a literal string: it is written into cdk\.tf\.json and the Terraform state/,
      );
      assert.ok(!warningsOf(gateway).join('\n').includes(CANARY));
    });

    it('fails synthesis when a service names a secret the gateway has no value for, naming the fix', () => {
      const stack = newStack();
      new Gateway(stack, 'support', { services: [crm(stack)], auth: AUTH });
      assert.match(
        thrown(() => synth(stack)).message,
        /Gateway 'support': service 'get_customer' uses Secret\.env\('CRM_API_KEY'\) but the gateway has no value for it: add secrets: \{ CRM_API_KEY: /,
      );
    });

    for (const name of [
      'Host',
      'content-length',
      'Connection',
      'Transfer-Encoding',
      'keep-alive',
      'Upgrade',
      'TE',
      'Trailer',
      'Proxy-Authorization',
      'X-MCP-Principal',
    ]) {
      it(`refuses the reserved header ${name} at construction`, () => {
        const err = thrown(() => crm(newStack(), {}, { headers: { [name]: 'x' } }));
        assert.match(err.message, new RegExp(`^Service 'get_customer': endpoint\\.headers '${name}' is reserved`));
      });
    }

    it('allows Authorization as a literal, refuses a value with a line break without quoting it, and bad secret names', () => {
      assert.doesNotThrow(() => crm(newStack(), {}, { headers: { Authorization: 'Basic abc' } }));
      const err = thrown(() => crm(newStack(), {}, { headers: { 'X-Key': `${CANARY}\r\nHost: evil` } }));
      assert.match(err.message, /endpoint\.headers 'X-Key' holds a line break/);
      assert.ok(!err.message.includes(CANARY));
      assert.match(
        thrown(() => Secret.env('NODE_OPTIONS')).message,
        /Secret\.env\('NODE_OPTIONS'\): the name is reserved/,
      );
      assert.match(thrown(() => Secret.env('1X')).message, /must be an environment variable name/);
      assert.equal(Secret.env('__proto__').name, '__proto__', 'a legal variable name, read as an own key only');
    });

    it('refuses a secret name the gateway process reads itself in Gateway.secrets', () => {
      const stack = newStack();
      assert.match(
        thrown(() => new Gateway(stack, 'support', { services: [], auth: AUTH, secrets: { PATH: 'x' } })).message,
        /Gateway 'support': secrets\.PATH: the name is reserved/,
      );
    });

    it('adds forward_identity to the config only when forwardIdentity is true', () => {
      const stack = newStack();
      const a = new Service(stack, 'a', {
        endpoint: { url: 'http://api:8080/a', method: 'GET' },
        forwardIdentity: true,
      });
      const b = new Service(stack, 'b', { endpoint: { url: 'http://api:8080/b', method: 'GET' } });
      new Gateway(stack, 'support', { services: [a, b], auth: AUTH });
      const tools = configOf(synth(stack), 'support').tools;
      assert.equal(tools[0].backend.forward_identity, true);
      assert.deepEqual(Object.keys(tools[1].backend), ['url', 'method', 'timeout_ms']);
    });
  });

  describe('idempotent', () => {
    it('writes idempotent to the config only when set; a manifest says the same', () => {
      const stack = newStack();
      const post = new Service(stack, 'post', {
        endpoint: { url: 'http://api:8080/a', method: 'POST' },
        idempotent: true,
      });
      const get = new Service(stack, 'get', {
        endpoint: { url: 'http://api:8080/b', method: 'GET' },
        idempotent: false,
      });
      const plain = new Service(stack, 'plain', { endpoint: { url: 'http://api:8080/c', method: 'GET' } });
      new Gateway(stack, 'support', { services: [post, get, plain], auth: AUTH });
      const tools = configOf(synth(stack), 'support').tools;
      assert.deepEqual(
        tools.map((t) => t.backend.idempotent),
        [true, false, undefined],
      );
      const dir = tempDir('idempotent-');
      const file = path.join(dir, 'm.yaml');
      fs.writeFileSync(
        file,
        `services:\n  post:\n    endpoint: { url: "http://api:8080/a", method: POST }\n    idempotent: true\n` +
          `gateways:\n  support:\n    services: [post]\n    auth: { tokens: [{ id: bot, sha256: "${'a'.repeat(64)}" }] }\n`,
      );
      const fromYaml = newStack();
      new Manifest(fromYaml, 'm', { path: file });
      assert.equal(configOf(synth(fromYaml), 'support').tools[0].backend.idempotent, true);
    });

    it('refuses a value that is not a boolean, naming the prop', () => {
      const stack = newStack();
      assert.equal(
        thrown(
          () =>
            new Service(stack, 'post', {
              endpoint: { url: 'http://api:8080/a', method: 'POST' },
              idempotent: 'yes' as unknown as boolean,
            }),
        ).message,
        "Service 'post': idempotent ('yes') must be true or false",
      );
    });
  });

  describe('endpoint.tls', () => {
    it('uploads the CA file into the gateway container and points the config at it', () => {
      const stack = newStack();
      new Gateway(stack, 'support', {
        services: [crm(stack, {}, { headers: {}, tls: { caFile } })],
        auth: AUTH,
      });
      const json = synth(stack);
      const file = configOf(json, 'support').tools[0].backend.tls?.ca_file;
      assert.match(file ?? '', /^\/etc\/cdktf-mcp-gateway\/ca\/[0-9a-f]{16}\.pem$/);
      const upload = gatewayContainer(json, 'support').upload.find((u: { file: string }) => u.file === file);
      assert.match(upload.content, /^-----BEGIN CERTIFICATE-----/);
    });

    it('takes the CA from a secret, and refuses tls on http://, a missing file and a file without a certificate', () => {
      const stack = newStack();
      const s = crm(stack, {}, { headers: {}, tls: { ca: Secret.env('CRM_CA') } });
      assert.deepEqual(s.toolConfig().backend.tls, { ca_secret: 'CRM_CA' });
      assert.deepEqual(s.secretNames, ['CRM_CA']);
      assert.match(
        thrown(() => crm(newStack(), {}, { url: 'http://crm:8080/x', headers: {}, tls: { caFile } })).message,
        /endpoint\.tls applies only to an https:\/\/ URL/,
      );
      assert.match(
        thrown(() => crm(newStack(), {}, { headers: {}, tls: { caFile: path.join(dir, 'none.pem') } })).message,
        /endpoint\.tls\.caFile '.*none\.pem' cannot be read \(ENOENT\)/,
      );
      fs.writeFileSync(path.join(dir, 'empty.pem'), 'nothing');
      assert.match(
        thrown(() => crm(newStack(), {}, { headers: {}, tls: { caFile: path.join(dir, 'empty.pem') } })).message,
        /holds no PEM certificate/,
      );
      assert.match(thrown(() => crm(newStack(), {}, { headers: {}, tls: {} })).message, /needs exactly one of caFile/);
    });
  });

  describe('Gateway.hostIp', () => {
    it('publishes the port on that address and shows it in the output URL', () => {
      const stack = newStack();
      const gateway = new Gateway(stack, 'support', {
        services: [crm(stack, {}, { headers: {} })],
        auth: AUTH,
        hostIp: '127.0.0.1',
        port: 9000,
      });
      const json = synth(stack);
      assert.deepEqual(gatewayContainer(json, 'support').ports, [{ internal: 8080, external: 9000, ip: '127.0.0.1' }]);
      assert.equal(gateway.url, 'http://127.0.0.1:9000/mcp');
      assert.equal(json.output.gateway_support_url.value, 'http://127.0.0.1:9000/mcp');
    });

    it('brackets an IPv6 address, says localhost for all interfaces, refuses a host name', () => {
      const at = (hostIp: string): string => {
        const stack = newStack();
        return new Gateway(stack, 'g', { services: [], auth: AUTH, hostIp }).url;
      };
      assert.equal(at('::1'), 'http://[::1]:8080/mcp');
      assert.equal(at('0.0.0.0'), 'http://localhost:8080/mcp');
      assert.match(
        thrown(() => at('localhost')).message,
        /hostIp 'localhost' must be an IP address of the Docker host/,
      );
    });

    it('leaves ports without ip when hostIp is not set', () => {
      const stack = newStack();
      new Gateway(stack, 'support', { services: [crm(stack, {}, { headers: {} })], auth: AUTH });
      assert.deepEqual(gatewayContainer(synth(stack), 'support').ports, [{ internal: 8080, external: 8080 }]);
    });
  });

  describe('container.build', () => {
    let context: string;
    before(() => {
      context = path.join(dir, 'backend');
      fs.mkdirSync(context);
      fs.writeFileSync(path.join(context, 'Dockerfile'), 'FROM scratch\n');
      fs.writeFileSync(path.join(context, 'Other.dockerfile'), 'FROM scratch\n');
    });

    it('builds the image from the context (an asset), tagged with its content hash, and runs it', () => {
      const stack = newStack();
      new Service(stack, 'health', {
        endpoint: { url: 'http://api:8080/health', method: 'GET' },
        container: { build: { context, dockerfile: 'Other.dockerfile', args: { NODE_VERSION: '20' } }, port: 8080 },
      });
      const json = synth(stack);
      const image = resourcesOf(json, 'docker_image').find((i: { name: string }) => i.name.startsWith('test-api:'));
      assert.ok(image, JSON.stringify(resourcesOf(json, 'docker_image')));
      assert.match(image.build.context, /^assets\/.+\/[0-9A-F]{32,}$/);
      // a changed context is a new image under a new tag (the first 12 hex of the asset hash), no trigger
      assert.equal(image.name, `test-api:${path.basename(image.build.context).slice(0, 12).toLowerCase()}`);
      assert.equal(image.build.dockerfile, 'Other.dockerfile');
      assert.deepEqual(image.build.build_args, { NODE_VERSION: '20' });
      assert.equal(image.triggers, undefined);
      assert.equal(image.keep_locally, false);
      assert.equal(image.force_remove, true);
      assert.deepEqual(image.lifecycle, { create_before_destroy: true });
      const container = resourcesOf(json, 'docker_container').find((c: { name: string }) => c.name === 'test-health');
      assert.match(container.image, /^\$\{docker_image\..+\.image_id\}$/);
    });

    it('refuses both image and build, neither, a missing context and a Dockerfile outside the context', () => {
      const make = (container: object) => () =>
        new Service(newStack(), 'health', {
          endpoint: { url: 'http://api:8080/health', method: 'GET' },
          container: container as never,
        });
      assert.match(
        thrown(make({ image: 'a:1', build: { context }, port: 8080 })).message,
        /container needs exactly one of image .* and build/,
      );
      assert.match(thrown(make({ port: 8080 })).message, /container needs exactly one of image/);
      assert.match(
        thrown(make({ build: { context: path.join(dir, 'nope') }, port: 8080 })).message,
        /container\.build\.context '.*nope' is not a directory/,
      );
      assert.match(
        thrown(make({ build: { context, dockerfile: '../ca.pem' }, port: 8080 })).message,
        /container\.build\.dockerfile '\.\.\/ca\.pem' is not a file inside the context/,
      );
    });
  });

  describe('in a manifest', () => {
    it('reads headers, secrets (as sensitive variables), tls, forward_identity, host_ip and build', () => {
      fs.writeFileSync(path.join(dir, 'm-ca.pem'), fs.readFileSync(caFile));
      const file = path.join(dir, 'credentials.yaml');
      fs.writeFileSync(
        file,
        `services:
  get_customer:
    endpoint:
      url: "https://crm:8443/customers"
      method: GET
      headers: { Authorization: { secret: CRM_API_KEY }, X-Tenant: acme }
      tls: { ca_file: m-ca.pem }
    forward_identity: true
    container: { build: { context: backend }, port: 8443 }
gateways:
  support:
    services: [get_customer]
    auth: { tokens: [{ id: bot, sha256: "${hashOf('m')}" }] }
    host_ip: 127.0.0.1
`,
      );
      const stack = newStack();
      new Manifest(stack, 'm', { path: file });
      const json = synth(stack);
      const backend = configOf(json, 'support').tools[0].backend;
      assert.deepEqual(backend.headers, { Authorization: { secret: 'CRM_API_KEY' }, 'X-Tenant': 'acme' });
      assert.equal(backend.forward_identity, true);
      assert.match(backend.tls?.ca_file ?? '', /^\/etc\/cdktf-mcp-gateway\/ca\//);
      assert.equal(JSON.stringify(gatewayContainer(json, 'support').env).includes('CRM_API_KEY'), false);
      assert.deepEqual(handoffSecret(json, 'support', '/run/secrets/CRM_API_KEY'), {
        path: '/run/secrets/CRM_API_KEY',
        content: '${var.CRM_API_KEY}\n',
        mode: '0400',
        uid: 1000,
        gid: 1000,
      });
      assert.equal(json.variable.CRM_API_KEY.sensitive, true);
      assert.equal(gatewayContainer(json, 'support').ports[0].ip, '127.0.0.1');
      assert.ok(
        resourcesOf(json, 'docker_image').some(
          (i: { build?: unknown }) => i.build !== undefined && (i as { name: string }).name.includes('crm'),
        ),
      );
    });

    it('reports a bad secret name and both image and build at their line and column', () => {
      const file = path.join(dir, 'bad.yaml');
      fs.writeFileSync(
        file,
        `services:
  s:
    endpoint: { url: "http://api:8080/x", method: GET, headers: { X-Key: { secret: NODE_OPTIONS } } }
    container: { image: a, build: { context: backend }, port: 8080 }
gateways:
  g:
    services: [s]
    auth: none
`,
      );
      const err = thrown(() => new Manifest(newStack(), 'm', { path: file }));
      assert.match(err.message, /bad\.yaml:3:\d+: services\.s\.endpoint\.headers\.X-Key\.secret: the name is reserved/);
      assert.match(err.message, /bad\.yaml:4:\d+: services\.s\.container: set exactly one of `image` and `build`/);
    });
  });
});
