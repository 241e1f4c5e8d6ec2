import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformVariable, Testing } from 'cdktf';
import {
  AuditDashboard,
  Gateway,
  type GatewayProps,
  LimitStore,
  type LimitStoreProps,
  Manifest,
  Secret,
  Service,
} from '../../constructs';
import { parseGatewayConfig } from '../../src/config';
import {
  handoffSecret,
  configOf,
  gatewayContainer,
  hashOf,
  newStack,
  resourcesOf,
  synth,
  thrown,
  warningsOf,
} from './synth';
import { tempDir } from '../helpers/temp-dir';

const auth = { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] };

function stackWith(props: Partial<GatewayProps>, serviceLimits?: { calls: number; per: 'minute' | 'hour' }[]) {
  const stack = newStack();
  const service = new Service(stack, 'create_ticket', {
    endpoint: { url: 'http://desk:8080/tickets', method: 'POST' },
    input: { subject: { type: 'string', required: true } },
    ...(serviceLimits === undefined ? {} : { rateLimits: serviceLimits }),
  });
  const lookup = new Service(stack, 'lookup', {
    endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
    input: {},
  });
  const gateway = new Gateway(stack, 'support', { services: [service, lookup], auth, ...props });
  return { stack, gateway };
}

function errorsOf(stack: ReturnType<typeof newStack>): string {
  return thrown(() => Testing.synth(stack, true)).message;
}

describe('rate limits and the limit store in the constructs', () => {
  it("writes the gateway's limits and each service's own into the config, which the gateway loads", () => {
    const { stack } = stackWith(
      {
        rateLimits: [
          { calls: 60, per: 'minute' },
          { calls: 10000, per: 'day' },
        ],
      },
      [{ calls: 10, per: 'minute' }],
    );
    const config = configOf(synth(stack), 'support');
    assert.deepEqual(config.gateway.rate_limits, [
      { calls: 60, per: 'minute' },
      { calls: 10000, per: 'day' },
      { calls: 10, per: 'minute', tool: 'create_ticket' },
    ]);
    parseGatewayConfig(config);
  });

  it('warns that limits count per process without a store, and not with one', () => {
    const { gateway } = stackWith({ rateLimits: [{ calls: 60, per: 'minute' }] });
    Testing.synth(gateway.node.scope as never, true);
    assert.deepEqual(warningsOf(gateway), [
      "Gateway 'support': rate limits count per gateway process without a store, and start over when the gateway restarts: give the gateway a store (a LimitStore) to count them exactly",
    ]);
    const withStore = stackWith({ rateLimits: [{ calls: 60, per: 'minute' }], store: { url: 'redis://store:6379' } });
    Testing.synth(withStore.stack, true);
    assert.deepEqual(warningsOf(withStore.gateway), []);
  });

  const refusals: [string, Partial<GatewayProps>, string][] = [
    [
      'a window that is not one',
      { rateLimits: [{ calls: 5, per: 'week' as never }] },
      "Gateway 'support': rateLimits[0].per ('week') must be one of 'second', 'minute', 'hour', 'day'",
    ],
    [
      'zero calls',
      { rateLimits: [{ calls: 0, per: 'minute' }] },
      "Gateway 'support': rateLimits[0].calls (0) must be an integer from 1 to 1000000000",
    ],
    [
      'a store URL with a password',
      { store: { url: 'redis://:hunter2@store:6379' } },
      "Gateway 'support': store.url must not carry a user or password: give the password as a secret in store.password",
    ],
    [
      'a store timeout of a minute',
      { store: { url: 'redis://store:6379', timeoutMs: 60000 } },
      "Gateway 'support': store.timeoutMs (60000) must be an integer from 1 to 10000 (milliseconds)",
    ],
  ];
  for (const [what, props, message] of refusals) {
    it(`refuses ${what}, naming the prop, the value and what is allowed`, () => {
      assert.equal(thrown(() => stackWith(props)).message, message);
    });
  }

  it('refuses at synthesis a limit on a tool the gateway does not serve, and two limits of one window', () => {
    assert.match(
      errorsOf(stackWith({ rateLimits: [{ calls: 5, per: 'minute', tool: 'delete_all' }] }).stack),
      /Gateway 'support': rateLimits\[0\]\.tool 'delete_all' is not a service of this gateway \(its services: create_ticket, lookup\); add the service or fix the name/,
    );
    assert.match(
      errorsOf(
        stackWith({ rateLimits: [{ calls: 5, per: 'minute', tool: 'create_ticket' }] }, [{ calls: 9, per: 'minute' }])
          .stack,
      ),
      /Gateway 'support': service 'create_ticket' rateLimits\[0\] and rateLimits\[0\] both limit create_ticket per minute; keep one, with the lower count/,
    );
  });

  it('refuses a store password secret the gateway is not given', () => {
    const { stack } = stackWith({ store: { url: 'redis://store:6379', password: Secret.env('STORE_PASSWORD') } });
    assert.match(
      errorsOf(stack),
      /store\.password is Secret\.env\('STORE_PASSWORD'\) but the gateway has no value for it/,
    );
  });

  it("deploys a LimitStore on the stack's network, with its password in its config file and the gateway's secrets", () => {
    const stack = newStack();
    const password = new TerraformVariable(stack, 'store_password', { type: 'string', sensitive: true });
    const store = new LimitStore(stack, 'Limits', { password: password.stringValue });
    const service = new Service(stack, 'lookup', {
      endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
      input: {},
    });
    new Gateway(stack, 'support', { services: [service], auth, rateLimits: [{ calls: 60, per: 'minute' }], store });
    const json = synth(stack);
    const config = configOf(json, 'support');
    assert.deepEqual(config.gateway.store, {
      url: 'redis://limit-store:6379',
      password: { secret: 'MCP_LIMIT_STORE_PASSWORD' },
    });
    const storeContainer = resourcesOf(json, 'docker_container').find((c) => c.name.endsWith('limit-store'));
    assert.deepEqual(storeContainer.command, ['redis-server', '/etc/cdktf-mcp-gateway/store.conf']);
    assert.deepEqual(storeContainer.networks_advanced[0].aliases, ['limit-store']);
    const conf = storeContainer.upload[0].content as string;
    assert.match(conf, /appendonly yes/);
    assert.match(conf, /requirepass "\$\{var\.store_password\}"/);
    assert.equal(
      handoffSecret(json, 'support', '/run/secrets/MCP_LIMIT_STORE_PASSWORD')?.content,
      '${var.store_password}\n',
    );
    assert.ok(gatewayContainer(json, 'support'));
  });

  it('gives replicas the LimitStore on the host loopback, and refuses one that is not published', () => {
    const build = (hostPort?: number) => {
      const stack = newStack();
      const key = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
      const store = new LimitStore(stack, 'Limits', hostPort === undefined ? {} : { hostPort });
      const service = new Service(stack, 'lookup', {
        endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
        input: {},
      });
      return () =>
        new Gateway(stack, 'support', { services: [service], auth, replicas: 2, sessionKey: key.stringValue, store });
    };
    assert.match(thrown(build()).message, /give the LimitStore a hostPort/);
    const gateway = build(16379)();
    assert.deepEqual(gateway.config().gateway.store, { url: 'redis://127.0.0.1:16379' });
  });
});

