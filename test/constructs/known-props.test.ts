/**
 * A prop a construct does not read is refused by name, as a JavaScript app (or a TypeScript one run without type
 * checks) would otherwise have it dropped and the default used.
 */
import * as assert from 'node:assert/strict';
import { AuditDashboard, Gateway, LimitStore, OpenApiServices, Service } from '../../constructs';
import { newStack } from './synth';

const auth = { tokens: [{ id: 'ops', sha256: 'a'.repeat(64) }] };
const endpoint = { url: 'http://crm:8080/customers', method: 'GET' } as const;

/** Props as a JavaScript caller may pass them: with a key the props interface lacks. */
const loose = <T>(props: T, extra: Record<string, unknown>): T => ({ ...props, ...extra }) as T;

function thrown(build: () => unknown): string {
  try {
    build();
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('no error thrown');
}

describe('props a construct does not read', () => {
  it('refuses a misspelt Gateway prop, naming the one meant and every prop', () => {
    const stack = newStack();
    const lookup = new Service(stack, 'lookup', { endpoint });
    const message = thrown(
      () => new Gateway(stack, 'agents', loose({ services: [lookup], auth }, { validateInputs: false })),
    );
    assert.match(message, /^Gateway 'agents': unknown prop 'validateInputs' \(did you mean 'validateInput'\?\); /);
    assert.match(message, /the props are name, services, validateInput, validateOutput, .*, publishMode$/);
  });

  it('suggests across case and a dropped letter, and nothing for a name near none', () => {
    const stack = newStack();
    assert.match(
      thrown(() => new Service(stack, 'a', loose({ endpoint }, { timeoutms: 5000 }))),
      /^Service 'a': unknown prop 'timeoutms' \(did you mean 'timeoutMs'\?\); the props are name, /,
    );
    assert.match(
      thrown(() => new Service(stack, 'b', loose({ endpoint }, { descripton: 'x' }))),
      /unknown prop 'descripton' \(did you mean 'description'\?\)/,
    );
    assert.match(
      thrown(() => new Service(stack, 'c', loose({ endpoint }, { zz: 1 }))),
      /^Service 'c': unknown prop 'zz'; the props are /,
    );
  });

  it('refuses one in each construct that takes props', () => {
    const stack = newStack();
    const lookup = new Service(stack, 'lookup', { endpoint });
    const agents = new Gateway(stack, 'agents', { services: [lookup], auth });
    assert.match(
      thrown(() => new AuditDashboard(stack, 'audit', loose({ gateways: [agents], auth }, { retentionDay: 3 }))),
      /^AuditDashboard 'audit': unknown prop 'retentionDay' \(did you mean 'retentionDays'\?\)/,
    );
    assert.match(
      thrown(() => new LimitStore(stack, 'limits', loose({}, { hostport: 6379 }))),
      /^LimitStore 'limit-store': unknown prop 'hostport' \(did you mean 'hostPort'\?\)/,
    );
    assert.match(
      thrown(() => new OpenApiServices(stack, 'crm', loose({ document: 'crm.yaml' }, { baseURL: 'http://crm' }))),
      /^OpenApiServices 'crm': unknown prop 'baseURL' \(did you mean 'baseUrl'\?\)/,
    );
  });

  it('refuses one inside endpoint, container and store, naming its path', () => {
    const stack = newStack();
    assert.match(
      thrown(() => new Service(stack, 'a', { endpoint: loose(endpoint, { methd: 'POST' }) })),
      /^Service 'a': unknown prop 'endpoint\.methd' \(did you mean 'endpoint\.method'\?\); the props of endpoint are url, method, headers, tls, queryParams, bodyParam$/,
    );
    assert.match(
      thrown(
        () =>
          new Service(stack, 'b', {
            endpoint: { url: 'http://crm:8080/x', method: 'GET' },
            container: loose({ image: 'crm:1', port: 8080 }, { enviroment: {} }),
          }),
      ),
      /^Service 'b': unknown prop 'container\.enviroment'; the props of container are image, build, port, env, healthcheck$/,
    );
    const lookup = new Service(stack, 'lookup', { endpoint });
    assert.match(
      thrown(
        () =>
          new Gateway(stack, 'agents', {
            services: [lookup],
            auth,
            store: loose({ url: 'redis://store:6379' }, { timeout: 50 }),
          }),
      ),
      /^Gateway 'agents': unknown prop 'store\.timeout' \(did you mean 'store\.timeoutMs'\?\)/,
    );
  });

  it('takes every prop left undefined, as an options object built in code has them', () => {
    const stack = newStack();
    const lookup = new Service(stack, 'lookup', { endpoint, description: undefined, timeoutMs: undefined });
    new Gateway(stack, 'agents', { services: [lookup], auth, port: undefined, store: undefined });
  });
});
