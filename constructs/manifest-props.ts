import * as nodePath from 'node:path';
import {
  LIMIT_STORE_NAME_RE,
  LIMIT_STORE_NAME_RULE,
  NAME_RULE,
  normalizeTokenSha256,
  secretNameProblem,
  TOOL_NAME_RE,
} from '../src/config';
import { isJsonObject } from '../src/validation';
import { generateInputSchema, InputSpec, InputSpecError, ParamSpec } from '../src/schema';
import type { GatewayAuth } from './gateway';
import type { GatewayKubernetes, KubernetesResources } from './kubernetes/kubernetes-props';
import {
  ManifestDashboard,
  ManifestDocument,
  ManifestGateway,
  ManifestLimitStore,
  ManifestOpenApi,
  ManifestService,
} from './manifest-document';
import { withMisspellingsRead } from './manifest-misspellings';
import { camelCase, schemaProblems } from './manifest-schema';
import { ManifestProblem, ManifestYaml } from './manifest-yaml';
import { Secret } from './secret';
import type { ServiceContainer, ServiceEndpoint } from './service';
import type { ServiceResponse } from './service-response';

/** A part of the document after the schema passed it: its shape is the schema's, so fields are read directly. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked by manifest.schema.json
type Json = Record<string, any>;

/**
 * Read and check a manifest against `manifest.schema.json` and the rules a schema cannot state (names that
 * refer to other entries, token hashes, secret names, declared inputs). Every mistake found is reported, one
 * per line, as `FILE:LINE:COL: PATH: REASON`.
 * @throws ManifestError
 */
export function readManifest(file: string, text: string): ManifestDocument {
  const yaml = new ManifestYaml(file, text);
  const merges = yaml.mergeKeys();
  if (merges.length > 0) throw yaml.error(merges);
  const problems = [
    ...yaml.duplicateKeys(),
    ...yaml.changedKeys(),
    ...withMisspellingsRead(yaml.value, (value) => [...schemaProblems(value), ...crossChecks(value)]),
  ];
  if (problems.length > 0) throw yaml.error(problems);
  const root = yaml.value as Json;
  const dir = nodePath.dirname(file);
  const services = entries(root.services).map(([name, s]) => service(yaml, dir, name, s));
  const refused = services.flatMap((s) => inputProblems(s.name, s.input, (root.services as Json)[s.name].input));
  if (refused.length > 0) throw yaml.error(refused);
  return {
    services,
    gateways: entries(root.gateways).map(([name, g]) => gateway(yaml, name, g)),
    dashboards: entries(root.dashboards).map(([name, d]) => dashboard(yaml, name, d)),
    limitStores: entries(root.limit_stores).map(([name, l]) => limitStore(yaml, name, l)),
    openapi: entries(root.openapi).map(([name, o]) => openapi(yaml, dir, name, o)),
  };
}

/**
 * Entry keys that are not valid names: the key is the entry's name (a manifest has no `name` to set instead), so
 * each is reported at its key, beside the other mistakes, rather than by the construct at the first one alone.
 */
function entryNames(root: Json): ManifestProblem[] {
  const kinds = [
    ['services', 'tool', TOOL_NAME_RE, `a tool name is ${NAME_RULE}`],
    ['gateways', 'gateway', TOOL_NAME_RE, `a gateway name is ${NAME_RULE}`],
    ['dashboards', 'dashboard', TOOL_NAME_RE, `a dashboard name is ${NAME_RULE}`],
    ['limit_stores', 'limit store', LIMIT_STORE_NAME_RE, `a limit store name is ${LIMIT_STORE_NAME_RULE}`],
  ] as const;
  return kinds.flatMap(([key, kind, re, rule]) =>
    entries(root[key])
      .filter(([name]) => !re.test(name))
      .map(([name]) => ({
        at: [key, name],
        reason: `\`${name}\` is not a valid ${kind} name: ${rule}; the key is the ${kind} name, so rename it`,
        atKey: true,
      })),
  );
}

