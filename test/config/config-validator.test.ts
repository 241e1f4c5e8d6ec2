/**
 * The build writes ajv's standalone code for the config schema into dist (scripts/build-config-validator.js) and the
 * compiled loader runs that code instead of compiling the schema at start-up. These tests hold the generated module
 * current (equal to what the schema in src generates now) and its verdicts and errors equal to the schema compiled
 * by ajv at run time, on every field of a config that uses every part of the schema, each replaced by values of
 * every JSON type, removed, or joined by an unknown field.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ValidateFunction } from 'ajv';
import {
  compileConfigValidator,
  configValidatorSource,
  GENERATED_CONFIG_VALIDATOR,
} from '../../src/config/config-validator';

const GENERATED = path.join(__dirname, '..', '..', 'dist', 'src', 'config', GENERATED_CONFIG_VALIDATOR);

const HASH = 'a'.repeat(64);

/** A valid config that takes every branch of the schema: objects where `if` allows one, every optional field. */
const FULL = {
  version: 1,
  gateway: {
    name: 'agents',
    host: '0.0.0.0',
    port: 8080,
    validate_input: true,
    validate_output: false,
    validation_errors: 'auto',
    auth: {
      tokens: [{ id: 'bot', sha256: HASH, scopes: ['crm:read'] }],
      oauth: {
        issuer: 'https://issuer.example.com',
        audience: 'https://gw.example.com/mcp',
        jwks_uri: 'https://issuer.example.com/jwks',
        scopes: ['crm:read'],
        principal_claim: 'sub',
        algorithms: ['RS256'],
        allow_plain_jwt: false,
      },
    },
    resource_url: 'https://gw.example.com/mcp',
    audit_log: { path: '/var/log/audit.jsonl' },
    allowed_hosts: ['gw.example.com'],
    allowed_origins: ['https://app.example.com'],
    max_body_bytes: 1024,
    max_response_bytes: 1024,
    max_concurrent_calls: 8,
    max_concurrent_calls_per_principal: 2,
    max_revoked_sessions_per_principal: 2,
    header_timeout_ms: 1000,
    request_timeout_ms: 2000,
    write_timeout_ms: 2000,
    max_connections_per_address: 4,
    session_ttl_ms: 60_000,
    session_key_file: '/run/key',
    session_key_store: '/run/store',
    max_streams_per_principal: 2,
    tools_list_page_size: 100,
    tools_list_ttl_ms: 0,
    metrics: { port: 9090 },
  },
  tools: [
    {
      name: 'get_customer',
      description: 'Reads a customer',
      input_schema: { type: 'object', properties: { id: { type: 'string' } } },
      aliases: { customer: 'id' },
      output_schema: { type: 'object' },
      response: { fields: 'declared', redact: ['email'], redact_patterns: { card: '[0-9]{16}' }, max_bytes: 4096 },
      forward_as: { id: 'customer_id' },
      required_scopes: ['crm:read'],
      backend: {
        url: 'https://crm.example.com/customers/{id}',
        method: 'GET',
        timeout_ms: 5000,
        headers: { 'x-api-key': { secret: 'CRM_KEY' }, 'x-team': 'agents' },
        tls: { ca_file: '/etc/ca.pem' },
        forward_identity: true,
        query_params: ['id'],
        body_param: 'body',
      },
    },
  ],
};

/** The other side of each `if`: `auth: "none"`, `audit_log` and `metrics` as booleans. */
const PLAIN = { ...FULL, gateway: { ...FULL.gateway, auth: 'none', audit_log: true, metrics: false } };

/** A value of every JSON type, and the edges of the schema's numbers and strings. */
const REPLACEMENTS: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  70_000,
  1e12,
  '',
  'x',
  'none',
  [],
  [1],
  ['x', 'x'],
  {},
  { x: 1 },
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every document that differs from `base` in one place. */
function* mutations(base: Json): Generator<Json> {
  function* at(value: Json, rebuild: (v: Json | undefined) => Json): Generator<Json> {
    for (const r of REPLACEMENTS) yield rebuild(r as Json);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        yield* at(value[i], (v) =>
          rebuild(v === undefined ? value.filter((_, j) => j !== i) : value.map((x, j) => (j === i ? v : x))),
        );
      }
      yield rebuild([...value, value[0] ?? 'x']);
    } else if (value !== null && typeof value === 'object') {
      yield rebuild({ ...value, unknown_field: 1 });
      for (const key of Object.keys(value)) {
        yield* at(value[key], (v) => {
          const copy = { ...value };
          if (v === undefined) delete copy[key];
          else copy[key] = v;
          return rebuild(copy);
        });
        yield rebuild(Object.fromEntries(Object.entries(value).filter(([k]) => k !== key)));
      }
    }
  }
  yield* at(base, (v) => v as Json);
}

function verdict(validate: ValidateFunction, doc: unknown): string {
  const valid = validate(doc);
  return JSON.stringify({ valid, errors: validate.errors ?? null });
}

describe('the generated config validator', () => {
  let generated: ValidateFunction;
  before(() => {
    generated = require(GENERATED) as ValidateFunction;
  });

  it('is the code the config schema generates now (run npm run build after changing the schema)', () => {
    assert.equal(readFileSync(GENERATED, 'utf8'), configValidatorSource());
  });

  it('accepts the valid configs and gives the verdict and first error of ajv compiling the schema, for every one-place change', () => {
    const compiled = compileConfigValidator();
    let refused = 0;
    let total = 0;
    for (const base of [FULL, PLAIN] as Json[]) {
      assert.equal(generated(base), true, verdict(generated, base));
      for (const doc of mutations(base)) {
        total++;
        const expected = verdict(compiled, doc);
        assert.equal(verdict(generated, doc), expected);
        if (!compiled(doc)) refused++;
      }
    }
    // the changes reach the schema's checks: most of them are refused
    assert.ok(total > 1000 && refused > total / 2, `${refused} of ${total} refused`);
  });
});
