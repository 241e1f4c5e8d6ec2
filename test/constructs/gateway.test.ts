import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Testing, TerraformStack } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { Gateway, GatewayProps, Service } from '../../constructs';
import {
  configOf,
  configText,
  gatewayContainer,
  hashOf,
  Json,
  newStack,
  resourcesOf,
  synth,
  thrown,
  warningsOf,
} from './synth';

const auth = { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] };

/** A stack with one service and one gateway `support` (props override the defaults). */
function supportStack(
  props: Partial<GatewayProps> = {},
  stackId = 'desk',
): { stack: TerraformStack; gateway: Gateway } {
  const stack = newStack(stackId);
  const getCustomer = new Service(stack, 'get_customer', {
    description: 'Look up a customer',
    endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
    input: { customer_id: { type: 'string', required: true } },
  });
  const gateway = new Gateway(stack, 'support', { services: [getCustomer], auth, ...props });
  return { stack, gateway };
}

describe('Gateway', () => {
  describe('synthesis', () => {
    let json: Json;
    before(() => {
      json = synth(supportStack({ port: 9090 }).stack);
    });

    it('builds one gateway image from the packaged context, rebuilt when the context hash changes', () => {
      const images = resourcesOf(json, 'docker_image');
      assert.equal(images.length, 1);
      const [image] = images;
      assert.equal(image.name, 'cdktf-mcp-gateway-desk:node-22-bookworm-slim');
      assert.deepEqual(image.build.build_args, { BASE_IMAGE: 'node:22-bookworm-slim' });
      const hash = image.triggers.context_sha;
      assert.match(hash, /^[0-9A-F]{32}$/);
      assert.equal(image.build.context, `assets/McpGatewayImage_ImageContext_9DE28F2E/${hash}`);
    });

    it('runs the image in a container with the config uploaded as literal JSON', () => {
      const container = gatewayContainer(json, 'support');
      assert.equal(container.name, 'desk-support');
      assert.equal(container.image, '${docker_image.McpGatewayImage_FD6D9FCA.image_id}');
      assert.equal(container.upload.length, 1);
      assert.equal(container.upload[0].file, '/etc/cdktf-mcp-gateway/gateway.json');
      assert.deepEqual(configOf(json, 'support'), {
        version: 1,
        gateway: {
          name: 'support',
          host: '0.0.0.0',
          port: 8080,
          validate_input: true,
          validation_errors: 'protocol',
          auth: { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] },
          audit_log: true,
        },
        tools: [
          {
            name: 'get_customer',
            description: 'Look up a customer',
            input_schema: {
              type: 'object',
              properties: { customer_id: { type: 'string' } },
              required: ['customer_id'],
              additionalProperties: false,
            },
            backend: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET', timeout_ms: 10000 },
          },
        ],
      });
    });

    it('publishes the gateway port for the container port 8080', () => {
      assert.deepEqual(gatewayContainer(json, 'support').ports, [{ external: 9090, internal: 8080 }]);
    });

    it('has a node-based healthcheck and restarts unless stopped', () => {
      const container = gatewayContainer(json, 'support');
      assert.deepEqual(container.healthcheck, {
        test: ['CMD', 'node', '/app/healthcheck.js'],
        interval: '15s',
        timeout: '5s',
        start_period: '10s',
        retries: 3,
      });
      assert.equal(container.restart, 'unless-stopped');
    });

    it('labels the container with the gateway name and joins the stack network', () => {
      const container = gatewayContainer(json, 'support');
      assert.deepEqual(container.labels, [{ label: 'cdktf-mcp-gateway.gateway', value: 'support' }]);
      assert.deepEqual(container.networks_advanced, [{ name: '${docker_network.McpNetwork_83819BD9.name}' }]);
      assert.deepEqual(resourcesOf(json, 'docker_network'), [{ name: 'desk-mcp' }]);
    });

    it('mounts a volume for the audit log', () => {
      assert.deepEqual(resourcesOf(json, 'docker_volume'), [{ name: 'desk-support-audit' }]);
      const [volumeId] = Object.keys(json.resource.docker_volume);
      assert.match(volumeId, /^support_AuditLog_[0-9A-F]{8}$/);
      assert.deepEqual(gatewayContainer(json, 'support').volumes, [
        { container_path: '/var/log/cdktf-mcp-gateway', volume_name: `\${docker_volume.${volumeId}.name}` },
      ]);
    });

    it('outputs the gateway URL', () => {
      assert.deepEqual(json.output, {
        gateway_support_url: { description: 'MCP endpoint of gateway support', value: 'http://localhost:9090/mcp' },
      });
    });
  });

  describe('the generated config', () => {
    it('changes only validate_input when validateInput is toggled', () => {
      const on = Testing.synth(supportStack({ validateInput: true }).stack, true);
      const off = Testing.synth(supportStack({ validateInput: false }).stack, true);
      assert.notEqual(on, off);
      const onJson = JSON.parse(on);
      const offJson = JSON.parse(off);
      assert.equal(configOf(offJson, 'support').gateway.validate_input, false);
      // everything else, in the whole synthesized stack, is the same
      const offContainer = gatewayContainer(offJson, 'support');
      offContainer.upload[0].content = offContainer.upload[0].content.replace(
        '"validate_input": false',
        '"validate_input": true',
      );
      assert.deepEqual(offJson, onJson);
    });

    it('is the same bytes on every synthesis', () => {
      assert.equal(Testing.synth(supportStack().stack), Testing.synth(supportStack().stack));
    });

    it('includes services added later, in order', () => {
      const { stack, gateway } = supportStack();
      gateway.addService(new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } }));
      assert.deepEqual(
        configOf(synth(stack), 'support').tools.map((t) => t.name),
        ['get_customer', 'health'],
      );
    });

    it('escapes Terraform template sequences so that they reach the gateway literally', () => {
      const stack = newStack();
      const service = new Service(stack, 'price', {
        description: 'Prices in ${currency} and %{percent}',
        endpoint: { url: 'http://shop:8080/price', method: 'GET' },
      });
      new Gateway(stack, 'g', { services: [service], auth });
      const json = synth(stack);
      const raw: string = gatewayContainer(json, 'g').upload[0].content;
      assert.ok(raw.includes('Prices in $${currency} and %%{percent}'));
      assert.equal(configOf(json, 'g').tools[0].description, 'Prices in ${currency} and %{percent}');
    });

    it('carries the settings: channel, audit log path, allowed hosts and origins, no auth', () => {
      const { stack } = supportStack({
        validationErrors: 'auto',
        auditLog: { path: '/var/log/cdktf-mcp-gateway/support.jsonl' },
        allowedHosts: ['mcp.example.com'],
        allowedOrigins: ['https://app.example.com'],
        auth: 'none',
      });
      assert.deepEqual(configOf(synth(stack), 'support').gateway, {
        name: 'support',
        host: '0.0.0.0',
        port: 8080,
        validate_input: true,
        validation_errors: 'auto',
        auth: 'none',
        audit_log: { path: '/var/log/cdktf-mcp-gateway/support.jsonl' },
        allowed_hosts: ['mcp.example.com'],
        allowed_origins: ['https://app.example.com'],
      });
    });

    it('stores token hashes in lowercase', () => {
      const sha256 = hashOf('x').toUpperCase();
      const { gateway } = supportStack({ auth: { tokens: [{ id: 'bot', sha256 }] } });
      assert.deepEqual(gateway.config().gateway.auth, { tokens: [{ id: 'bot', sha256: sha256.toLowerCase() }] });
    });

    it('has no audit volume when the audit log is off', () => {
      const json = synth(supportStack({ auditLog: false }).stack);
      assert.equal(configOf(json, 'support').gateway.audit_log, false);
      assert.deepEqual(resourcesOf(json, 'docker_volume'), []);
      assert.equal(gatewayContainer(json, 'support').volumes, undefined);
    });
  });

  describe('images', () => {
    it('shares one image between the gateways of a stack', () => {
      const { stack, gateway } = supportStack();
      const service = new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } });
      new Gateway(stack, 'other', { services: [service], auth, port: 8081 });
      const json = synth(stack);
      assert.equal(resourcesOf(json, 'docker_image').length, 1);
      assert.equal(gatewayContainer(json, 'other').image, gatewayContainer(json, gateway.name).image);
    });

    it('builds a second image for another base image', () => {
      const { stack } = supportStack();
      const service = new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } });
      new Gateway(stack, 'other', { services: [service], auth, port: 8081, baseImage: 'node:20-alpine' });
      const images = resourcesOf(synth(stack), 'docker_image');
      assert.deepEqual(
        images.map((i: Json) => [i.name, i.build.build_args.BASE_IMAGE]),
        [
          ['cdktf-mcp-gateway-desk:node-22-bookworm-slim', 'node:22-bookworm-slim'],
          ['cdktf-mcp-gateway-desk:node-20-alpine', 'node:20-alpine'],
        ],
      );
    });
  });

  describe('auth', () => {
    it("warns, but synthesizes, with auth: 'none'", () => {
      const { stack, gateway } = supportStack({ auth: 'none' });
      assert.deepEqual(warningsOf(gateway), [
        "Gateway 'support' has auth: 'none': anyone who can reach port 8080 can call its tools. " +
          'Add auth.tokens or auth.oauth for anything beyond a local test',
      ]);
      assert.equal(configOf(synth(stack), 'support').gateway.auth, 'none');
    });

    it('does not warn with tokens', () => {
      assert.deepEqual(warningsOf(supportStack().gateway), []);
    });

    it('refuses a sha256 that is not 64 hex characters, without echoing it', () => {
      const message = thrown(() =>
        supportStack({ auth: { tokens: [{ id: 'bot', sha256: 'my-secret-token' }] } }),
      ).message;
      assert.equal(
        message,
        "Gateway 'support': auth.tokens[0].sha256 (token 'bot') must be 64 hex characters, the SHA-256 of the token " +
          '(this value has 15 characters; make it with printf %s "$TOKEN" | sha256sum), never the token itself',
      );
    });

    it('refuses an empty token list', () => {
      assert.equal(
        thrown(() => supportStack({ auth: { tokens: [] } })).message,
        "Gateway 'support': auth.tokens is empty, so nobody could call the gateway: add a token, or set auth: 'none' on purpose",
      );
    });

    it('refuses a missing auth', () => {
      assert.equal(
        thrown(() => supportStack({ auth: undefined })).message,
        "Gateway 'support': 'auth' is required: { tokens: [{ id, sha256 }] } and/or { oauth: { issuer } }, or 'none' to turn authentication off",
      );
    });

    it('refuses two tokens with one id', () => {
      const tokens = [
        { id: 'bot', sha256: hashOf('a') },
        { id: 'bot', sha256: hashOf('b') },
      ];
      assert.equal(
        thrown(() => supportStack({ auth: { tokens } })).message,
        "Gateway 'support': auth.tokens[1] repeats the id 'bot': each token needs its own id and hash",
      );
    });
  });

  describe('errors thrown at construction', () => {
    it('refuses a port out of range', () => {
      assert.equal(
        thrown(() => supportStack({ port: 70000 })).message,
        "Gateway 'support': port (70000) must be an integer between 1 and 65535",
      );
    });

    it('names a port of NaN (an unset variable through Number()) as NaN, not null', () => {
      assert.equal(
        thrown(() => supportStack({ port: Number(undefined) })).message,
        "Gateway 'support': port (NaN) must be an integer between 1 and 65535",
      );
      assert.equal(
        thrown(() => supportStack({ port: Infinity })).message,
        "Gateway 'support': port (Infinity) must be an integer between 1 and 65535",
      );
    });

    it('refuses an unknown validationErrors channel', () => {
      assert.equal(
        thrown(() => supportStack({ validationErrors: 'json' as 'auto' })).message,
        "Gateway 'support': validationErrors 'json' is not supported: expected one of protocol, tool_result, auto",
      );
    });

    it('refuses an audit log path outside the audit volume', () => {
      assert.equal(
        thrown(() => supportStack({ auditLog: { path: '/tmp/audit.jsonl' } })).message,
        "Gateway 'support': auditLog.path '/tmp/audit.jsonl' must be a file directly in /var/log/cdktf-mcp-gateway/ " +
          '(the volume the gateway container writes to), e.g. /var/log/cdktf-mcp-gateway/audit.jsonl; or set auditLog: true',
      );
    });

    it('refuses an allowedHosts entry that is not a non-empty string', () => {
      assert.equal(
        thrown(() => supportStack({ allowedHosts: ['mcp.example.com', ''] })).message,
        'Gateway \'support\': allowedHosts (["mcp.example.com",""]) must be a list of non-empty strings, ' +
          "e.g. ['mcp.example.com']",
      );
    });

    it('refuses an invalid gateway name', () => {
      assert.equal(
        thrown(() => supportStack({ name: 'support desk' })).message,
        "Invalid gateway name 'support desk': a gateway name is 1-64 letters, digits, '_', '.' or '-' " +
          "(^[A-Za-z0-9_.-]{1,64}$); set 'name'",
      );
    });
  });

  describe('addService', () => {
    it('refuses a Service that is already on the gateway', () => {
      const { stack, gateway } = supportStack();
      const service = stack.node.findChild('get_customer') as Service;
      assert.equal(
        thrown(() => gateway.addService(service)).message,
        "Gateway 'support': service 'get_customer' ('desk/get_customer') is already on this gateway; add each Service once",
      );
    });

    it('refuses a service whose container another stack deploys, which its network could not reach', () => {
      const app = Testing.app();
      const backends = new TerraformStack(app, 'backends');
      const service = new Service(backends, 'get_customer', {
        endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
        input: { customer_id: { type: 'string', required: true } },
        container: { image: 'acme/crm:1.4', port: 8080 },
      });
      const gateway = new Gateway(new TerraformStack(app, 'gateways'), 'support', { auth });
      assert.equal(
        thrown(() => gateway.addService(service)).message,
        "Gateway 'support' (stack 'gateways') cannot reach the container of service 'get_customer', deployed by " +
          "stack 'backends': a gateway joins only its own stack's network; create the Service in the gateway's " +
          "stack, or drop its 'container' and deploy the backend elsewhere",
      );
    });

    it('accepts a service without a container from another stack: only its tool config is used', () => {
      const app = Testing.app();
      const shared = new Service(new TerraformStack(app, 'catalog'), 'health', {
        endpoint: { url: 'http://crm:8080/health', method: 'GET' },
      });
      const stack = newStack('desk');
      new Gateway(stack, 'support', { services: [shared], auth });
      assert.deepEqual(configOf(synth(stack), 'support').tools, [shared.toolConfig()]);
    });
  });

  describe('in an app with two stacks', () => {
    /** The Docker names and outputs of one synthesized stack of `outdir`. */
    function namesIn(outdir: string, stackId: string): Json {
      const json = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', stackId, 'cdk.tf.json'), 'utf8'));
      const names = (type: string): string[] =>
        resourcesOf(json, type)
          .map((r: Json) => r.name as string)
          .sort();
      return {
        images: names('docker_image'),
        containers: names('docker_container'),
        networks: names('docker_network'),
        volumes: names('docker_volume'),
        outputs: Object.keys(json.output),
      };
    }

    it('synthesizes each stack with its own image, network, volume and container names', () => {
      const app = Testing.app();
      for (const id of ['eu', 'us']) {
        const stack = new TerraformStack(app, id);
        new DockerProvider(stack, 'docker', {});
        const service = new Service(stack, 'get_customer', {
          endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
          input: { customer_id: { type: 'string', required: true } },
          container: { image: 'acme/crm:1.4', port: 8080 },
        });
        new Gateway(stack, 'support', { services: [service], auth });
      }
      try {
        app.synth();
        for (const id of ['eu', 'us']) {
          assert.deepEqual(namesIn(app.outdir, id), {
            images: ['acme/crm:1.4', `cdktf-mcp-gateway-${id}:node-22-bookworm-slim`],
            containers: [`${id}-get_customer`, `${id}-support`],
            networks: [`${id}-mcp`],
            volumes: [`${id}-support-audit`],
            outputs: ['gateway_support_url'],
          });
        }
      } finally {
        fs.rmSync(app.outdir, { recursive: true, force: true });
      }
    });
  });

  describe('errors found at synthesis', () => {
    it('refuses a gateway with no services', () => {
      const stack = newStack();
      const gateway = new Gateway(stack, 'empty', { auth });
      assert.deepEqual(gateway.node.validate(), [
        "Gateway 'empty' has no services: pass 'services' or call addService() with at least one Service",
      ]);
      assert.throws(
        () => Testing.synth(stack, true),
        (err: Error) =>
          err.message.includes(
            "[test/empty] Gateway 'empty' has no services: pass 'services' or call addService() with at least one Service",
          ),
      );
    });

    it('refuses two services with one tool name on a gateway', () => {
      const stack = newStack();
      const endpoint = { url: 'http://crm:8080/x', method: 'GET' } as const;
      const a = new Service(stack, 'a', { name: 'lookup', endpoint });
      const b = new Service(stack, 'b', { name: 'lookup', endpoint });
      const gateway = new Gateway(stack, 'g', { services: [a, b], auth });
      assert.deepEqual(gateway.node.validate(), [
        "Gateway 'g' exposes the tool name 'lookup' 2 times ('test/a', 'test/b'): each tool on a gateway needs a " +
          "unique name; set a distinct 'name' on the Services or add each Service once",
      ]);
    });

    it('refuses two gateways publishing one host port', () => {
      const { stack, gateway } = supportStack();
      const service = new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } });
      new Gateway(stack, 'other', { services: [service], auth });
      assert.deepEqual(gateway.node.validate(), [
        "Gateways 'other' and 'support' both publish host port 8080: give each gateway its own 'port'",
      ]);
    });

    it('refuses two gateway names that map to one stack output', () => {
      const { stack } = supportStack({ name: 'support.eu' });
      const service = new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } });
      const other = new Gateway(stack, 'other', { name: 'support_eu', services: [service], auth, port: 8081 });
      assert.deepEqual(other.node.validate(), [
        "Gateways 'support.eu' and 'support_eu' would both write the output 'gateway_support_eu_url': give one of " +
          "them a 'name' that differs in more than '.' and '_'",
      ]);
    });

    it('refuses two gateways with one name in a stack', () => {
      const { stack, gateway } = supportStack();
      const service = new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } });
      new Gateway(stack, 'other', { name: 'support', services: [service], auth, port: 8081 });
      assert.deepEqual(gateway.node.validate(), [
        "Gateway name 'support' is used by 'desk/other' and 'desk/support' in one stack: container and volume " +
          "names derive from it; give each gateway its own 'name'",
      ]);
    });
  });

  it('exposes its URL, port and config, rendered as JSON text ending in a newline', () => {
    const { gateway } = supportStack({ validateInput: false, validationErrors: 'tool_result', port: 8085 });
    assert.equal(gateway.url, 'http://localhost:8085/mcp');
    assert.equal(gateway.port, 8085);
    assert.equal(gateway.config().gateway.validate_input, false);
    assert.equal(gateway.config().gateway.validation_errors, 'tool_result');
    assert.ok(configText(synth(TerraformStack.of(gateway)), 'support').endsWith('}\n'));
  });
});
