import type { ErrorObject } from 'ajv';
import type { GatewayConfig, ToolConfig } from './gateway-config';
import { configValidator } from './config-validator';
import { headerNameProblem, headerValueProblem } from './backend-rules';
import { ConfigError } from './config-error';
import { keyPath } from '../validation/path';
import { DEFAULT_HEADER_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './defaults';
import { isReservedName, reservedNameReason } from '../validation/reserved-names';
import { compileResponseControls, responseSettingsProblem } from '../response';
import { rateLimitsProblem, storeUrlProblem } from './rate-limits';
import { fixedQueryClash, hasPlaceholderBeforePath, hasUserInfo, isHttpUrl, USER_INFO_ADVICE } from './url-template';

/**
 * Validates a gateway config document and returns it typed.
 *
 * @param doc the parsed JSON or YAML document
 * @param source where it came from (a file name), appended to error messages as `(in SOURCE)`
 * @throws ConfigError with one line naming the field, e.g. `gateway.port: must be an integer 1-65535`
 * @example
 * const config = parseGatewayConfig(JSON.parse(text), 'gateway.json');
 */
export function parseGatewayConfig(doc: unknown, source?: string): GatewayConfig {
  const problem = schemaProblem(doc) ?? semanticProblem(doc as GatewayConfig);
  if (problem !== undefined) {
    throw new ConfigError(source === undefined ? problem : `${problem} (in ${source})`);
  }
  return doc as GatewayConfig;
}

function schemaProblem(doc: unknown): string | undefined {
  const validateDocument = configValidator();
  if (validateDocument(doc)) return undefined;
  const error = validateDocument.errors![0];
  return describe(error);
}

function describe(error: ErrorObject): string {
  const path = pointerToPath(error.instancePath);
  if (error.keyword === 'required') {
    return `${fieldPath(path, (error.params as { missingProperty: string }).missingProperty)}: is required`;
  }
  if (error.keyword === 'additionalProperties') {
    return `${fieldPath(path, (error.params as { additionalProperty: string }).additionalProperty)}: unknown field`;
  }
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-message'];
  return `${path === '' ? 'config' : path}: ${typeof custom === 'string' ? custom : (error.message ?? 'is invalid')}`;
}

/** Cross-field checks a JSON Schema cannot express. */
function semanticProblem(config: GatewayConfig): string | undefined {
  const seenTools = new Map<string, number>();
  for (const [i, tool] of config.tools.entries()) {
    const first = seenTools.get(tool.name);
    if (first !== undefined) {
      return `tools[${i}].name: duplicate tool name ${JSON.stringify(tool.name)} (also tools[${first}])`;
    }
    seenTools.set(tool.name, i);
    if (hasPlaceholderBeforePath(tool.backend.url)) {
      return `tools[${i}].backend.url: placeholders may stand only in the path and query, not in the scheme, host or port`;
    }
    if (hasUserInfo(tool.backend.url)) return `tools[${i}].backend.url ${USER_INFO_ADVICE}`;
    if (!isHttpUrl(tool.backend.url)) return `tools[${i}].backend.url: must be an http(s) URL`;
    const problem = reservedNameProblem(tool) ?? fixedQueryProblem(tool);
    if (problem !== undefined) return `tools[${i}].${problem}`;
    const backendProblem = backendExtrasProblem(tool.backend, `tools[${i}].backend`);
    if (backendProblem !== undefined) return backendProblem;
    const shaping = responseProblem(tool);
    if (shaping !== undefined) return `tools[${i}].${shaping}`;
  }
  return authProblem(config.gateway) ?? timeoutProblem(config.gateway) ?? limitsProblem(config, seenTools);
}

/** Each limit names a tool and repeats no other's window; the store's URL is one we reach; an audit to it has one. */
function limitsProblem(config: GatewayConfig, tools: ReadonlyMap<string, number>): string | undefined {
  const g = config.gateway;
  const limits = rateLimitsProblem(g.rate_limits ?? [], new Set(tools.keys()), 'gateway.rate_limits');
  if (limits !== undefined) return limits;
  const url = g.store === undefined ? undefined : storeUrlProblem(g.store.url);
  if (url !== undefined) return `gateway.store.url: ${url}`;
  if (g.audit_log === 'store' && g.store === undefined) {
    return "gateway.audit_log: 'store' writes the audit to the gateway's store, and there is none: set gateway.store, or audit_log: true for a file";
  }
  return undefined;
}

/** The headers are part of the request: their timeout cannot be the longer one (Node refuses that too). */
function timeoutProblem(gateway: GatewayConfig['gateway']): string | undefined {
  const headers = gateway.header_timeout_ms ?? DEFAULT_HEADER_TIMEOUT_MS;
  const request = gateway.request_timeout_ms ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (headers <= request) return undefined;
  return `gateway.header_timeout_ms: ${headers} is longer than request_timeout_ms (${request}); the headers are part of the request, so set it to at most ${request}`;
}

/** Token ids are unique; OAuth needs the resource URL (the metadata's `resource` and the default audience). */
function authProblem(gateway: GatewayConfig['gateway']): string | undefined {
  if (gateway.auth === 'none') return undefined;
  const seenIds = new Map<string, number>();
  for (const [i, token] of (gateway.auth.tokens ?? []).entries()) {
    const first = seenIds.get(token.id);
    if (first !== undefined) {
      return `gateway.auth.tokens[${i}].id: duplicate token id ${JSON.stringify(token.id)} (also tokens[${first}])`;
    }
    seenIds.set(token.id, i);
  }
  if (gateway.auth.oauth !== undefined && gateway.resource_url === undefined) {
    return 'gateway.resource_url: is required when gateway.auth.oauth is set (the URL agents reach the MCP endpoint at, e.g. https://gw.example.com/mcp)';
  }
  return undefined;
}

/** The response controls of a tool, relative to the tool (the same checks as synthesis, with the config's names). */
function responseProblem(tool: ToolConfig): string | undefined {
  const output = tool.output_schema;
  if (output !== undefined) {
    if (output.type !== 'object') return "output_schema: must be a JSON Schema with type: 'object'";
    const compiled = compileResponseControls({ output_schema: output }, true);
    if ('error' in compiled)
      return `output_schema: does not compile: ${compiled.error.replace(/^output schema: /, '')}`;
  }
  const r = tool.response;
  if (r === undefined) return undefined;
  const found = responseSettingsProblem(
    { fields: r.fields, redact: r.redact, redactPatterns: r.redact_patterns, maxBytes: r.max_bytes },
    output,
  );
  if (found === undefined) return undefined;
  const names = { fields: 'fields', redact: 'redact', redactPatterns: 'redact_patterns', maxBytes: 'max_bytes' };
  const at = found.where.at;
  const field =
    found.where.setting === 'redactPatterns' && at !== undefined
      ? fieldPath('response.redact_patterns', at)
      : `response.${names[found.where.setting]}${at ?? ''}`;
  return `${field}: ${found.problem.replace('declare its output', 'give the tool an output_schema')}`;
}

/** The name maps of a tool, with the fix for a reserved name as key and as value. */
const NAME_MAPS = [
  ['aliases', 'choose another alias', 'an alias must stand for another parameter'],
  ['forward_as', 'rename the parameter', 'forward the parameter under another name'],
] as const;

/** An alias or `forward_as` entry that uses a reserved name (as key or value), relative to the tool. */
function reservedNameProblem(tool: ToolConfig): string | undefined {
  for (const [field, keyFix, valueFix] of NAME_MAPS) {
    const map = tool[field];
    if (map === undefined) continue;
    for (const key of Object.keys(map)) {
      if (isReservedName(key)) return `${fieldPath(field, key)}: ${reservedNameReason(key)}: ${keyFix}`;
      if (isReservedName(map[key])) return `${fieldPath(field, key)}: ${reservedNameReason(map[key])}: ${valueFix}`;
    }
  }
  return undefined;
}

/** The headers (names not reserved, each once, literal values sendable) and TLS of a backend. */
function backendExtrasProblem(backend: GatewayConfig['tools'][number]['backend'], path: string): string | undefined {
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(backend.headers ?? {})) {
    const where = fieldPath(`${path}.headers`, name);
    const nameProblem = headerNameProblem(name);
    if (nameProblem !== undefined) return `${where}: ${nameProblem}`;
    const first = seen.get(name.toLowerCase());
    if (first !== undefined)
      return `${where}: repeats the header ${JSON.stringify(first)} (names are case-insensitive)`;
    seen.set(name.toLowerCase(), name);
    const valueProblem = typeof value === 'string' ? headerValueProblem(value) : undefined;
    if (valueProblem !== undefined) return `${where}: ${valueProblem}`;
  }
  if (backend.tls !== undefined && !/^https:/i.test(backend.url)) {
    return `${path}.tls: applies only to an https:// URL`;
  }
  return undefined;
}