/** The rules that need more than one node: run over whatever shape the document has. */
function crossChecks(root: unknown): ManifestProblem[] {
  if (!isJsonObject(root)) return [];
  const problems: ManifestProblem[] = [];
  const serviceNames = isJsonObject(root.services) ? Object.keys(root.services) : [];
  const gatewayNames = isJsonObject(root.gateways) ? Object.keys(root.gateways) : [];
  const storeNames = isJsonObject(root.limit_stores) ? Object.keys(root.limit_stores) : [];
  // the tools an `openapi` entry generates are known once its document is read: the Manifest checks those names
  const generatedTools = isJsonObject(root.openapi) && Object.keys(root.openapi).length > 0;
  problems.push(...entryNames(root));
  for (const [name, s] of entries(root.services)) {
    const at = ['services', name];
    const endpoint = isJsonObject(s) ? s.endpoint : undefined;
    if (isJsonObject(endpoint)) {
      for (const [header, value] of entries(endpoint.headers)) {
        if (isJsonObject(value))
          problems.push(...secretName(value.secret, [...at, 'endpoint', 'headers', header, 'secret']));
      }
      if (isJsonObject(endpoint.tls))
        problems.push(...secretName(endpoint.tls.ca_secret, [...at, 'endpoint', 'tls', 'ca_secret']));
    }
    if (isJsonObject(s)) problems.push(...paramSpellings(s.input, [...at, 'input']));
  }
  for (const [name, o] of entries(root.openapi)) {
    for (const [header, value] of entries(isJsonObject(o) ? o.headers : undefined)) {
      if (isJsonObject(value))
        problems.push(...secretName(value.secret, ['openapi', name, 'headers', header, 'secret']));
    }
  }
  for (const [name, g] of entries(root.gateways)) {
    if (!isJsonObject(g)) continue;
    const at = ['gateways', name];
    if (Array.isArray(g.services)) {
      const listed = new Set<unknown>();
      g.services.forEach((item: unknown, i: number) => {
        if (typeof item !== 'string') return;
        const where = [...at, 'services', String(i)];
        if (!serviceNames.includes(item) && !generatedTools) {
          const declared = serviceNames.join(', ') || 'none';
          problems.push({ at: where, reason: `unknown service \`${item}\` (declared services: ${declared})` });
        } else if (listed.has(item)) problems.push({ at: where, reason: `service \`${item}\` is listed twice` });
        listed.add(item);
      });
    }
    problems.push(...tokenHashes(g.auth, [...at, 'auth']));
    const store = isJsonObject(g.store) ? g.store.limit_store : undefined;
    if (typeof store === 'string' && !storeNames.includes(store)) {
      const declared = storeNames.join(', ') || 'none';
      problems.push({
        at: [...at, 'store', 'limit_store'],
        reason: `unknown limit store \`${store}\` (declared under limit_stores: ${declared})`,
      });
    }
  }
  for (const [name, d] of entries(root.dashboards)) {
    if (!isJsonObject(d)) continue;
    const at = ['dashboards', name];
    for (const gateway of Array.isArray(d.gateways) ? d.gateways : []) {
      if (typeof gateway === 'string' && !gatewayNames.includes(gateway)) {
        const declared = gatewayNames.join(', ') || 'none';
        problems.push({
          at: [...at, 'gateways'],
          reason: `unknown gateway \`${gateway}\` (declared gateways: ${declared})`,
        });
      }
    }
    problems.push(...tokenHashes(d.auth, [...at, 'auth']));
  }
  return problems;
}

/** The Gateway construct's hash rule, checked here to report it at the value; never echoes the value. */
function tokenHashes(auth: unknown, at: string[]): ManifestProblem[] {
  if (!isJsonObject(auth) || !Array.isArray(auth.tokens)) return [];
  return auth.tokens.flatMap((token: unknown, i: number) => {
    if (!isJsonObject(token) || typeof token.sha256 !== 'string') return [];
    const checked = normalizeTokenSha256(token.sha256);
    return 'problem' in checked ? [{ at: [...at, 'tokens', String(i), 'sha256'], reason: checked.problem }] : [];
  });
}

function secretName(name: unknown, at: string[]): ManifestProblem[] {
  const problem = typeof name === 'string' ? secretNameProblem(name) : undefined;
  return problem === undefined ? [] : [{ at, reason: `the name ${problem}` }];
}

/** A parameter spec key written in both spellings (`min_length` and `minLength`), at every depth. */
function paramSpellings(params: unknown, at: string[]): ManifestProblem[] {
  return entries(params).flatMap(([name, spec]) => specSpellings(spec, [...at, name]));
}

function specSpellings(spec: unknown, at: string[]): ManifestProblem[] {
  if (!isJsonObject(spec)) return [];
  const problems: ManifestProblem[] = [];
  const seen = new Map<string, string>();
  for (const key of Object.keys(spec)) {
    const first = seen.get(camelCase(key));
    if (first !== undefined) {
      problems.push({ at: [...at, key], reason: `\`${key}\` repeats \`${first}\`: keep one spelling`, atKey: true });
    }
    seen.set(camelCase(key), key);
  }
  return [
    ...problems,
    ...specSpellings(spec.items, [...at, 'items']),
    ...paramSpellings(spec.properties, [...at, 'properties']),
  ];
}

