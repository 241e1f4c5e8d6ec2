import { isMap, isScalar, isSeq, LineCounter, Node, parseDocument, Scalar, YAMLMap } from 'yaml';
import {
  BACKEND_METHODS,
  BackendMethod,
  explainYamlErrors,
  normalizeTokenSha256,
  VALIDATION_CHANNELS,
  ValidationErrorsChannel,
} from '../src/contract';
import { InputSpec, ParamSpec } from '../src/schema';

import type { GatewayAuth } from './gateway';
import type { PublishMode } from './gateway-service';
import {
  ManifestDashboard,
  ManifestDocument,
  ManifestError,
  ManifestGateway,
  ManifestLocation,
  ManifestService,
} from './manifest-document';
import * as nodePath from 'node:path';
import { Secret } from './secret';
import { ServiceContainer, ServiceEndpoint } from './service';
import { ServiceContainerBuild } from './service-image';
import type { GatewayOAuth } from './oauth-props';

const PARAM_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'];

type Kind = 'string' | 'boolean' | 'integer' | 'number' | 'any' | 'strings' | 'scalars' | 'param' | 'params';

/** Parameter spec keys, as in TypeScript; the snake_case spelling of each is accepted too. */
const PARAM_KEYS: Record<string, Kind> = {
  type: 'string',
  required: 'boolean',
  description: 'string',
  default: 'any',
  enum: 'scalars',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  minLength: 'integer',
  maxLength: 'integer',
  pattern: 'string',
  format: 'string',
  minItems: 'integer',
  maxItems: 'integer',
  uniqueItems: 'boolean',
  items: 'param',
  properties: 'params',
  additionalProperties: 'boolean',
  aliases: 'strings',
  forwardAs: 'string',
};
const SNAKE_PARAM_KEYS = new Map(
  Object.keys(PARAM_KEYS).map((k) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), k] as const),
);

const SERVICE_KEYS = [
  'description',
  'endpoint',
  'input',
  'input_schema',
  'timeout_ms',
  'container',
  'forward_identity',
  'required_scopes',
];
const GATEWAY_KEYS = [
  'services',
  'validate_input',
  'validation_errors',
  'auth',
  'audit_log',
  'port',
  'base_image',
  'allowed_hosts',
  'allowed_origins',
  'host_ip',
  'metrics',
  'replicas',
  'session_key',
  'publish_mode',
  'resource_url',
];
const PUBLISH_MODE_NAMES = ['host-network', 'ingress'];
/** A Terraform variable name. */
const VARIABLE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/**
 * Read and check a manifest. Every mistake found is reported, one per line, as `FILE:LINE:COL: PATH: REASON`.
 * @throws ManifestError
 */
export function readManifest(file: string, text: string): ManifestDocument {
  return new Reader(file, text).read();
}

class Reader {
  private readonly lines = new LineCounter();
  private readonly errors: { line: number; column: number; text: string }[] = [];

  public constructor(
    private readonly file: string,
    private readonly text: string,
  ) {}

  public read(): ManifestDocument {
    const doc = parseDocument(this.text, { lineCounter: this.lines, uniqueKeys: true, prettyErrors: true });
    if (doc.errors.length > 0) {
      // the first syntax error only: the ones after it are usually its echoes
      const problem = explainYamlErrors(doc.errors, this.text, this.lines);
      this.push(problem.line, problem.column, problem.message);
    }
    this.throwIfErrors();

    const root = doc.contents;
    const result = {
      services: [] as ManifestService[],
      gateways: [] as ManifestGateway[],
      dashboards: [] as ManifestDashboard[],
    };
    if (!isMap(root)) {
      this.error(root, '', 'expected a map with `services` and `gateways`');
    } else {
      this.checkKeys(root, '', ['services', 'gateways', 'dashboards']);
      const services = this.child(root, 'services');
      const gateways = this.child(root, 'gateways');
      if (services === undefined) this.error(root, '', 'missing required key `services`');
      else if (this.expectMap(services, 'services')) {
        for (const [name, node, key] of this.entries(services as YAMLMap)) {
          const service = this.service(name, node, key);
          if (service !== undefined) result.services.push(service);
        }
      }
      if (gateways === undefined) this.error(root, '', 'missing required key `gateways`');
      else if (this.expectMap(gateways, 'gateways')) {
        // every declared name counts, also of services with mistakes, so that one mistake is reported once
        const known = isMap(services) ? this.entries(services).map(([name]) => name) : [];
        for (const [name, node, key] of this.entries(gateways as YAMLMap)) {
          const gateway = this.gateway(name, node, key, known);
          if (gateway !== undefined) result.gateways.push(gateway);
        }
      }
      const dashboards = this.child(root, 'dashboards');
      if (dashboards !== undefined && this.expectMap(dashboards, 'dashboards')) {
        const known = isMap(gateways) ? this.entries(gateways).map(([name]) => name) : [];
        for (const [name, node, key] of this.entries(dashboards as YAMLMap)) {
          const dashboard = this.dashboard(name, node, key, known);
          if (dashboard !== undefined) result.dashboards.push(dashboard);
        }
      }
    }
    this.throwIfErrors();
    return result;
  }

