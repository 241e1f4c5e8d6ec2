/**
 * A prop a construct does not read: a misspelt one is refused by name, as a JavaScript app (or a TypeScript one run
 * without type checks) would otherwise have it dropped and the default used; one near no known name (a wrapper
 * construct's own) is a warning. Inside the props (`endpoint`, `auth.tokens[0]`), every unknown key is refused.
 */
import * as assert from 'node:assert/strict';
import { AuditDashboard, Gateway, GatewayProps, LimitStore, OpenApiServices, Service } from '../../constructs';
import { closest } from '../../constructs/known-props';
import { TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { newStack, thrown, warningsOf } from './synth';

const auth = { tokens: [{ id: 'ops', sha256: 'a'.repeat(64) }] };
const endpoint = { url: 'http://crm:8080/customers', method: 'GET' } as const;

/** Props as a JavaScript caller may pass them: with a key the props interface lacks. */
const loose = <T>(props: T, extra: Record<string, unknown>): T => ({ ...props, ...extra }) as T;
const message = (build: () => unknown) => thrown(build).message;

/** A gateway 'agents' with one service and `auth`, and `props` over them. */
function gatewayWith(stack: ReturnType<typeof newStack>, props: Partial<GatewayProps>): Gateway {
  const lookup = new Service(stack, 'lookup', { endpoint });
  return new Gateway(stack, 'agents', { services: [lookup], auth, ...props });
}

describe('props a construct does not read', () => {
  it('suggests the known name past a swap of two adjacent letters, as past one letter changed', () => {
    assert.equal(closest('auht', ['auth', 'services']), 'auth');
    assert.equal(closest('sevrices', ['auth', 'services']), 'services');
    assert.equal(closest('aut', ['auth', 'services']), 'auth');
    // two swaps in a short name are too far to guess
    assert.equal(closest('uaht', ['auth', 'services']), undefined);
  });

  it('names no known name for a key far longer than any', () => {
    assert.equal(closest('k'.repeat(1_000_000), ['auth', 'services', 'gateways']), undefined);
  });

  it('refuses a misspelt Gateway prop, naming the one meant and every prop', () => {
    const stack = newStack();
    const lookup = new Service(stack, 'lookup', { endpoint });
    const text = message(
      () => new Gateway(stack, 'agents', loose({ services: [lookup], auth }, { validateInputs: false })),
    );
    assert.match(text, /^Gateway 'agents': unknown prop 'validateInputs' \(did you mean 'validateInput'\?\); /);
    assert.match(text, /the props are name, services, validateInput, validateOutput, .*, publishMode$/);
  });

  it('suggests across case and a dropped letter', () => {
    const stack = newStack();
    assert.match(
      message(() => new Service(stack, 'a', loose({ endpoint }, { timeoutms: 5000 }))),
      /^Service 'a': unknown prop 'timeoutms' \(did you mean 'timeoutMs'\?\); the props are name, /,
    );
    assert.match(
      message(() => new Service(stack, 'b', loose({ endpoint }, { descripton: 'x' }))),
      /unknown prop 'descripton' \(did you mean 'description'\?\)/,
    );
  });

  it('refuses one in each construct that takes props', () => {
    const stack = newStack();
    const lookup = new Service(stack, 'lookup', { endpoint });
    const agents = new Gateway(stack, 'agents', { services: [lookup], auth });
    assert.match(
      message(() => new AuditDashboard(stack, 'audit', loose({ gateways: [agents], auth }, { retentionDay: 3 }))),
      /^AuditDashboard 'audit': unknown prop 'retentionDay' \(did you mean 'retentionDays'\?\)/,
    );
    assert.match(
      message(() => new LimitStore(stack, 'limits', loose({}, { hostport: 6379 }))),
      /^LimitStore 'limit-store': unknown prop 'hostport' \(did you mean 'hostPort'\?\)/,
    );
    assert.match(
      message(() => new OpenApiServices(stack, 'crm', loose({ document: 'crm.yaml' }, { baseURL: 'http://crm' }))),
      /^OpenApiServices 'crm': unknown prop 'baseURL' \(did you mean 'baseUrl'\?\)/,
    );
  });

  it('refuses one inside endpoint and store, naming its path', () => {
    const stack = newStack();
    assert.match(
      message(() => new Service(stack, 'a', { endpoint: loose(endpoint, { methd: 'POST' }) })),
      /^Service 'a': unknown prop 'endpoint\.methd' \(did you mean 'endpoint\.method'\?\); the props of endpoint are url, method, headers, tls, queryParams, bodyParam$/,
    );
    const lookup = new Service(stack, 'lookup', { endpoint });
    const store = loose({ url: 'redis://store:6379' }, { timeout: 50 });
    assert.match(
      message(() => new Gateway(stack, 'agents', { services: [lookup], auth, store })),
      /^Gateway 'agents': unknown prop 'store\.timeout' \(did you mean 'store\.timeoutMs'\?\)/,
    );
  });

  it("warns of one near no known name, as a wrapper construct's own prop passed on with the rest", () => {
    interface TeamGatewayProps extends GatewayProps {
      readonly team: string;
    }
    class TeamGateway extends Construct {
      readonly gateway: Gateway;
      constructor(scope: Construct, id: string, props: TeamGatewayProps) {
        super(scope, id);
        this.gateway = new Gateway(this, 'gw', props);
      }
    }
    const stack = newStack();
    const lookup = new Service(stack, 'lookup', { endpoint });
    const { gateway } = new TeamGateway(stack, 'crm', { services: [lookup], auth, team: 'crm-team' });
    const unknown = warningsOf(gateway).filter((w) => w.includes('unknown prop'));
    assert.equal(unknown.length, 1, unknown.join('\n'));
    assert.match(
      unknown[0],
      /^Gateway 'gw': unknown prop 'team' is ignored; the props are name, services, .*, publishMode$/,
    );
  });

  it('refuses any unknown key inside the props, near a known name or not', () => {
    const stack = newStack();
    assert.equal(
      message(
        () =>
          new Service(stack, 'a', { endpoint, container: loose({ image: 'crm:1', port: 8080 }, { enviroment: {} }) }),
      ),
      "Service 'a': unknown prop 'container.enviroment'; the props of container are image, build, port, env, healthcheck",
    );
  });

  /** Each object inside the props, a misspelt key in it, and the error's start. */
  const nested: [string, (stack: ReturnType<typeof newStack>) => unknown, RegExp][] = [
    [
      "a token's scopes, which would leave the token unrestricted",
      (stack) => gatewayWith(stack, { auth: { tokens: [loose(auth.tokens[0], { scope: ['read'] })] } }),
      /^Gateway 'agents': unknown prop 'auth\.tokens\[0\]\.scope' \(did you mean 'auth\.tokens\[0\]\.scopes'\?\); the props of auth\.tokens\[0\] are id, sha256, scopes$/,
    ],
    [
      'a token key near no known name',
      (stack) => gatewayWith(stack, { auth: { tokens: [loose(auth.tokens[0], { permissions: ['read'] })] } }),
      /^Gateway 'agents': unknown prop 'auth\.tokens\[0\]\.permissions'; the props of auth\.tokens\[0\] are id, sha256, scopes$/,
    ],
    [
      'auth',
      (stack) => gatewayWith(stack, { auth: loose(auth, { oath: { issuer: 'https://idp.example' } }) }),
      /^Gateway 'agents': unknown prop 'auth\.oath' \(did you mean 'auth\.oauth'\?\)/,
    ],
    [
      "OAuth's audience, which would accept tokens minted for another resource",
      (stack) => gatewayWith(stack, { auth: { oauth: loose({ issuer: 'https://idp.example' }, { audiance: 'crm' }) } }),
      /^Gateway 'agents': unknown prop 'auth\.oauth\.audiance' \(did you mean 'auth\.oauth\.audience'\?\)/,
    ],
    [
      'the registry',
      (stack) =>
        gatewayWith(stack, {
          replicas: 2,
          sessionKey: new TerraformVariable(stack, 'key', { type: 'string', sensitive: true }).stringValue,
          registry: loose({ address: 'registry.internal:5000' }, { insecur: true }),
        }),
      /^Gateway 'agents': unknown prop 'registry\.insecur' \(did you mean 'registry\.insecure'\?\)/,
    ],
    [
      'the placement',
      (stack) =>
        gatewayWith(stack, {
          replicas: 2,
          sessionKey: new TerraformVariable(stack, 'key', { type: 'string', sensitive: true }).stringValue,
          placement: loose({}, { constraint: ['node.labels.mcp == true'] }),
        }),
      /^Gateway 'agents': unknown prop 'placement\.constraint' \(did you mean 'placement\.constraints'\?\)/,
    ],
    [
      'kubernetes',
      (stack) => gatewayWith(stack, { kubernetes: loose({ image: 'gw:1' }, { namespce: 'mcp' }) }),
      /^Gateway 'agents': unknown prop 'kubernetes\.namespce' \(did you mean 'kubernetes\.namespace'\?\)/,
    ],
    [
      "kubernetes' service",
      (stack) =>
        gatewayWith(stack, {
          kubernetes: { image: 'gw:1', service: loose({ type: 'NodePort' }, { nodeport: 30001 }) },
        }),
      /^Gateway 'agents': unknown prop 'kubernetes\.service\.nodeport' \(did you mean 'kubernetes\.service\.nodePort'\?\)/,
    ],
    [
      "a container's build",
      (stack) =>
        new Service(stack, 'a', {
          endpoint,
          container: { port: 8080, build: loose({ context: '.' }, { dockerFile: 'x' }) },
        }),
      /^Service 'a': unknown prop 'container\.build\.dockerFile' \(did you mean 'container\.build\.dockerfile'\?\)/,
    ],
    [
      "an endpoint's tls",
      (stack) =>
        new Service(stack, 'a', {
          endpoint: { url: 'https://crm/customers', method: 'GET', tls: loose({}, { caFil: 'ca.pem' }) },
        }),
      /^Service 'a': unknown prop 'endpoint\.tls\.caFil' \(did you mean 'endpoint\.tls\.caFile'\?\); the props of endpoint\.tls are caFile, ca$/,
    ],
    [
      "a limit store's kubernetes",
      (stack) => new LimitStore(stack, 'limits', { kubernetes: loose({}, { request: { cpu: '1' } }) }),
      /^LimitStore 'limit-store': unknown prop 'kubernetes\.request' \(did you mean 'kubernetes\.requests'\?\)/,
    ],
    [
      "a limit store's storage",
      (stack) => new LimitStore(stack, 'limits', { kubernetes: { storage: loose({ size: '1Gi' }, { class: 'ssd' }) } }),
      /^LimitStore 'limit-store': unknown prop 'kubernetes\.storage\.class'; the props of kubernetes\.storage are size, storageClassName$/,
    ],
    [
      "a dashboard's flag",
      (stack) =>
        new AuditDashboard(stack, 'audit', {
          gateways: [gatewayWith(stack, {})],
          auth,
          flag: loose({}, { minRefusal: 3 }),
        }),
      /^AuditDashboard 'audit': unknown prop 'flag\.minRefusal' \(did you mean 'flag\.minRefusals'\?\)/,
    ],
    [
      "a dashboard's token",
      (stack) =>
        new AuditDashboard(stack, 'audit', {
          gateways: [gatewayWith(stack, {})],
          auth: { tokens: [loose(auth.tokens[0], { sha265: 'b'.repeat(64) })] },
        }),
      /^AuditDashboard 'audit': unknown prop 'auth\.tokens\[0\]\.sha265' \(did you mean 'auth\.tokens\[0\]\.sha256'\?\)/,
    ],
    [
      "metrics' own port, which serves /metrics without the gateway's tokens",
      (stack) => gatewayWith(stack, { metrics: loose({ port: 9464 }, { hostIp: '127.0.0.1' }) }),
      /^Gateway 'agents': unknown prop 'metrics\.hostIp'; the props of metrics are port$/,
    ],
    [
      'the audit log file',
      (stack) =>
        gatewayWith(stack, { auditLog: loose({ path: '/var/log/cdktf-mcp-gateway/audit.jsonl' }, { pth: 'a' }) }),
      /^Gateway 'agents': unknown prop 'auditLog\.pth' \(did you mean 'auditLog\.path'\?\); the props of auditLog are path$/,
    ],
  ];
  for (const [what, build, expected] of nested) {
    it(`refuses a misspelt key inside the props: ${what}`, () => {
      assert.match(
        message(() => build(newStack())),
        expected,
      );
    });
  }

  it('takes an unknown prop left undefined, and every known one left undefined', () => {
    const stack = newStack();
    const lookup = new Service(stack, 'lookup', { endpoint, description: undefined, timeoutMs: undefined });
    const gateway = new Gateway(
      stack,
      'agents',
      loose({ services: [lookup], auth, port: undefined }, { note: undefined }),
    );
    assert.deepEqual(
      warningsOf(gateway).filter((w) => w.includes('unknown prop')),
      [],
    );
  });
});