/**
 * The declared inputs the schema generator refuses: each parameter's own, then what the whole input breaks (two
 * parameters' aliases that clash); a repeat of one already found is dropped with the other repeated lines.
 * @param written the input as the manifest holds it, for the spelling of its keys
 */
function inputProblems(service: string, input: InputSpec | undefined, written: unknown): ManifestProblem[] {
  if (input === undefined) return [];
  const at = ['services', service, 'input'];
  return [
    ...Object.entries(input).flatMap(([name, spec]) => inputProblem(at, { [name]: spec }, written)),
    ...inputProblem(at, input, written),
  ];
}

/**
 * A declared input (at `at`) the schema generator refuses: at the spec key at fault, else at the parameter, else at
 * `input`; a spec key named as the spec at fault writes it (`min_length`).
 */
function inputProblem(at: string[], input: InputSpec, written: unknown): ManifestProblem[] {
  try {
    generateInputSchema(input);
    return [];
  } catch (err) {
    if (!(err instanceof InputSpecError)) return [{ at, reason: (err as Error).message }];
    const path = err.path === '' ? [] : paramNodePath(err.path);
    const reason = asWritten(err.message, path.length === 0 ? undefined : valueAt(written, path));
    const param = [...at, ...path];
    if (err.keyword === undefined) return [{ at: param, reason, named: at, atKey: path.length > 0 }];
    return [{ at: [...param, err.keyword], reason, named: at }];
  }
}

/** `message` with each spec key `spec` writes in snake_case (`min_length`) so spelled, outside backquotes. */
function asWritten(message: string, spec: unknown): string {
  if (!isJsonObject(spec)) return message;
  const spelled = new Map(Object.keys(spec).map((key) => [camelCase(key), key]));
  return message
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 === 1 ? part : part.replace(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, (w) => spelled.get(w) ?? w),
    )
    .join('');
}

/** The value at `path` in plain data, or `undefined`. */
function valueAt(data: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (isJsonObject(node) ? node[key] : undefined), data);
}

/**
 * `customer.addresses[].zip_code` → `customer.properties.addresses.items.properties.zip_code` as segments; a name
 * that is not an identifier is written `["a.b"]` (JSON-escaped) in the path.
 */
function paramNodePath(path: string): string[] {
  const segments: string[] = [];
  for (const [, name, quoted] of path.matchAll(/\.?([A-Za-z_][A-Za-z0-9_]*)|\["((?:[^"\\]|\\.)*)"\]|\[\]/g)) {
    if (name === undefined && quoted === undefined) segments.push('items');
    else segments.push(...(segments.length === 0 ? [] : ['properties']), name ?? (JSON.parse(`"${quoted}"`) as string));
  }
  return segments;
}

function service(yaml: ManifestYaml, dir: string, name: string, s: Json): ManifestService {
  const at = ['services', name];
  const e = s.endpoint as Json;
  const endpoint: ServiceEndpoint = {
    url: e.url,
    method: e.method,
    ...(e.headers !== undefined ? { headers: headers(e.headers) } : {}),
    ...(e.tls !== undefined ? { tls: tls(e.tls, dir) } : {}),
    ...(e.query_params !== undefined ? { queryParams: e.query_params } : {}),
    ...(e.body_param !== undefined ? { bodyParam: e.body_param } : {}),
  };
  return defined({
    name,
    description: s.description,
    endpoint,
    input: s.input === undefined ? undefined : params(s.input),
    inputSchema: s.input_schema,
    output: s.output === undefined ? undefined : params(s.output),
    outputSchema: s.output_schema,
    response: s.response === undefined ? undefined : responseControls(s.response),
    timeoutMs: s.timeout_ms,
    container: s.container === undefined ? undefined : container(s.container, dir),
    forwardIdentity: s.forward_identity,
    idempotent: s.idempotent,
    requiredScopes: s.required_scopes,
    rateLimits: s.rate_limits,
    at: yaml.entry(at),
  });
}

/** `response: { fields, redact, redact_patterns, max_bytes }` → `ServiceResponse`. */
function responseControls(r: Json): ServiceResponse {
  return defined({
    fields: r.fields,
    redact: r.redact,
    redactPatterns: r.redact_patterns,
    maxBytes: r.max_bytes,
  });
}