  private service(name: string, node: Node | null, key: Node): ManifestService | undefined {
    const path = `services.${name}`;
    if (!this.expectMap(node, path)) return undefined;
    const map = node as YAMLMap;
    this.checkKeys(map, path, SERVICE_KEYS);
    const endpointNode = this.required(map, path, 'endpoint');
    let endpoint: ManifestService['endpoint'] | undefined;
    if (endpointNode !== undefined && this.expectMap(endpointNode, `${path}.endpoint`)) {
      const e = endpointNode as YAMLMap;
      this.checkKeys(e, `${path}.endpoint`, ['url', 'method', 'headers', 'tls']);
      const url = this.value(this.required(e, `${path}.endpoint`, 'url'), `${path}.endpoint.url`, 'string');
      const method = this.oneOf(
        this.required(e, `${path}.endpoint`, 'method'),
        `${path}.endpoint.method`,
        BACKEND_METHODS,
      );
      const headers = this.headers(this.child(e, 'headers'), `${path}.endpoint.headers`);
      const tls = this.tls(this.child(e, 'tls'), `${path}.endpoint.tls`);
      if (url !== undefined && method !== undefined) {
        endpoint = {
          url: url as string,
          method: method as BackendMethod,
          ...(headers ? { headers } : {}),
          ...(tls ? { tls } : {}),
        };
      }
    }
    const inputNode = this.child(map, 'input');
    let input: InputSpec | undefined;
    if (inputNode !== undefined) input = this.params(inputNode, `${path}.input`);
    const schemaNode = this.child(map, 'input_schema');
    let inputSchema: Record<string, unknown> | undefined;
    if (schemaNode !== undefined && this.expectMap(schemaNode, `${path}.input_schema`)) {
      inputSchema = (schemaNode as YAMLMap).toJSON() as Record<string, unknown>;
    }
    if (inputNode !== undefined && schemaNode !== undefined) {
      this.error(schemaNode, `${path}.input_schema`, 'set either `input` or `input_schema`, not both');
    }
    const timeoutMs = this.optional(map, path, 'timeout_ms', 'integer') as number | undefined;
    const containerNode = this.child(map, 'container');
    const container = containerNode === undefined ? undefined : this.container(containerNode, `${path}.container`);
    if (endpoint === undefined) return undefined;
    return {
      name,
      description: this.optional(map, path, 'description', 'string') as string | undefined,
      endpoint,
      input,
      inputSchema,
      timeoutMs,
      container,
      forwardIdentity: this.optional(map, path, 'forward_identity', 'boolean') as boolean | undefined,
      requiredScopes: this.optional(map, path, 'required_scopes', 'strings') as string[] | undefined,
      at: this.location(key, path),
      inputAt: inputNode === undefined ? undefined : this.location(inputNode, `${path}.input`),
    };
  }