describe('rate limits and the store in the manifest', () => {
  const manifest = (gatewayExtra: string, serviceExtra = '') => `services:
  create_ticket:
    endpoint: { url: "http://desk:8080/tickets", method: POST }
    input: { subject: { type: string, required: true } }
${serviceExtra}gateways:
  support:
    services: [create_ticket]
    auth: { tokens: [{ id: support-bot, sha256: "${hashOf('manifest-token')}" }] }
${gatewayExtra}`;

  function load(text: string) {
    const dir = tempDir('limits-manifest-');
    const file = path.join(dir, 'desk.yaml');
    fs.writeFileSync(file, text);
    const stack = newStack();
    new Manifest(stack, 'm', { path: file });
    return stack;
  }

  it('reads rate_limits of gateways and services, and a store whose password is a sensitive variable', () => {
    const stack = load(
      manifest(
        '    rate_limits: [{ calls: 60, per: minute }, { calls: 10000, per: day }]\n' +
          '    store: { url: "redis://store:6379", password: { variable: STORE_PASSWORD }, on_unavailable: refuse, timeout_ms: 20 }\n',
        '    rate_limits: [{ calls: 10, per: minute }]\n',
      ),
    );
    const json = synth(stack);
    const config = configOf(json, 'support');
    assert.deepEqual(config.gateway.rate_limits, [
      { calls: 60, per: 'minute' },
      { calls: 10000, per: 'day' },
      { calls: 10, per: 'minute', tool: 'create_ticket' },
    ]);
    assert.deepEqual(config.gateway.store, {
      url: 'redis://store:6379',
      password: { secret: 'STORE_PASSWORD' },
      on_unavailable: 'refuse',
      timeout_ms: 20,
    });
    assert.equal(json.variable.STORE_PASSWORD.sensitive, true);
    assert.equal(handoffSecret(json, 'support', '/run/secrets/STORE_PASSWORD')?.content, '${var.STORE_PASSWORD}\n');
  });

  it('refuses a window that is not one, at its line', () => {
    const err = thrown(() => load(manifest('    rate_limits: [{ calls: 60, per: week }]\n')));
    assert.match(
      err.message,
      /desk\.yaml:\d+:\d+: gateways\.support\.rate_limits\[0\]\.per: expected one of second, minute, hour, day/,
    );
  });
});

