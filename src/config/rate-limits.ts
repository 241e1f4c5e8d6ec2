/**
 * The rules of `gateway.rate_limits` and `gateway.store` (see docs/rate-limits.md): the windows a limit counts
 * over, the JSON Schema of both fields (part of `config-schema.ts`) and the checks a schema cannot express.
 */
import { SECRET_NAME_PATTERN } from './backend-rules';
import { hasUserInfo } from './url-template';

/** The windows a limit counts over, in milliseconds; each starts on the store's clock at a multiple of its length (UTC). */
export const RATE_LIMIT_WINDOWS = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

export type RateLimitWindow = keyof typeof RATE_LIMIT_WINDOWS;

/** The most calls one limit may allow in its window. */
export const MAX_RATE_LIMIT_CALLS = 1_000_000_000;

/** The longest `store.timeout_ms`: a call never waits on the store longer than this. */
export const MAX_STORE_TIMEOUT_MS = 10_000;

/** `store.on_unavailable`: what a call gets while the store cannot be reached. */
export const STORE_OUTAGE_POLICIES = ['allow', 'refuse'] as const;
export type StoreOutagePolicy = (typeof STORE_OUTAGE_POLICIES)[number];

/** One limit: `calls` calls of one principal per `per` window, for one tool or (without `tool`) all together. */
export interface RateLimitConfig {
  /** 1 to `MAX_RATE_LIMIT_CALLS`. */
  readonly calls: number;
  readonly per: RateLimitWindow;
  /** The tool the limit counts; each tool separately. @default - every tool of the gateway, counted together */
  readonly tool?: string;
}

/** The Redis (or Valkey) server that replicas share limits and ended sessions through. */
export interface StoreConfig {
  /** `redis://host:port[/db]` or `rediss://…` (TLS); no user or password in it. */
  readonly url: string;
  /** The secret holding the server's password (`AUTH`). @default - none */
  readonly password?: { readonly secret: string };
  /** What a call gets while the store cannot be reached within `timeout_ms`. @default 'allow' */
  readonly on_unavailable?: StoreOutagePolicy;
  /** The longest a call waits on the store, 1 to `MAX_STORE_TIMEOUT_MS`. @default 50 */
  readonly timeout_ms?: number;
}

/** `gateway.rate_limits` (the cross-field checks are {@link rateLimitsProblem}'s). */
export const RATE_LIMITS_SCHEMA = {
  type: 'array',
  'x-message': 'must be an array of { calls, per, tool? }',
  items: {
    type: 'object',
    required: ['calls', 'per'],
    additionalProperties: false,
    'x-message': 'must be an object { calls, per, tool? }',
    properties: {
      calls: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_RATE_LIMIT_CALLS,
        'x-message': `must be an integer 1-${MAX_RATE_LIMIT_CALLS} (calls)`,
      },
      per: {
        enum: Object.keys(RATE_LIMIT_WINDOWS),
        'x-message': `must be one of ${Object.keys(RATE_LIMIT_WINDOWS).join(', ')}`,
      },
      tool: { type: 'string', minLength: 1, 'x-message': 'must be a tool name' },
    },
  },
} as const;

/** `gateway.store`. */
export const STORE_CONFIG_SCHEMA = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  'x-message': 'must be an object { url, password?, on_unavailable?, timeout_ms? }',
  properties: {
    url: { type: 'string', minLength: 1, 'x-message': 'must be a redis:// or rediss:// URL' },
    password: {
      type: 'object',
      required: ['secret'],
      additionalProperties: false,
      'x-message': 'must be { secret: NAME }',
      properties: {
        secret: {
          type: 'string',
          pattern: SECRET_NAME_PATTERN,
          'x-message': `must be a secret name matching ${SECRET_NAME_PATTERN}`,
        },
      },
    },
    on_unavailable: { enum: [...STORE_OUTAGE_POLICIES], 'x-message': 'must be "allow" or "refuse"' },
    timeout_ms: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_STORE_TIMEOUT_MS,
      'x-message': `must be an integer 1-${MAX_STORE_TIMEOUT_MS} (milliseconds)`,
    },
  },
} as const;