function gateway(yaml: ManifestYaml, name: string, g: Json): ManifestGateway {
  return defined({
    name,
    services: g.services,
    servicesAt: (g.services as string[]).map((_, i) => yaml.location(['gateways', name, 'services', String(i)])),
    replicas: g.replicas,
    sessionKeyVariable: g.session_key?.variable,
    publishMode: g.publish_mode,
    validateInput: g.validate_input,
    validateOutput: g.validate_output,
    toolsListPageSize: g.tools_list_page_size,
    validationErrors: g.validation_errors,
    refusalStructuredContent: g.refusal_structured_content,
    response: g.response === undefined ? undefined : defined({ redactPatterns: g.response.redact_patterns }),
    auth: auth(g.auth),
    auditLog: g.audit_log,
    port: g.port,
    baseImage: g.base_image,
    allowedHosts: g.allowed_hosts,
    allowedOrigins: g.allowed_origins,
    hostIp: g.host_ip,
    metrics: g.metrics,
    resourceUrl: g.resource_url,
    maxBodyBytes: g.max_body_bytes,
    maxResponseBytes: g.max_response_bytes,
    maxHeldResponseBytes: g.max_held_response_bytes,
    maxConcurrentCalls: g.max_concurrent_calls,
    maxConcurrentCallsPerPrincipal: g.max_concurrent_calls_per_principal,
    maxRevokedSessionsPerPrincipal: g.max_revoked_sessions_per_principal,
    headerTimeoutMs: g.header_timeout_ms,
    requestTimeoutMs: g.request_timeout_ms,
    writeTimeoutMs: g.write_timeout_ms,
    maxConnectionsPerAddress: g.max_connections_per_address,
    sessionTtlMs: g.session_ttl_ms,
    maxStreamsPerPrincipal: g.max_streams_per_principal,
    toolsListTtlMs: g.tools_list_ttl_ms,
    rateLimits: g.rate_limits,
    storeUrl: g.store?.url,
    storePasswordVariable: g.store?.password?.variable,
    storeOnUnavailable: g.store?.on_unavailable,
    storeTimeoutMs: g.store?.timeout_ms,
    storeLimitStore: g.store?.limit_store,
    registryAddress: g.registry?.address,
    registryUsername: g.registry?.username,
    registryPasswordVariable: g.registry?.password?.variable,
    registryInsecure: g.registry?.insecure,
    placement:
      g.placement === undefined
        ? undefined
        : defined({ constraints: g.placement.constraints, maxReplicasPerNode: g.placement.max_replicas_per_node }),
    kubernetes: g.kubernetes === undefined ? undefined : kubernetes(g.kubernetes),
    at: yaml.entry(['gateways', name]),
  });
}

/** `kubernetes: { namespace, service: { type, node_port }, image, requests, limits, … }` → `GatewayKubernetes`. */
function kubernetes(k: Json): GatewayKubernetes {
  return defined({
    namespace: k.namespace,
    service: k.service === undefined ? undefined : defined({ type: k.service.type, nodePort: k.service.node_port }),
    image: k.image,
    requests: quantities(k.requests),
    limits: quantities(k.limits),
    drainSeconds: k.drain_seconds,
    applyTimeoutSeconds: k.apply_timeout_seconds,
  });
}

/** `openapi: { NAME: { document, base_url, operations, headers, overrides, container } }` → `OpenApiServices` props. */
function openapi(yaml: ManifestYaml, dir: string, name: string, o: Json): ManifestOpenApi {
  const overrides = entries(o.overrides).map(([key, v]) => [
    key,
    defined({
      name: v.name,
      description: v.description,
      timeoutMs: v.timeout_ms,
      requiredScopes: v.required_scopes,
      response: v.response === undefined ? undefined : responseControls(v.response),
    }),
  ]);
  return defined({
    name,
    document: nodePath.resolve(dir, o.document),
    baseUrl: o.base_url,
    operations: o.operations,
    headers: o.headers === undefined ? undefined : headers(o.headers),
    overrides: o.overrides === undefined ? undefined : Object.fromEntries(overrides),
    container: o.container === undefined ? undefined : container(o.container, dir),
    at: yaml.entry(['openapi', name]),
  });
}