describe('the audit in the store (auditLog: store)', () => {
  function storeStack(gatewayProps: Partial<GatewayProps> = {}, storeProps: Partial<LimitStoreProps> = {}) {
    const stack = newStack();
    const password = new TerraformVariable(stack, 'store_password', { type: 'string', sensitive: true });
    const store = new LimitStore(stack, 'Limits', { password: password.stringValue, ...storeProps });
    const service = new Service(stack, 'lookup', {
      endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
      input: {},
    });
    const gateway = new Gateway(stack, 'support', { services: [service], auth, store, ...gatewayProps });
    return { stack, gateway };
  }

  it('a gateway with a store writes its audit there by default: no audit volume', () => {
    const { stack, gateway } = storeStack();
    const json = synth(stack);
    assert.equal(configOf(json, 'support').gateway.audit_log, 'store');
    assert.equal(gateway.auditVolume, undefined);
    assert.deepEqual(
      resourcesOf(json, 'docker_volume').map((v) => v.name),
      ['test-limit-store-data', 'test-support-state'],
    );
  });

  it('auditLog: true keeps the file beside a store', () => {
    const { stack } = storeStack({ auditLog: true });
    const json = synth(stack);
    assert.equal(configOf(json, 'support').gateway.audit_log, true);
    assert.ok(resourcesOf(json, 'docker_volume').some((v) => v.name === 'test-support-audit'));
  });

  it("refuses auditLog: 'store' without a store, naming the fix", () => {
    const stack = newStack();
    const service = new Service(stack, 'lookup', {
      endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
      input: {},
    });
    assert.equal(
      thrown(() => new Gateway(stack, 'support', { services: [service], auth, auditLog: 'store' })).message,
      "Gateway 'support': auditLog: 'store' writes the audit to the gateway's store, and it has none: set store, or auditLog: true",
    );
  });

  it("replicas on several nodes: the store on the node's address, each task naming its node, no volume", () => {
    const stack = newStack();
    const key = new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true });
    const store = new LimitStore(stack, 'Limits', { hostPort: 16379, hostIp: '10.0.0.5' });
    const service = new Service(stack, 'lookup', {
      endpoint: { url: 'http://desk:8080/lookup', method: 'GET' },
      input: {},
    });
    const gateway = new Gateway(stack, 'support', {
      services: [service],
      auth,
      replicas: 3,
      sessionKey: key.stringValue,
      store,
    });
    const json = synth(stack);
    assert.deepEqual(gateway.config().gateway.store, { url: 'redis://10.0.0.5:16379' });
    const spec = resourcesOf(json, 'docker_service')[0].task_spec.container_spec;
    assert.deepEqual(spec.env, { CDKTF_MCP_GATEWAY_NODE: '{{.Node.Hostname}}' });
    assert.equal(spec.mounts, undefined);
    const storeContainer = resourcesOf(json, 'docker_container').find((c) => c.name.endsWith('limit-store'));
    assert.deepEqual(storeContainer.ports, [{ internal: 6379, external: 16379, ip: '10.0.0.5' }]);
    assert.ok(
      warningsOf(store).some((w) =>
        /hostIp 10\.0\.0\.5 publishes the store beyond this host without a password/.test(w),
      ),
    );
  });

  it('refuses a LimitStore hostIp without hostPort, or one that is no address', () => {
    assert.equal(
      thrown(() => new LimitStore(newStack(), 'Limits', { hostIp: '10.0.0.5' })).message,
      "LimitStore 'limit-store': hostIp needs hostPort: the port to publish",
    );
    assert.match(
      thrown(() => new LimitStore(newStack(), 'Limits', { hostPort: 16379, hostIp: 'node-1' })).message,
      /^LimitStore 'limit-store': hostIp 'node-1' must be an IP address of the Docker host/,
    );
  });

  it("an AuditDashboard reads such a gateway from its store on the stack's network, the password as a file", () => {
    const { stack, gateway } = storeStack();
    new AuditDashboard(stack, 'audit', { gateways: [gateway], auth: 'none' });
    const json = synth(stack);
    const dashboard = resourcesOf(json, 'docker_container').find((c) => c.name.endsWith('audit'));
    const config = JSON.parse(dashboard.upload[0].content);
    assert.deepEqual(config.audit_dirs, []);
    assert.deepEqual(config.audit_stores, [
      {
        gateway: 'support',
        url: 'redis://limit-store:6379',
        password_file: '/etc/cdktf-mcp-gateway/audit-store-0',
      },
    ]);
    assert.deepEqual(dashboard.upload[1], {
      file: '/etc/cdktf-mcp-gateway/audit-store-0',
      content: '${var.store_password}',
    });
    assert.deepEqual(dashboard.volumes, []);
  });
});