/**
 * A limit that cannot stand: it names a tool the gateway does not serve (`unknownTool`), or repeats the window of
 * the earlier limit `repeats` for the same tools (which of two "per minute" limits would apply?).
 */
export type RateLimitClash =
  { readonly index: number; readonly unknownTool: string } | { readonly index: number; readonly repeats: number };

/** Every clash among `limits` (indexes into it), in order; the one home of the rule for config and constructs. */
export function rateLimitClashes(limits: readonly RateLimitConfig[], tools: ReadonlySet<string>): RateLimitClash[] {
  const clashes: RateLimitClash[] = [];
  const seen = new Map<string, number>();
  for (const [index, limit] of limits.entries()) {
    if (limit.tool !== undefined && !tools.has(limit.tool)) {
      clashes.push({ index, unknownTool: limit.tool });
      continue;
    }
    const key = `${limit.tool ?? ''}\0${limit.per}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else clashes.push({ index, repeats: first });
  }
  return clashes;
}

/** The first clash of `limits` as a config error relative to `path`, or `undefined` when there is none. */
export function rateLimitsProblem(
  limits: readonly RateLimitConfig[],
  tools: ReadonlySet<string>,
  path: string,
): string | undefined {
  const [clash] = rateLimitClashes(limits, tools);
  if (clash === undefined) return undefined;
  const limit = limits[clash.index];
  if ('unknownTool' in clash) {
    const known = [...tools].slice(0, 10).join(', ');
    return `${path}[${clash.index}].tool: ${JSON.stringify(clash.unknownTool)} is not a tool of this gateway (its tools: ${known}${tools.size > 10 ? ', …' : ''})`;
  }
  return `${path}[${clash.index}]: a second limit per ${limit.per} for ${limit.tool === undefined ? 'all tools' : limit.tool} (also ${path}[${clash.repeats}]): keep one, with the lower count`;
}

/** What is wrong with a store URL, or `undefined`. */
export function storeUrlProblem(url: string): string | undefined {
  // first, and never quoting the URL: it holds a password
  if (hasUserInfo(url)) return 'must not carry a user or password: give the password as a secret in store.password';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL: give redis://host:6379 (or rediss:// for TLS)`;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    return `${JSON.stringify(url)}: must be a redis:// or rediss:// URL`;
  }
  if (parsed.hostname === '') return `${JSON.stringify(url)}: names no host`;
  if (parsed.pathname !== '' && parsed.pathname !== '/' && !/^\/\d{1,2}$/.test(parsed.pathname)) {
    return `${JSON.stringify(url)}: the path may only name a database number (/0 to /99)`;
  }
  if (parsed.search !== '' || parsed.hash !== '') return `${JSON.stringify(url)}: must have no query or fragment`;
  return undefined;
}

/**
 * A store client's error in words a reader acts on (the client's own messages name its options, or the protocol's
 * reply codes): the password missing or refused, nothing listening, the host unknown, no answer.
 */
export function storeErrorReason(message: string): string {
  if (/NOAUTH/.test(message)) return 'the store needs a password';
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message)) return 'the store refused the password';
  if (/ECONNREFUSED/.test(message)) return 'connection refused: nothing listens at that host and port';
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'host not found';
  if (/ETIMEDOUT|timed out/i.test(message)) return 'the store does not answer (timed out)';
  return message.trim();
}

/** Every key and channel of a gateway in its store starts with this: gateways sharing a server stay apart. */
export function storeKeyPrefix(gateway: string): string {
  return `cdktf-mcp-gateway:${gateway}:`;
}

/** The hash naming each replica's audit stream (`INDEX:REPLICA`) and its node (`audit_log: 'store'`). */
export function auditIndexKey(gateway: string): string {
  return `${storeKeyPrefix(gateway)}audit`;
}
