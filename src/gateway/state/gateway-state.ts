import {
  DEFAULT_HEADER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_REVOKED_SESSIONS_PER_PRINCIPAL,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_WRITE_TIMEOUT_MS,
  defaultMaxConcurrentCallsPerPrincipal,
  defaultMaxHeldResponseBytes,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_TOOLS_LIST_PAGE_SIZE,
  DEFAULT_VALIDATE_INPUT,
  DEFAULT_VALIDATE_OUTPUT,
  DEFAULT_VALIDATION_ERRORS,
  DEFAULT_REFUSAL_STRUCTURED_CONTENT,
  type GatewayConfig,
} from '../../config';
import { createAuthenticator } from '../auth/authenticator';
import { principalKey, type Principal } from '../auth/bearer-tokens';
import { METRICS_SCOPE } from '../auth/oauth-scopes';
import { LimitRules } from '../limits/limit-rules';
import type { Logger } from '../log/logger';
import { createOriginGuard, type OriginGuard } from '../auth/origin-guard';
import { buildToolSet, buildToolSetInSlices, type ToolSet, type ToolSetInputs } from '../tools/tool-set';
import { Slicer } from '../reload/event-loop-slices';
import type { CallState } from '../tools/call-pipeline';
import { readSecrets, type SecretSource, type SecretValues } from '../upstream/secrets';

/**
 * Everything a request needs from the config, derived once. A reload builds a new state (compiling every schema)
 * before swapping it in with one assignment; a request reads the state once at its start.
 */
export interface GatewayState extends CallState {
  readonly config: GatewayConfig;
  readonly guard: OriginGuard;
  readonly maxBodyBytes: number;
  readonly maxResponseBytes: number;
  /** The most response bytes held at once, over every call. */
  readonly maxHeldResponseBytes: number;
  readonly maxRevokedSessionsPerPrincipal: number;
  readonly headerTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly writeTimeoutMs: number;
  readonly maxConnectionsPerAddress: number;
  readonly sessionTtlMs: number;
  readonly maxStreamsPerPrincipal: number;
  /**
   * What identifies the credential of a principal, by its principal key (`principalKey`: its token hashes; the
   * issuer for OAuth subjects), `undefined` when the config admits no such principal: a reload closes the streams
   * of a principal whose credential changed.
   */
  credentialOf(key: Principal): string | undefined;
  /** The ids of the configured static tokens (the principals metrics name; OAuth subjects count as `_other`). */
  readonly tokenIds: readonly string[];
  /** The value of `store.password`'s secret, read with the others. @default - none */
  readonly storePassword?: string;
}

/**
 * Derives the state of a (parsed, valid) config for a server listening on `listenHost`; reads the secrets it
 * refers to (once per load).
 * @throws ConfigError for a secret that is missing or a backend CA bundle that cannot be read
 */
export function buildGatewayState(
  config: GatewayConfig,
  listenHost: string,
  log: Logger,
  secrets: SecretSource = {},
): GatewayState {
  const secretValues = readSecrets(config, secrets);
  const toolSet = buildToolSet(...toolSetInputs(config, log, secretValues));
  return assembleState(config, listenHost, log, secretValues, toolSet);
}

/** {@link buildGatewayState}, building the tools a slice of the event loop at a time (a reload). */
export async function buildGatewayStateInSlices(
  config: GatewayConfig,
  listenHost: string,
  log: Logger,
  secrets: SecretSource = {},
  slicer = new Slicer(),
): Promise<GatewayState> {
  const secretValues = readSecrets(config, secrets);
  const toolSet = await buildToolSetInSlices(slicer, ...toolSetInputs(config, log, secretValues));
  return assembleState(config, listenHost, log, secretValues, toolSet);
}

