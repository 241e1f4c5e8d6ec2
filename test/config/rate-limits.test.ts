import assert from 'node:assert/strict';
import { parseGatewayConfig } from '../../src/config';
import { tool } from '../helpers/config';

const HASH = 'a'.repeat(64);

function doc(gateway: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 1,
    gateway: { name: 'agents', auth: { tokens: [{ id: 'bot', sha256: HASH }] }, ...gateway },
    tools: [tool('create_ticket', 'http://desk:8080/tickets'), tool('lookup', 'http://desk:8080/lookup')],
  };
}

function refusal(gateway: Record<string, unknown>): string {
  try {
    parseGatewayConfig(doc(gateway));
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('the config was accepted');
}

describe('gateway.rate_limits and gateway.store in the config', () => {
  it('accepts limits of every window, per tool and for all tools, and a store with every field', () => {
    const config = doc({
      rate_limits: [
        { calls: 60, per: 'minute' },
        { calls: 10, per: 'minute', tool: 'create_ticket' },
        { calls: 5, per: 'second' },
        { calls: 1000, per: 'hour' },
        { calls: 10000, per: 'day' },
      ],
      store: {
        url: 'rediss://store.internal:6380/2',
        password: { secret: 'STORE_PASSWORD' },
        on_unavailable: 'refuse',
        timeout_ms: 20,
      },
    });
    assert.equal(parseGatewayConfig(config), config);
  });

  const refused: [string, Record<string, unknown>, string][] = [
    [
      'a window that is not one',
      { rate_limits: [{ calls: 1, per: 'week' }] },
      'gateway.rate_limits[0].per: must be one of second, minute, hour, day',
    ],
    [
      'zero calls',
      { rate_limits: [{ calls: 0, per: 'minute' }] },
      'gateway.rate_limits[0].calls: must be an integer 1-1000000000 (calls)',
    ],
    [
      'a fraction of a call',
      { rate_limits: [{ calls: 1.5, per: 'minute' }] },
      'gateway.rate_limits[0].calls: must be an integer 1-1000000000 (calls)',
    ],
    ['a limit without a window', { rate_limits: [{ calls: 5 }] }, 'gateway.rate_limits[0].per: is required'],
    [
      'an unknown field',
      { rate_limits: [{ calls: 5, per: 'minute', principal: 'bot' }] },
      'gateway.rate_limits[0].principal: unknown field',
    ],
    [
      'a tool the gateway does not serve',
      { rate_limits: [{ calls: 5, per: 'minute', tool: 'delete_everything' }] },
      'gateway.rate_limits[0].tool: "delete_everything" is not a tool of this gateway (its tools: create_ticket, lookup)',
    ],
    [
      'two limits of one window for the same tools',
      {
        rate_limits: [
          { calls: 5, per: 'minute', tool: 'lookup' },
          { calls: 9, per: 'minute', tool: 'lookup' },
        ],
      },
      'gateway.rate_limits[1]: a second limit per minute for lookup (also gateway.rate_limits[0]): keep one, with the lower count',
    ],
    [
      'a store URL of another scheme',
      { store: { url: 'http://store:6379' } },
      'gateway.store.url: "http://store:6379": must be a redis:// or rediss:// URL',
    ],
    [
      'a password in the store URL (never quoted back)',
      { store: { url: 'redis://:hunter2@store:6379' } },
      'gateway.store.url: must not carry a user or password: give the password as a secret in store.password',
    ],
    [
      'a store URL path that is not a database',
      { store: { url: 'redis://store:6379/cache' } },
      'gateway.store.url: "redis://store:6379/cache": the path may only name a database number (/0 to /99)',
    ],
    [
      'a store timeout of zero',
      { store: { url: 'redis://store:6379', timeout_ms: 0 } },
      'gateway.store.timeout_ms: must be an integer 1-10000 (milliseconds)',
    ],
    [
      'an outage policy that is not one',
      { store: { url: 'redis://store:6379', on_unavailable: 'queue' } },
      'gateway.store.on_unavailable: must be "allow" or "refuse"',
    ],
    [
      'a password given as text',
      { store: { url: 'redis://store:6379', password: 'hunter2' } },
      'gateway.store.password: must be { secret: NAME }',
    ],
  ];
  for (const [what, gateway, message] of refused) {
    it(`refuses ${what}`, () => {
      const got = refusal(gateway);
      assert.equal(got, message);
      assert.doesNotMatch(got, /hunter2/);
    });
  }
});
