import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Testing, TerraformStack, TerraformVariable } from 'cdktf';
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
  configApply,
  handoffSecret,
} from './synth';
import { dockerHandoffsOf, handoffFileText, type DockerHandoff } from '../../src/config';

const auth = { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] };

/** The id of a resource body in the synthesized stack. */
function idOf(json: Json, type: string, body: Json): string {
  return Object.keys(json.resource[type]).find((id) => json.resource[type][id] === body)!;
}

/** The hand-over's digest: the image's name (its tag follows the context) and the files but secrets. */
function filesHash(handoff: DockerHandoff, json: Json): string {
  const files = handoff.files
    .filter((f) => f.env === undefined)
    .map((f) => ({ file: f.path, content: handoffFileText(handoff, f.path) }));
  const [image] = resourcesOf(json, 'docker_image');
  return createHash('sha256')
    .update(JSON.stringify({ image: image.name, files }))
    .digest('hex')
    .slice(0, 12);
}

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

    it('builds one gateway image from the packaged context, tagged with the context hash', () => {
      const images = resourcesOf(json, 'docker_image');
      assert.equal(images.length, 1);
      const [image] = images;
      const hash = path.basename(image.build.context);
      assert.match(hash, /^[0-9A-F]{32}$/);
      assert.equal(image.build.context, `assets/McpGatewayImage_ImageContext_9DE28F2E/${hash}`);
      // a new context is a new image under a new name (no trigger), built before the old one is removed
      assert.equal(image.name, `cdktf-mcp-gateway-desk:node-22-bookworm-slim-${hash.slice(0, 12).toLowerCase()}`);
      assert.deepEqual(image.build, {
        context: `assets/McpGatewayImage_ImageContext_9DE28F2E/${hash}`,
        build_args: { BASE_IMAGE: 'node:22-bookworm-slim' },
        network_mode: 'none',
      });
      assert.equal(image.triggers, undefined);
      assert.equal(image.keep_locally, false);
      assert.equal(image.force_remove, true);
      assert.deepEqual(image.lifecycle, { create_before_destroy: true });
    });

    it('asks for the kreuzwerker/docker release whose uploads have an owner (~> 4.6)', () => {
      assert.deepEqual(json.terraform.required_providers.docker, { source: 'kreuzwerker/docker', version: '~> 4.6' });
    });

    it('runs the image in a container that serves the config in its state volume and reloads it in place', () => {
      const container = gatewayContainer(json, 'support');
      assert.equal(container.name, 'desk-support');
      assert.equal(container.image, '${docker_image.McpGatewayImage_FD6D9FCA.image_id}');
      assert.deepEqual(container.command, [
        'serve',
        '--config',
        '/var/lib/cdktf-mcp-gateway/gateway.json',
        '--watch',
        '--status-file',
        '/var/lib/cdktf-mcp-gateway/status.json',
      ]);
      // no config upload: a changed upload would replace the container
      assert.deepEqual(container.upload, []);
      assert.deepEqual(container.env, [
        'CDKTF_MCP_GATEWAY_SECRETS_DIR=/var/lib/cdktf-mcp-gateway/secrets',
        `CDKTF_MCP_GATEWAY_BUILD=${json.resource.docker_image.McpGatewayImage_FD6D9FCA.name}`,
      ]);
      assert.deepEqual(configOf(json, 'support'), {
        version: 1,
        gateway: {
          name: 'support',
          host: '0.0.0.0',
          port: 8080,
          validate_input: true,
          validation_errors: 'auto',
          auth: { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] },
          audit_log: true,
          // no sessionKey: the gateway generates one once and keeps it in its state volume
          session_key_store: '/var/lib/cdktf-mcp-gateway/session-key',
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

    it('has a node-based healthcheck the deploy waits for, and restarts unless stopped', () => {
      const container = gatewayContainer(json, 'support');
      assert.deepEqual(container.healthcheck, {
        test: ['CMD', 'node', '/app/healthcheck.js'],
        interval: '5s',
        timeout: '5s',
        start_period: '30s',
        retries: 3,
      });
      assert.equal(container.wait, true);
      assert.equal(container.wait_timeout, 120);
      assert.equal(container.restart, 'unless-stopped');
      // the image's user, which owns the uploaded secret files
      assert.equal(container.user, '1000');
    });

    it('hands the config over through a terraform_data whose local-exec runs apply-config --docker: a plan shows a digest, never the files', () => {
      const container = gatewayContainer(json, 'support');
      const { resource: apply, handoff } = configApply(json, 'support');
      const applyId = idOf(json, 'terraform_data', apply);
      assert.match(applyId, /^support_ApplyConfig_[0-9A-F]{8}$/);
      // the first deploy's config is in the state volume before the gateway starts
      assert.deepEqual(container.depends_on, [`terraform_data.${applyId}`]);
      // replaced, and so run again, when the files, the image or the volume change
      assert.deepEqual(apply.triggers_replace, { files: filesHash(handoff, json), volume: 'desk-support-state' });
      assert.deepEqual(apply.depends_on, ['docker_volume.support_State_D29BB8B9']);
      const [{ 'local-exec': exec }] = apply.provisioner;
      assert.equal(exec.interpreter[0], 'node');
      assert.equal(exec.interpreter[1], path.join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js'));
      assert.deepEqual(exec.interpreter.slice(2), ['apply-config', '--docker']);
      assert.equal(exec.command, handoff.container);
      assert.equal(exec.quiet, true);
      // the image is known at apply only; nothing else travels through the environment without a secret
      assert.deepEqual(exec.environment, { CDKTF_MCP_GATEWAY_HANDOFF_IMAGE: container.image });
      assert.deepEqual(handoff, {
        gateway: 'support',
        container: `desk-support-config-${filesHash(handoff, json)}`,
        user: '1000',
        labels: { 'cdktf-mcp-gateway.config': 'support' },
        env: [container.env[1]],
        volumes: ['desk-support-state:/var/lib/cdktf-mcp-gateway'],
        command: [
          'apply-config',
          '--config',
          '/etc/cdktf-mcp-gateway/gateway.json',
          '--state-dir',
          '/var/lib/cdktf-mcp-gateway',
          '--quiet',
        ],
        files: [
          {
            path: '/etc/cdktf-mcp-gateway/gateway.json',
            content_base64: Buffer.from(configText(json, 'support')).toString('base64'),
            mode: '0444',
            uid: 0,
            gid: 0,
          },
        ],
      });
    });

    it('summarizes the config for reviewers in a stack output Terraform diffs field by field, with no secret', () => {
      assert.deepEqual(json.output.gateway_support_config.value, {
        validate_input: true,
        validate_output: true,
        validation_errors: 'auto',
        tools: ['get_customer'],
        tokens: ['support-bot'],
        oauth_issuer: '',
        config_digest: createHash('sha256').update(configText(json, 'support')).digest('hex'),
        handover: `\${terraform_data.${Object.keys(json.resource.terraform_data).find((k) => k.startsWith('support_ApplyConfig_'))}.id}`,
      });
    });

    it('labels the container with the gateway name and joins the stack network', () => {
      const container = gatewayContainer(json, 'support');
      assert.deepEqual(container.labels, [{ label: 'cdktf-mcp-gateway.gateway', value: 'support' }]);
      assert.deepEqual(container.networks_advanced, [{ name: '${docker_network.McpNetwork_83819BD9.name}' }]);
      assert.deepEqual(resourcesOf(json, 'docker_network'), [{ name: 'desk-mcp' }]);
    });

    it('mounts a volume for the audit log and one for its state (the generated session key)', () => {
      assert.deepEqual(resourcesOf(json, 'docker_volume'), [
        { name: 'desk-support-audit' },
        { name: 'desk-support-state' },
      ]);
      const [auditId, stateId] = Object.keys(json.resource.docker_volume);
      assert.match(auditId, /^support_AuditLog_[0-9A-F]{8}$/);
      assert.match(stateId, /^support_State_[0-9A-F]{8}$/);
      assert.deepEqual(gatewayContainer(json, 'support').volumes, [
        { container_path: '/var/log/cdktf-mcp-gateway', volume_name: `\${docker_volume.${auditId}.name}` },
        { container_path: '/var/lib/cdktf-mcp-gateway', volume_name: `\${docker_volume.${stateId}.name}` },
      ]);
    });

    it('outputs the gateway URL', () => {
      assert.deepEqual(json.output.gateway_support_url, {
        description: 'MCP endpoint of gateway support',
        value: 'http://localhost:9090/mcp',
      });
    });
  });

  describe('the generated config', () => {
    it('writes toolsListPageSize as tools_list_page_size, and leaves it out when unset', () => {
      const set = synth(supportStack({ toolsListPageSize: 25 }).stack);
      assert.equal(configOf(set, 'support').gateway.tools_list_page_size, 25);
      const unset = synth(supportStack().stack);
      assert.equal('tools_list_page_size' in configOf(unset, 'support').gateway, false);
    });

    it('throws if toolsListPageSize is not a positive integer, naming the prop and the value', () => {
      for (const bad of [0, -1, 2.5, Number.NaN]) {
        assert.equal(
          thrown(() => supportStack({ toolsListPageSize: bad })).message,
          `Gateway 'support': toolsListPageSize (${bad}) must be a positive integer (tools per tools/list page)`,
        );
      }
    });

    it('changes only validate_input, and the hand-over it runs, when validateInput is toggled', () => {
      const onJson = synth(supportStack({ validateInput: true }).stack);
      const offJson = synth(supportStack({ validateInput: false }).stack);
      assert.equal(configOf(offJson, 'support').gateway.validate_input, false);
      // the config hand-over runs again (its files' digest changed), on the new config
      const [on, off] = [configApply(onJson, 'support'), configApply(offJson, 'support')];
      assert.notEqual(off.resource.triggers_replace.files, on.resource.triggers_replace.files);
      assert.equal(off.handoff.container, `desk-support-config-${filesHash(off.handoff, offJson)}`);
      // the plan shows the field itself, in the summary output
      assert.equal(onJson.output.gateway_support_config.value.validate_input, true);
      assert.equal(offJson.output.gateway_support_config.value.validate_input, false);
      // everything else, in the whole synthesized stack, is the same: the gateway container above all
      assert.deepEqual(gatewayContainer(offJson, 'support'), gatewayContainer(onJson, 'support'));
      off.resource.triggers_replace = on.resource.triggers_replace;
      off.resource.provisioner = on.resource.provisioner;
      off.resource['//'] = on.resource['//'];
      offJson.output.gateway_support_config = onJson.output.gateway_support_config;
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
      // base64 in the hand-over, under a comment Terraform never reads
      assert.match(configApply(json, 'g').handoff.files[0].content_base64 ?? '', /^[A-Za-z0-9+/=]+$/);
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
        session_key_store: '/var/lib/cdktf-mcp-gateway/session-key',
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
      // only the state volume is left
      assert.deepEqual(resourcesOf(json, 'docker_volume'), [{ name: 'desk-support-state' }]);
      assert.deepEqual(
        gatewayContainer(json, 'support').volumes.map((v: Json) => v.container_path),
        ['/var/lib/cdktf-mcp-gateway'],
      );
    });

    it('runs the config hand-over again when a secret changes, and passes the value only through the environment', () => {
      const stack = newStack('desk');
      const health = new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } });
      const key = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
      new Gateway(stack, 'support', { services: [health], auth, sessionKey: key.stringValue });
      const json = synth(stack);
      const container = gatewayContainer(json, 'support');
      const { resource: apply, handoff } = configApply(json, 'support');
      // the reviewer's summary records a new config only once the gateway serves it
      const applyId = Object.keys(json.resource.terraform_data).find((k) => k.startsWith('support_ApplyConfig_'));
      assert.equal(json.output.gateway_support_config.value.handover, `\${terraform_data.${applyId}.id}`);
      // the values themselves, sensitive (a plan shows "(sensitive value)"), never a hash a guess could be tested on
      assert.deepEqual(apply.triggers_replace, {
        files: filesHash(handoff, json),
        secrets: { '/run/secrets/cdktf-mcp-gateway-session-key': '${var.session_key}\n' },
        volume: 'desk-support-state',
      });
      assert.doesNotMatch(JSON.stringify(json), /sha256\(/);
      // the session key is read at start: the container has it, and the hand-over copies it for the check
      assert.deepEqual(container.upload, [
        {
          file: '/run/secrets/cdktf-mcp-gateway-session-key',
          content: '${var.session_key}\n',
          permissions: '0400',
          owner: '1000',
          group: '1000',
        },
      ]);
      assert.deepEqual(handoffSecret(json, 'support', '/run/secrets/cdktf-mcp-gateway-session-key'), {
        path: '/run/secrets/cdktf-mcp-gateway-session-key',
        content: '${var.session_key}\n',
        mode: '0400',
        uid: 1000,
        gid: 1000,
      });
      assert.doesNotMatch(JSON.stringify(handoff), /var\.session_key/);
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
      // one context for both: the same hash in both tags
      const tag = path.basename(images[0].build.context).slice(0, 12).toLowerCase();
      assert.equal(images[1].build.context, images[0].build.context);
      assert.deepEqual(
        images.map((i: Json) => [i.name, i.build.build_args.BASE_IMAGE]),
        [
          [`cdktf-mcp-gateway-desk:node-22-bookworm-slim-${tag}`, 'node:22-bookworm-slim'],
          [`cdktf-mcp-gateway-desk:node-20-alpine-${tag}`, 'node:20-alpine'],
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

    it('quotes the port it got as written, NaN and Infinity included', () => {
      for (const [port, shown] of [
        [NaN, 'NaN'],
        [Infinity, 'Infinity'],
        [80.5, '80.5'],
      ] as const) {
        assert.equal(
          thrown(() => supportStack({ port })).message,
          `Gateway 'support': port (${shown}) must be an integer between 1 and 65535`,
        );
      }
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
      // the content hashes in the gateway image's tag and the hand-over's name are checked elsewhere
      const hashed = (name: string): string => name.replace(/-(preflight|config|slim)-[0-9a-f]{12}$/, '-$1-HASH');
      const names = (type: string): string[] =>
        resourcesOf(json, type)
          .map((r: Json) => hashed(r.name))
          .sort();
      return {
        images: names('docker_image'),
        containers: names('docker_container'),
        // the one-shot config containers, as the real cdk.tf.json describes them under a comment Terraform ignores
        handoffs: dockerHandoffsOf(json).map((h) => hashed(h.container)),
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
            images: ['acme/crm:1.4', `cdktf-mcp-gateway-${id}:node-22-bookworm-slim-HASH`],
            containers: [`${id}-get_customer`, `${id}-support`],
            handoffs: [`${id}-support-config-HASH`],
            networks: [`${id}-mcp`],
            volumes: [`${id}-support-audit`, `${id}-support-state`],
            outputs: ['gateway_support_config', 'gateway_support_url'],
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

  it('writes refusalStructuredContent only when set, and refuses a value that is not a boolean', () => {
    assert.equal(supportStack().gateway.config().gateway.refusal_structured_content, undefined);
    const { gateway } = supportStack({ refusalStructuredContent: false });
    assert.equal(gateway.config().gateway.refusal_structured_content, false);
    assert.throws(
      () => supportStack({ refusalStructuredContent: 'no' as unknown as boolean }),
      /Gateway 'support': refusalStructuredContent \('no'\) must be true or false/,
    );
  });
});
