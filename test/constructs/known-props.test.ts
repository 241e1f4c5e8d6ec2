/**
 * A prop a construct does not read: a misspelt one is refused by name, as a JavaScript app (or a TypeScript one run
 * without type checks) would otherwise have it dropped and the default used; one near no known name (a wrapper
 * construct's own) is a warning.
 */
import * as assert from 'node:assert/strict';
import { AuditDashboard, Gateway, GatewayProps, LimitStore, OpenApiServices, Service } from '../../constructs';
import { Construct } from 'constructs';
import { newStack, thrown, warningsOf } from './synth';

const auth = { tokens: [{ id: 'ops', sha256: 'a'.repeat(64) }] };
const endpoint = { url: 'http://crm:8080/customers', method: 'GET' } as const;

/** Props as a JavaScript caller may pass them: with a key the props interface lacks. */
const loose = <T>(props: T, extra: Record<string, unknown>): T => ({ ...props, ...extra }) as T;
const message = (build: () => unknown) => thrown(build).message;

describe('props a construct does not read', () => {
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
    const lookup = new Service(stack, 'lookup', {
      endpoint,
      container: loose({ image: 'crm:1', port: 8080 }, { enviroment: {} }),
    });
    const { gateway } = new TeamGateway(stack, 'crm', { services: [lookup], auth, team: 'crm-team' });
    const unknown = warningsOf(gateway).filter((w) => w.includes('unknown prop'));
    assert.equal(unknown.length, 1, unknown.join('\n'));
    assert.match(
      unknown[0],
      /^Gateway 'gw': unknown prop 'team' is ignored; the props are name, services, .*, publishMode$/,
    );
    assert.match(
      warningsOf(lookup).join('\n'),
      /^Service 'lookup': unknown prop 'container\.enviroment' is ignored; the props of container are image, build, port, env, healthcheck$/m,
    );
  });

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
