import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_VALIDATE_INPUT,
  DEFAULT_VALIDATION_ERRORS,
  type GatewayConfig,
  type ValidationErrorsChannel,
} from '../contract';
import { createAuthenticator, type Authenticator } from './auth/bearer-tokens';
import type { Logger } from './logger';
import { createOriginGuard, type OriginGuard } from './http/origin-guard';
import { buildToolSet, type ToolSet } from './tools/tool-set';
import { readSecrets } from './upstream/secrets';

/**
 * Everything a request needs from the config, derived once. A reload builds a new state (compiling every schema)
 * before swapping it in with one assignment; a request reads the state once at its start.
 */
export interface GatewayState {
  readonly config: GatewayConfig;
  readonly name: string;
  readonly toolSet: ToolSet;
  readonly auth: Authenticator;
  readonly guard: OriginGuard;
  readonly validateInput: boolean;
  readonly channel: ValidationErrorsChannel;
  readonly maxBodyBytes: number;
  readonly maxResponseBytes: number;
  readonly maxConcurrentCalls: number;
  readonly sessionTtlMs: number;
}

/**
 * Derives the state of a (parsed, valid) config for a server listening on `listenHost`; reads the secrets it
 * refers to (once per load).
 * @throws ConfigError for a secret that is missing or a backend CA bundle that cannot be read
 */
export function buildGatewayState(config: GatewayConfig, listenHost: string, log: Logger): GatewayState {
  const g = config.gateway;
  return {
    config,
    name: g.name,
    toolSet: buildToolSet(config.tools, log, readSecrets(config)),
    auth: createAuthenticator(g.auth),
    guard: createOriginGuard({ listenHost, allowedHosts: g.allowed_hosts, allowedOrigins: g.allowed_origins }),
    validateInput: g.validate_input ?? DEFAULT_VALIDATE_INPUT,
    channel: g.validation_errors ?? DEFAULT_VALIDATION_ERRORS,
    maxBodyBytes: g.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES,
    maxResponseBytes: g.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxConcurrentCalls: g.max_concurrent_calls ?? DEFAULT_MAX_CONCURRENT_CALLS,
    sessionTtlMs: g.session_ttl_ms ?? DEFAULT_SESSION_TTL_MS,
  };
}