  private gateway(name: string, node: Node | null, key: Node, known: readonly string[]): ManifestGateway | undefined {
    const path = `gateways.${name}`;
    if (!this.expectMap(node, path)) return undefined;
    const map = node as YAMLMap;
    this.checkKeys(map, path, GATEWAY_KEYS);
    const services = this.gatewayServices(this.required(map, path, 'services'), path, known);
    const auth = this.auth(this.required(map, path, 'auth'), `${path}.auth`);
    const portNode = this.child(map, 'port');
    const auditNode = this.child(map, 'audit_log');
    let auditLog: ManifestGateway['auditLog'];
    if (auditNode !== undefined) {
      if (isMap(auditNode)) {
        this.checkKeys(auditNode, `${path}.audit_log`, ['path']);
        const file = this.value(
          this.required(auditNode, `${path}.audit_log`, 'path'),
          `${path}.audit_log.path`,
          'string',
        );
        if (file !== undefined) auditLog = { path: file as string };
      } else {
        auditLog = this.value(auditNode, `${path}.audit_log`, 'boolean', 'expected a boolean or { path }') as boolean;
      }
    }
    const replicasNode = this.child(map, 'replicas');
    const replicas = this.value(replicasNode, `${path}.replicas`, 'integer') as number | undefined;
    if (replicas !== undefined && replicas < 1)
      this.error(replicasNode!, `${path}.replicas`, 'expected an integer >= 1');
    const sessionKeyVariable = this.sessionKey(this.child(map, 'session_key'), `${path}.session_key`);
    if (auth === undefined) return undefined;
    return {
      name,
      services,
      replicas,
      sessionKeyVariable,
      publishMode: this.oneOf(this.child(map, 'publish_mode'), `${path}.publish_mode`, PUBLISH_MODE_NAMES) as
        PublishMode | undefined,
      validateInput: this.optional(map, path, 'validate_input', 'boolean') as boolean | undefined,
      validationErrors: this.oneOf(
        this.child(map, 'validation_errors'),
        `${path}.validation_errors`,
        VALIDATION_CHANNELS,
      ) as ValidationErrorsChannel | undefined,
      auth,
      auditLog,
      port: portNode === undefined ? undefined : this.port(portNode, `${path}.port`),
      baseImage: this.optional(map, path, 'base_image', 'string') as string | undefined,
      allowedHosts: this.optional(map, path, 'allowed_hosts', 'strings') as string[] | undefined,
      allowedOrigins: this.optional(map, path, 'allowed_origins', 'strings') as string[] | undefined,
      hostIp: this.optional(map, path, 'host_ip', 'string') as string | undefined,
      metrics: this.metrics(this.child(map, 'metrics'), `${path}.metrics`),
      resourceUrl: this.optional(map, path, 'resource_url', 'string') as string | undefined,
      at: this.location(key, path),
    };
  }

  /** A gateway's `services`: names of declared services, each once. */
  private gatewayServices(servicesNode: Node | undefined, path: string, known: readonly string[]): string[] {
    const services: string[] = [];
    if (servicesNode !== undefined && this.expectList(servicesNode, `${path}.services`)) {
      const items = (servicesNode as { items: unknown[] }).items as Node[];
      if (items.length === 0) this.error(servicesNode, `${path}.services`, 'expected at least one service name');
      items.forEach((item, i) => {
        const itemPath = `${path}.services[${i}]`;
        const service = this.value(item, itemPath, 'string') as string | undefined;
        if (service === undefined) return;
        if (!known.includes(service)) {
          this.error(
            item,
            itemPath,
            `unknown service \`${service}\` (declared services: ${known.join(', ') || 'none'})`,
          );
        } else if (services.includes(service)) {
          this.error(item, itemPath, `service \`${service}\` is listed twice`);
        } else services.push(service);
      });
    }
    return services;
  }

  /** A `dashboards` entry: `gateways` (names), `auth`, `port`, `retention_days`, `flag`. */
  private dashboard(
    name: string,
    node: Node | null,
    key: Node,
    known: readonly string[],
  ): ManifestDashboard | undefined {
    const path = `dashboards.${name}`;
    if (!this.expectMap(node, path)) return undefined;
    const map = node as YAMLMap;
    this.checkKeys(map, path, ['gateways', 'auth', 'port', 'retention_days', 'flag', 'base_image']);
    const gateways = (this.optional(map, path, 'gateways', 'strings') as string[] | undefined) ?? [];
    if (this.child(map, 'gateways') === undefined) this.error(map, path, 'missing required key `gateways`');
    for (const gateway of gateways) {
      if (!known.includes(gateway)) {
        this.error(
          this.child(map, 'gateways')!,
          `${path}.gateways`,
          `unknown gateway \`${gateway}\` (declared gateways: ${known.join(', ') || 'none'})`,
        );
      }
    }
    // A dashboard takes static tokens only.
    const auth = this.auth(this.required(map, path, 'auth'), `${path}.auth`, false) as
      ManifestDashboard['auth'] | undefined;
    const portNode = this.child(map, 'port');
    const flagNode = this.child(map, 'flag');
    let flag: ManifestDashboard['flag'];
    if (flagNode !== undefined && this.expectMap(flagNode, `${path}.flag`)) {
      this.checkKeys(flagNode as YAMLMap, `${path}.flag`, ['min_refusals', 'min_rate']);
      flag = {
        minRefusals: this.optional(flagNode as YAMLMap, `${path}.flag`, 'min_refusals', 'integer') as
          number | undefined,
        minRate: this.optional(flagNode as YAMLMap, `${path}.flag`, 'min_rate', 'number') as number | undefined,
      };
    }
    if (auth === undefined) return undefined;
    return {
      name,
      gateways,
      auth,
      port: portNode === undefined ? undefined : this.port(portNode, `${path}.port`),
      retentionDays: this.optional(map, path, 'retention_days', 'integer') as number | undefined,
      flag,
      baseImage: this.optional(map, path, 'base_image', 'string') as string | undefined,
      at: this.location(key, path),
    };
  }