/** A parameter a GET/DELETE backend would receive twice, the URL fixing a query parameter of its name. */
function fixedQueryProblem(tool: ToolConfig): string | undefined {
  const clash = fixedQueryClash(tool.backend.url, tool.backend.method, tool.input_schema, tool.forward_as);
  if (clash === undefined) return undefined;
  const { param, field } = clash;
  const fix = `rename the parameter, forward it under another name with forward_as, or remove ${field} from the URL`;
  if (param === field) {
    return `${fieldPath('input_schema.properties', param)}: is sent as query parameter ${JSON.stringify(field)}, which backend.url already fixes (?${field}=…): ${fix}`;
  }
  return (
    `${fieldPath('forward_as', param)}: forwards parameter ${JSON.stringify(param)} as query parameter ${JSON.stringify(field)}, ` +
    `which backend.url already fixes (?${field}=…): ${fix}`
  );
}

/** `/tools/3/backend/url` → `tools[3].backend.url`. */
function pointerToPath(pointer: string): string {
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^\d+$/.test(segment) ? `${path}[${segment}]` : fieldPath(path, segment);
  }
  return path;
}

/**
 * `path` and `key` as a field path: `a.b`, or `a["b-c"]` for a key that is not an identifier. The one path
 * formatter: the validator's (`keyPath`), so config errors and refusals name a key the same way.
 */
export const fieldPath = keyPath;