function dashboard(yaml: ManifestYaml, name: string, d: Json): ManifestDashboard {
  return defined({
    name,
    gateways: d.gateways,
    auth: auth(d.auth) as ManifestDashboard['auth'],
    port: d.port,
    hostIp: d.host_ip,
    retentionDays: d.retention_days,
    flag: d.flag === undefined ? undefined : defined({ minRefusals: d.flag.min_refusals, minRate: d.flag.min_rate }),
    baseImage: d.base_image,
    kubernetes:
      d.kubernetes === undefined
        ? undefined
        : defined({
            namespace: d.kubernetes.namespace,
            service:
              d.kubernetes.service === undefined
                ? undefined
                : defined({ type: d.kubernetes.service.type, nodePort: d.kubernetes.service.node_port }),
          }),
    at: yaml.entry(['dashboards', name]),
  });
}

/** `limit_stores: { NAME: { image, password: { variable }, host_port, host_ip, kubernetes } }` → `LimitStore` props. */
function limitStore(yaml: ManifestYaml, name: string, l: Json): ManifestLimitStore {
  const k = l.kubernetes as Json | undefined;
  return defined({
    name,
    image: l.image,
    passwordVariable: l.password?.variable,
    hostPort: l.host_port,
    hostIp: l.host_ip,
    kubernetes:
      k === undefined
        ? undefined
        : defined({
            namespace: k.namespace,
            storage:
              k.storage === undefined
                ? undefined
                : defined({ size: quantity(k.storage.size), storageClassName: k.storage.storage_class_name }),
            requests: quantities(k.requests),
            limits: quantities(k.limits),
          }),
    at: yaml.entry(['limit_stores', name]),
  });
}

/** A quantity as Kubernetes writes it: YAML reads `cpu: 1` or `cpu: 0.5` as a number. */
function quantity(q: string | number): string {
  return typeof q === 'number' ? String(q) : q;
}

/** `{ cpu?, memory? }` with each quantity as text. */
function quantities(r: Json | undefined): KubernetesResources | undefined {
  return r === undefined
    ? undefined
    : (Object.fromEntries(Object.entries(r).map(([k, q]) => [k, quantity(q)])) as KubernetesResources);
}

function auth(a: 'none' | Json): GatewayAuth {
  if (a === 'none') return 'none';
  const o = a.oauth as Json | undefined;
  return defined({
    tokens: a.tokens,
    oauth:
      o === undefined
        ? undefined
        : defined({
            issuer: o.issuer,
            audience: o.audience,
            jwksUri: o.jwks_uri,
            scopes: o.scopes,
            principalClaim: o.principal_claim,
            algorithms: o.algorithms,
            allowPlainJwt: o.allow_plain_jwt,
          }),
  }) as GatewayAuth;
}

function headers(h: Json): Record<string, string | Secret> {
  return Object.fromEntries(
    Object.entries(h).map(([name, v]) => [name, isJsonObject(v) ? Secret.env(v.secret as string) : (v as string)]),
  );
}

/** `tls: { ca_file: PATH }` (relative to the manifest's directory) or `tls: { ca_secret: NAME }`. */
function tls(t: Json, dir: string): ServiceEndpoint['tls'] {
  return t.ca_file !== undefined ? { caFile: nodePath.resolve(dir, t.ca_file) } : { ca: Secret.env(t.ca_secret) };
}

/** `container: { image | build, port, env? }`; a build context is relative to the manifest's directory. */
function container(c: Json, dir: string): ServiceContainer {
  const build =
    c.build === undefined
      ? undefined
      : defined({
          context: nodePath.resolve(dir, c.build.context),
          dockerfile: c.build.dockerfile,
          args: c.build.args === undefined ? undefined : strings(c.build.args),
        });
  return defined({
    image: c.image,
    build,
    port: c.port,
    env: c.env === undefined ? undefined : strings(c.env),
    healthcheck: c.healthcheck,
  });
}

/** `PORT: 8080` is natural YAML; environment values and build arguments are strings either way. */
function strings(map: Json): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, String(v)]));
}

function params(map: Json): InputSpec {
  return Object.fromEntries(Object.entries(map).map(([name, spec]) => [name, param(spec)]));
}

/** A parameter spec: keys in TypeScript's spelling, whichever spelling the manifest used. */
function param(spec: Json): ParamSpec {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    const name = camelCase(key);
    if (name === 'items') out.items = param(value);
    else if (name === 'properties') {
      if (value !== null) out.properties = params(value);
    } else out[name] = value;
  }
  return out as unknown as ParamSpec;
}

function entries(map: unknown): [string, Json][] {
  return isJsonObject(map) ? (Object.entries(map) as [string, Json][]) : [];
}

/** `o` without its undefined fields, so that props read as if written by hand. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