  /** `metrics: true | false | { port }`. */
  private metrics(node: Node | undefined, path: string): ManifestGateway['metrics'] {
    if (node === undefined) return undefined;
    if (!isMap(node)) return this.value(node, path, 'boolean', 'expected a boolean or { port }') as boolean | undefined;
    this.checkKeys(node, path, ['port']);
    const port = this.port(this.required(node, path, 'port'), `${path}.port`);
    return port === undefined ? undefined : { port };
  }

  /** `session_key: { variable: NAME }`: the name of a sensitive Terraform variable, never a key. */
  private sessionKey(node: Node | undefined, path: string): string | undefined {
    if (node === undefined) return undefined;
    const expected =
      'expected { variable: NAME } naming a sensitive Terraform variable (set it with TF_VAR_NAME); never the key itself';
    if (!isMap(node)) {
      // never echo the value: it may be the key
      this.error(node, path, expected);
      return undefined;
    }
    this.checkKeys(node, path, ['variable']);
    const variableNode = this.required(node, path, 'variable');
    const variable = this.value(variableNode, `${path}.variable`, 'string') as string | undefined;
    if (variable !== undefined && !VARIABLE_NAME_RE.test(variable)) {
      this.error(
        variableNode!,
        `${path}.variable`,
        'expected a Terraform variable name (letters, digits, _ and -, not starting with a digit)',
      );
      return undefined;
    }
    return variable;
  }

  private auth(node: Node | undefined, path: string, withOAuth = true): GatewayAuth | undefined {
    if (node === undefined) return undefined;
    if (isScalar(node) && node.value === 'none') return 'none';
    if (!isMap(node)) {
      this.error(node, path, 'expected `none` or { tokens: [{ id, sha256 }], oauth: { issuer } }');
      return undefined;
    }
    this.checkKeys(node, path, withOAuth ? ['tokens', 'oauth'] : ['tokens']);
    const oauth = withOAuth ? this.oauth(this.child(node, 'oauth'), `${path}.oauth`) : undefined;
    const tokensNode = withOAuth ? this.child(node, 'tokens') : this.required(node, path, 'tokens');
    if (tokensNode === undefined) {
      if (oauth === undefined && withOAuth) this.error(node, path, 'set `tokens`, `oauth` or both');
      return oauth === undefined ? undefined : { oauth };
    }
    if (!this.expectList(tokensNode, `${path}.tokens`)) return undefined;
    const tokens: { id: string; sha256: string; scopes?: string[] }[] = [];
    ((tokensNode as { items: unknown[] }).items as Node[]).forEach((item, i) => {
      const tpath = `${path}.tokens[${i}]`;
      if (!this.expectMap(item, tpath)) return;
      const t = item as YAMLMap;
      this.checkKeys(t, tpath, ['id', 'sha256', 'scopes']);
      const scopes = this.optional(t, tpath, 'scopes', 'strings') as string[] | undefined;
      const id = this.value(this.required(t, tpath, 'id'), `${tpath}.id`, 'string') as string | undefined;
      const shaNode = this.required(t, tpath, 'sha256');
      const sha256 = this.value(shaNode, `${tpath}.sha256`, 'string') as string | undefined;
      // the Gateway construct's rule, checked here to report it at the value rather than at the gateway
      const checked = sha256 === undefined ? undefined : normalizeTokenSha256(sha256);
      if (checked !== undefined && 'problem' in checked) this.error(shaNode!, `${tpath}.sha256`, checked.problem);
      else if (id !== undefined && sha256 !== undefined)
        tokens.push({ id, sha256, ...(scopes !== undefined ? { scopes } : {}) });
    });
    return { tokens, ...(oauth !== undefined ? { oauth } : {}) };
  }

