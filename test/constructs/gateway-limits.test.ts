import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Gateway, GatewayProps, Manifest, Service } from '../../constructs';
import { parseGatewayConfig } from '../../src/config';
import { configOf, hashOf, newStack, synth, thrown } from './synth';
import { tempDir } from '../helpers/temp-dir';

const auth = { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] };

/** Every limit prop with a value other than its default, and the config setting it becomes. */
const LIMITS: readonly [keyof GatewayProps, string, number][] = [
  ['maxBodyBytes', 'max_body_bytes', 65_536],
  ['maxResponseBytes', 'max_response_bytes', 1_000_000],
  ['maxConcurrentCalls', 'max_concurrent_calls', 40],
  ['maxConcurrentCallsPerPrincipal', 'max_concurrent_calls_per_principal', 4],
  ['maxRevokedSessionsPerPrincipal', 'max_revoked_sessions_per_principal', 50],
  ['headerTimeoutMs', 'header_timeout_ms', 2_000],
  ['requestTimeoutMs', 'request_timeout_ms', 5_000],
  ['writeTimeoutMs', 'write_timeout_ms', 7_000],
  ['maxConnectionsPerAddress', 'max_connections_per_address', 8],
  ['sessionTtlMs', 'session_ttl_ms', 600_000],
  ['maxStreamsPerPrincipal', 'max_streams_per_principal', 2],
  ['toolsListTtlMs', 'tools_list_ttl_ms', 30_000],
];

function gatewayWith(props: Partial<GatewayProps>): { stack: ReturnType<typeof newStack>; gateway: Gateway } {
  const stack = newStack();
  const service = new Service(stack, 'get_customer', {
    endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
    input: { customer_id: { type: 'string', required: true } },
  });
  return { stack, gateway: new Gateway(stack, 'support', { services: [service], auth, ...props }) };
}

describe('Gateway limits (the twins of the gateway config limits)', () => {
  it('writes each limit prop into the config as its gateway setting, and the config loads', () => {
    const props = Object.fromEntries(LIMITS.map(([prop, , value]) => [prop, value])) as Partial<GatewayProps>;
    const config = configOf(synth(gatewayWith(props).stack), 'support');
    const settings = config.gateway as unknown as Record<string, unknown>;
    for (const [prop, setting, value] of LIMITS) assert.equal(settings[setting], value, `${prop} → ${setting}`);
    assert.doesNotThrow(() => parseGatewayConfig(config));
  });

  it('leaves a limit out of the config when its prop is not set (the gateway default applies)', () => {
    const settings = configOf(synth(gatewayWith({}).stack), 'support').gateway as unknown as Record<string, unknown>;
    for (const [, setting] of LIMITS) assert.equal(settings[setting], undefined, setting);
  });

  it('refuses a value the gateway would refuse, naming the prop, the value and the fix', () => {
    const message = (props: Partial<GatewayProps>) => thrown(() => gatewayWith(props)).message;
    assert.equal(
      message({ maxConcurrentCallsPerPrincipal: 0 }),
      "Gateway 'support': maxConcurrentCallsPerPrincipal (0) must be a positive integer (calls); omit it for the default (a quarter of maxConcurrentCalls)",
    );
    assert.equal(
      message({ writeTimeoutMs: 1.5 }),
      "Gateway 'support': writeTimeoutMs (1.5) must be a positive integer (milliseconds); omit it for the default (30000)",
    );
    assert.equal(
      message({ maxConnectionsPerAddress: Number.NaN }),
      "Gateway 'support': maxConnectionsPerAddress (NaN) must be a positive integer (connections); omit it for the default (256)",
    );
    assert.equal(
      message({ toolsListTtlMs: -1 }),
      "Gateway 'support': toolsListTtlMs (-1) must be a non-negative integer (milliseconds); omit it for the default (0)",
    );
    assert.equal(
      message({ maxBodyBytes: '1000' as unknown as number }),
      "Gateway 'support': maxBodyBytes ('1000') must be a positive integer (bytes); omit it for the default (1048576)",
    );
    assert.equal(
      message({ headerTimeoutMs: 40_000 }),
      "Gateway 'support': headerTimeoutMs (40000) is longer than requestTimeoutMs (30000, the default); the headers are part of the request, so set headerTimeoutMs to at most 30000",
    );
    assert.doesNotThrow(() => gatewayWith({ toolsListTtlMs: 0, headerTimeoutMs: 40_000, requestTimeoutMs: 40_000 }));
  });

  it('reads the same limits from a manifest (snake_case keys)', () => {
    const dir = tempDir('limits-manifest-');
    try {
      const file = path.join(dir, 'limits.yaml');
      fs.writeFileSync(
        file,
        `services:
  get_customer:
    endpoint: { url: "http://crm:8080/customers/{customer_id}", method: GET }
    input:
      customer_id: { type: string, required: true }
gateways:
  support:
    services: [get_customer]
    auth: { tokens: [{ id: support-bot, sha256: "${hashOf('test-token-1')}" }] }
${LIMITS.map(([, setting, value]) => `    ${setting}: ${value}`).join('\n')}
`,
      );
      const stack = newStack();
      new Manifest(stack, 'm', { path: file });
      const settings = configOf(synth(stack), 'support').gateway as unknown as Record<string, unknown>;
      for (const [, setting, value] of LIMITS) assert.equal(settings[setting], value, setting);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