function toolSetInputs(config: GatewayConfig, log: Logger, secretValues: SecretValues): ToolSetInputs {
  const g = config.gateway;
  const oauth = g.auth === 'none' ? undefined : g.auth.oauth;
  return [
    config.tools,
    log,
    secretValues,
    oauth?.scopes,
    g.validate_output ?? DEFAULT_VALIDATE_OUTPUT,
    { pageSize: g.tools_list_page_size ?? DEFAULT_TOOLS_LIST_PAGE_SIZE, gateway: g.name },
  ];
}

function assembleState(
  config: GatewayConfig,
  listenHost: string,
  log: Logger,
  secretValues: SecretValues,
  toolSet: ToolSet,
): GatewayState {
  const g = config.gateway;
  const oauth = g.auth === 'none' ? undefined : g.auth.oauth;
  // `metrics:read` too when `/metrics` is behind the gateway's authentication: a client may ask for it.
  const allScopes = [
    ...(oauth?.scopes ?? []),
    ...config.tools.flatMap((t) => t.required_scopes ?? []),
    ...(g.metrics === true ? [METRICS_SCOPE] : []),
  ];
  const principals = principalsOf(g.auth);
  const oauthCredential = oauth === undefined ? undefined : `oauth ${oauth.issuer}`;
  const maxConcurrentCalls = g.max_concurrent_calls ?? DEFAULT_MAX_CONCURRENT_CALLS;
  return {
    config,
    name: g.name,
    toolSet,
    auth: createAuthenticator(g.auth, { resourceUrl: g.resource_url, scopes: allScopes, logger: log }),
    guard: createOriginGuard({ listenHost, allowedHosts: g.allowed_hosts, allowedOrigins: g.allowed_origins }),
    validateInput: g.validate_input ?? DEFAULT_VALIDATE_INPUT,
    channel: g.validation_errors ?? DEFAULT_VALIDATION_ERRORS,
    refusalStructuredContent: g.refusal_structured_content ?? DEFAULT_REFUSAL_STRUCTURED_CONTENT,
    maxBodyBytes: g.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES,
    maxResponseBytes: g.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxHeldResponseBytes:
      g.max_held_response_bytes ?? defaultMaxHeldResponseBytes(g.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES),
    maxConcurrentCalls,
    maxConcurrentCallsPerPrincipal:
      g.max_concurrent_calls_per_principal ?? defaultMaxConcurrentCallsPerPrincipal(maxConcurrentCalls),
    maxRevokedSessionsPerPrincipal: g.max_revoked_sessions_per_principal ?? DEFAULT_MAX_REVOKED_SESSIONS_PER_PRINCIPAL,
    headerTimeoutMs: g.header_timeout_ms ?? DEFAULT_HEADER_TIMEOUT_MS,
    requestTimeoutMs: g.request_timeout_ms ?? DEFAULT_REQUEST_TIMEOUT_MS,
    writeTimeoutMs: g.write_timeout_ms ?? DEFAULT_WRITE_TIMEOUT_MS,
    maxConnectionsPerAddress: g.max_connections_per_address ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    sessionTtlMs: g.session_ttl_ms ?? DEFAULT_SESSION_TTL_MS,
    maxStreamsPerPrincipal: g.max_streams_per_principal ?? DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
    tokenIds: g.auth === 'none' ? [] : (g.auth.tokens ?? []).map((t) => t.id),
    credentialOf: (key) => principals.get(key) ?? (key?.startsWith('oauth:') === true ? oauthCredential : undefined),
    limits: new LimitRules(g.rate_limits),
    storePassword: g.store?.password === undefined ? undefined : secretValues.get(g.store.password.secret),
  };
}

function principalsOf(auth: GatewayConfig['gateway']['auth']): ReadonlyMap<Principal, string> {
  if (auth === 'none') return new Map([[null, 'none']]);
  const principals = new Map<Principal, string>();
  for (const token of auth.tokens ?? []) {
    const key = principalKey({ principal: token.id, oauth: false });
    principals.set(key, `${principals.get(key) ?? ''}${token.sha256};`);
  }
  return principals;
}