  /** `auth.oauth` in snake_case (`jwks_uri`, `principal_claim`, `allow_plain_jwt`); the Gateway checks the values. */
  private oauth(node: Node | undefined, path: string): GatewayOAuth | undefined {
    if (node === undefined || !this.expectMap(node, path)) return undefined;
    const map = node as YAMLMap;
    this.checkKeys(map, path, [
      'issuer',
      'audience',
      'jwks_uri',
      'scopes',
      'principal_claim',
      'algorithms',
      'allow_plain_jwt',
    ]);
    const issuer = this.value(this.required(map, path, 'issuer'), `${path}.issuer`, 'string') as string | undefined;
    if (issuer === undefined) return undefined;
    const opt = (key: string, kind: 'string' | 'strings' | 'boolean'): unknown => this.optional(map, path, key, kind);
    const fields: Record<string, unknown> = {
      audience: opt('audience', 'string'),
      jwksUri: opt('jwks_uri', 'string'),
      scopes: opt('scopes', 'strings'),
      principalClaim: opt('principal_claim', 'string'),
      algorithms: opt('algorithms', 'strings'),
      allowPlainJwt: opt('allow_plain_jwt', 'boolean'),
    };
    return { issuer, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) } as GatewayOAuth;
  }

  private params(node: Node, path: string): InputSpec | undefined {
    if (!this.expectMap(node, path)) return undefined;
    const spec: Record<string, ParamSpec> = {};
    for (const [name, value] of this.entries(node as YAMLMap)) {
      const param = this.param(value, `${path}.${name}`);
      if (param !== undefined) spec[name] = param;
    }
    return spec;
  }

  private param(node: Node | null, path: string): ParamSpec | undefined {
    if (!this.expectMap(node, path)) return undefined;
    const spec: Record<string, unknown> = {};
    for (const pair of (node as YAMLMap).items) {
      const keyNode = pair.key as Node;
      const key = isScalar(keyNode) ? String(keyNode.value) : '';
      const name = key in PARAM_KEYS ? key : SNAKE_PARAM_KEYS.get(key);
      if (name === undefined) {
        this.error(
          keyNode,
          `${path}.${key}`,
          `unknown key \`${key}\` (expected one of: ${Object.keys(PARAM_KEYS).join(', ')})`,
        );
        continue;
      }
      if (name in spec) {
        this.error(keyNode, `${path}.${key}`, `\`${key}\` repeats \`${name}\`: keep one spelling`);
        continue;
      }
      const value = pair.value as Node | null;
      const kind = PARAM_KEYS[name];
      const parsed =
        kind === 'param'
          ? this.param(value, `${path}.${key}`)
          : kind === 'params'
            ? value === null
              ? undefined
              : this.params(value, `${path}.${key}`)
            : name === 'type'
              ? this.oneOf(value ?? undefined, `${path}.${key}`, PARAM_TYPES)
              : this.value(value, `${path}.${key}`, kind);
      if (parsed !== undefined) spec[name] = parsed;
    }
    if (!(node as YAMLMap).has('type')) this.error(node, path, 'missing required key `type`');
    return spec as unknown as ParamSpec;
  }

  /** `container: { image | build, port, env? }`. */
  private container(node: Node, cpath: string): ServiceContainer | undefined {
    if (!this.expectMap(node, cpath)) return undefined;
    const c = node as YAMLMap;
    this.checkKeys(c, cpath, ['image', 'build', 'port', 'env']);
    const imageNode = this.child(c, 'image');
    const buildNode = this.child(c, 'build');
    if ((imageNode === undefined) === (buildNode === undefined)) {
      this.error(c, cpath, 'set exactly one of `image` and `build`');
    }
    const image = this.value(imageNode, `${cpath}.image`, 'string') as string | undefined;
    const build = buildNode === undefined ? undefined : this.build(buildNode, `${cpath}.build`);
    const port = this.port(this.required(c, cpath, 'port'), `${cpath}.port`);
    const env = this.env(this.child(c, 'env'), `${cpath}.env`);
    if ((image === undefined && build === undefined) || port === undefined) return undefined;
    return { ...(image !== undefined ? { image } : { build }), port, ...(env ? { env } : {}) };
  }

  /** `headers:` a map of header name to a string or `{ secret: NAME }`. */
  private headers(node: Node | undefined, path: string): Record<string, string | Secret> | undefined {
    if (node === undefined || !this.expectMap(node, path)) return undefined;
    const headers: Record<string, string | Secret> = {};
    for (const [name, value] of this.entries(node as YAMLMap)) {
      const vpath = `${path}.${name}`;
      if (isMap(value)) {
        this.checkKeys(value, vpath, ['secret']);
        const secret = this.value(this.required(value, vpath, 'secret'), `${vpath}.secret`, 'string') as
          string | undefined;
        if (secret === undefined) continue;
        try {
          headers[name] = Secret.env(secret);
        } catch (err) {
          this.error(value, `${vpath}.secret`, (err as Error).message.replace(/^Secret\.env\([^)]*\): /, ''));
        }
      } else {
        const text = this.value(value, vpath, 'string', 'expected a string or { secret: NAME }') as string | undefined;
        if (text !== undefined) headers[name] = text;
      }
    }
    return headers;
  }

  /** `tls: { ca_file: PATH }` (relative to the manifest's directory) or `tls: { ca_secret: NAME }`. */
  private tls(node: Node | undefined, path: string): ServiceEndpoint['tls'] | undefined {
    if (node === undefined || !this.expectMap(node, path)) return undefined;
    const map = node as YAMLMap;
    this.checkKeys(map, path, ['ca_file', 'ca_secret']);
    const caFile = this.optional(map, path, 'ca_file', 'string') as string | undefined;
    const caSecret = this.optional(map, path, 'ca_secret', 'string') as string | undefined;
    if ((caFile === undefined) === (caSecret === undefined)) {
      this.error(map, path, 'set exactly one of `ca_file` and `ca_secret`');
      return undefined;
    }
    if (caFile !== undefined) return { caFile: nodePath.resolve(nodePath.dirname(this.file), caFile) };
    try {
      return { ca: Secret.env(caSecret!) };
    } catch (err) {
      this.error(
        this.child(map, 'ca_secret')!,
        `${path}.ca_secret`,
        (err as Error).message.replace(/^Secret\.env\([^)]*\): /, ''),
      );
      return undefined;
    }
  }

  /** `build: { context, dockerfile?, args? }`; the context is relative to the manifest's directory. */
  private build(node: Node, path: string): ServiceContainerBuild | undefined {
    if (!this.expectMap(node, path)) return undefined;
    const map = node as YAMLMap;
    this.checkKeys(map, path, ['context', 'dockerfile', 'args']);
    const context = this.value(this.required(map, path, 'context'), `${path}.context`, 'string') as string | undefined;
    const dockerfile = this.optional(map, path, 'dockerfile', 'string') as string | undefined;
    const args = this.env(this.child(map, 'args'), `${path}.args`);
    if (context === undefined) return undefined;
    return {
      context: nodePath.resolve(nodePath.dirname(this.file), context),
      ...(dockerfile !== undefined ? { dockerfile } : {}),
      ...(args !== undefined ? { args } : {}),
    };
  }

  private env(node: Node | undefined, path: string): Record<string, string> | undefined {
    if (node === undefined || !this.expectMap(node, path)) return undefined;
    const env: Record<string, string> = {};
    for (const [name, value] of this.entries(node as YAMLMap)) {
      // `PORT: 8080` is natural YAML; environment values are strings either way
      if (isScalar(value) && ['string', 'number', 'boolean'].includes(typeof value.value))
        env[name] = String(value.value);
      else this.error(value, `${path}.${name}`, 'expected a string');
    }
    return env;
  }

  private port(node: Node | undefined, path: string): number | undefined {
    const port = this.value(node ?? null, path, 'integer') as number | undefined;
    if (port !== undefined && (port < 1 || port > 65535)) {
      this.error(node!, path, 'expected an integer between 1 and 65535');
      return undefined;
    }
    return port;
  }

  private oneOf(node: Node | undefined, path: string, allowed: readonly string[]): string | undefined {
    if (node === undefined) return undefined;
    if (isScalar(node) && typeof node.value === 'string' && allowed.includes(node.value)) return node.value;
    this.error(node, path, `expected one of ${allowed.join(', ')}`);
    return undefined;
  }

  private optional(map: YAMLMap, path: string, key: string, kind: Kind): unknown {
    const node = this.child(map, key);
    return node === undefined ? undefined : this.value(node, `${path}.${key}`, kind);
  }

  /** A scalar or list value of the expected kind, or undefined after reporting the mistake. */
  private value(node: Node | null | undefined, path: string, kind: Kind, expectation?: string): unknown {
    if (node === undefined) return undefined;
    const v: unknown = isScalar(node) ? node.value : undefined;
    const ok = (() => {
      switch (kind) {
        case 'string':
          return typeof v === 'string';
        case 'boolean':
          return typeof v === 'boolean';
        case 'integer':
          return Number.isInteger(v);
        case 'number':
          return typeof v === 'number' && Number.isFinite(v);
        case 'any':
          return node !== null;
        case 'strings':
          return isSeq(node) && node.items.every((i) => isScalar(i) && typeof i.value === 'string');
        case 'scalars':
          return (
            isSeq(node) &&
            node.items.every((i) => isScalar(i) && ['string', 'number', 'boolean'].includes(typeof i.value))
          );
        default:
          return false;
      }
    })();
    if (ok) return kind === 'any' || kind === 'strings' || kind === 'scalars' ? (node as Node).toJSON() : v;
    const expected: Record<string, string> = {
      string: 'expected a string',
      boolean: 'expected a boolean',
      integer: 'expected an integer',
      number: 'expected a number',
      any: 'expected a value',
      strings: 'expected a list of strings',
      scalars: 'expected a list of strings, numbers or booleans (never null)',
    };
    this.error(node, path, expectation ?? expected[kind]);
    return undefined;
  }

  private expectMap(node: Node | null | undefined, path: string): boolean {
    if (isMap(node)) return true;
    this.error(node ?? null, path, 'expected a map');
    return false;
  }

  private expectList(node: Node, path: string): boolean {
    if (isSeq(node)) return true;
    this.error(node, path, 'expected a list');
    return false;
  }

  private checkKeys(map: YAMLMap, path: string, allowed: readonly string[]): void {
    for (const pair of map.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!allowed.includes(key)) {
        this.error(
          pair.key as Node,
          path === '' ? key : `${path}.${key}`,
          `unknown key \`${key}\` (expected one of: ${allowed.join(', ')})`,
        );
      }
    }
  }

  private entries(map: YAMLMap): [string, Node | null, Node][] {
    return map.items.map((pair) => [
      isScalar(pair.key) ? String(pair.key.value) : '',
      pair.value as Node | null,
      pair.key as Node,
    ]);
  }

  private child(map: YAMLMap, key: string): Node | undefined {
    const pair = map.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (pair === undefined) return undefined;
    // `key:` with nothing after it: an empty null scalar; report it at the key, where the reader looks
    const value = pair.value as Node | null;
    if (value === null || (isScalar(value) && value.value === null && value.range?.[0] === value.range?.[1])) {
      return Object.assign(new Scalar(null), { range: (pair.key as Node).range });
    }
    return value;
  }

  private required(map: YAMLMap, path: string, key: string): Node | undefined {
    const node = this.child(map, key);
    if (node === undefined) this.error(map, path, `missing required key \`${key}\``);
    return node;
  }

  private location(node: Node | null, path: string): ManifestLocation {
    const offset = node?.range?.[0] ?? 0;
    const pos = this.lines.linePos(offset);
    return { line: pos.line, column: pos.col, path };
  }

  private error(node: Node | null, path: string, message: string): void {
    const at = this.location(node, path);
    this.push(at.line, at.column, path === '' ? message : `${path}: ${message}`);
  }

  private push(line: number, column: number, message: string): void {
    this.errors.push({ line, column, text: `${this.file}:${line}:${column}: ${message}` });
  }

  private throwIfErrors(): void {
    if (this.errors.length === 0) return;
    const [first] = this.errors;
    throw new ManifestError(this.errors.map((e) => e.text).join('\n'), this.file, first.line, first.column);
  }
}
