import { Annotations, TerraformStack } from 'cdktf';
import { Construct, IConstruct } from 'constructs';
import { Container, type ContainerConfig } from '@cdktf/provider-docker/lib/container';
import { Image } from '@cdktf/provider-docker/lib/image';
import {
  BACKEND_METHODS,
  BackendMethod,
  BackendTlsConfig,
  DEFAULT_SERVICE_TIMEOUT_MS,
  ENV_NAME_PATTERN,
  ENV_NAME_RE,
  fixedQueryClash,
  hasPlaceholderBeforePath,
  HeaderValueConfig,
  hasUserInfo,
  isHttpUrl,
  USER_INFO_ADVICE,
  isPort,
  MAX_SERVICE_TIMEOUT_MS,
  NAME_RULE,
  placeholderFields,
  PORT_RULE,
  TOOL_NAME_RE,
  RateLimitConfig,
  ToolConfig,
  withStandIns,
} from '../src/config';
import { aliasesOf, forwardAsOf, generateInputSchema, InputSpec, toolDescription } from '../src/schema';
import { compileToolSchema } from '../src/validation';
import { constructId } from './construct-id';
import { dockerName, quote } from './docker-names';
import { WAIT_TIMEOUT_SECONDS } from './gateway-container';
import { GatewayNetwork } from './gateway-network';
import { Secret } from './secret';
import { checkHeaders, checkTls, GatewayUpload, ServiceTls } from './service-endpoint';
import { BackendImages, checkBuild, ServiceContainerBuild } from './service-image';
import { checkScopes } from './oauth-props';
import { resolveResponse, type ServiceResponse } from './service-response';
import { checkRateLimits, type ServiceRateLimit } from './rate-limits';
import { checkKnownProps, checkNestedProps, propsReport, type PropKeys } from './known-props';

/** The label that marks a service's backend container. */
export const SERVICE_LABEL = 'cdktf-mcp-gateway.service';

/** Where the gateway sends a tool call. */
export interface ServiceEndpoint {
  /**
   * Absolute `http://` or `https://` URL. `{field}` placeholders name forwarded fields; they are filled
   * URL-encoded and removed from the query or body, e.g. `http://crm:8080/customers/{customer_id}`.
   */
  readonly url: string;
  /** `GET` and `DELETE` send the arguments as the query; the others as a JSON body. */
  readonly method: BackendMethod;
  /**
   * Headers sent to the backend on every call: literal values, or `Secret.env('NAME')` (the gateway config holds
   * only the name; give the value in `Gateway.secrets`). `Authorization` is allowed; the connection's own headers
   * (`Host`, `Content-Length`, `Connection`, `Transfer-Encoding`, `Proxy-*`, …), `Accept`, `Content-Type`,
   * `User-Agent` and `X-MCP-*` are reserved. The caller's own headers are never forwarded.
   * @default - none
   */
  readonly headers?: Readonly<Record<string, string | Secret>>;
  /**
   * The CA certificates an `https://` backend's certificate must chain to.
   * @default - Node's bundled CA certificates
   */
  readonly tls?: ServiceTls;
  /**
   * For `POST`, `PUT` and `PATCH`: the fields sent as the query instead of in the JSON body (as an OpenAPI
   * operation's query parameters are). `GET` and `DELETE` send every field as the query already.
   * @default - none: every field not in the URL goes in the body
   */
  readonly queryParams?: readonly string[];
  /**
   * For `POST`, `PUT` and `PATCH`: the field whose value is sent as the whole JSON body (an array, a scalar, an
   * object of any shape), instead of an object of the fields; no body when the call leaves it out.
   * @default - none: the body is the object of the fields
   */
  readonly bodyParam?: string;
}

/** A backend container to deploy next to the gateways (on the stack's Docker network). Set `image` or `build`. */
export interface ServiceContainer {
  /**
   * The image to run, e.g. `acme/crm:1.4`; pulled by the Docker provider.
   * @default - unless `build` is set: one of the two is required
   */
  readonly image?: string;
  /**
   * Build the image from a Docker build context at deploy (`docker_image` with a build block, rebuilt when the
   * context changes).
   * @default - unless `image` is set: one of the two is required
   */
  readonly build?: ServiceContainerBuild;
  /** The port the backend listens on inside its container (should match the endpoint URL's port). */
  readonly port: number;
  /**
   * Environment variables of the backend container.
   * @default - none
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * How Docker checks that the backend is healthy, so that `cdktf deploy` returns only once it is: a command run
   * inside the container (exit 0 = healthy, e.g. `['node', 'healthcheck.js']`), or `'image'` for the image's own
   * `HEALTHCHECK`.
   * @default - no check: the deploy waits only for the container to start
   */
  readonly healthcheck?: readonly string[] | 'image';
}

/** Props of a `Service`. */
export interface ServiceProps {
  /**
   * The MCP tool name, `^[A-Za-z0-9_.-]{1,64}$`.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * What the tool does, for the agent. Nested required fields add a one-line call shape at the end.
   * @default - no description (only the call shape, if any)
   */
  readonly description?: string;
  /**
   * The declared input (see docs/input-and-validation.md); the advertised JSON Schema is generated from it.
   * Set at most one of `input` and `inputSchema`.
   * @default - parameterless, unless `inputSchema` is set
   */
  readonly input?: InputSpec;
  /**
   * Escape hatch: a raw JSON Schema (draft 2020-12) describing the arguments object, validated as written.
   * @default - generated from `input`
   */
  readonly inputSchema?: Record<string, unknown>;
  /** The backend the tool calls. */
  readonly endpoint: ServiceEndpoint;
  /**
   * How long the gateway waits for the backend, in milliseconds (1-600000).
   * @default 10000
   */
  readonly timeoutMs?: number;
  /**
   * Also deploy the backend: a container on the stack's network, reachable under the endpoint URL's host.
   * @default - the backend is deployed elsewhere
   */
  readonly container?: ServiceContainer;
  /**
   * Send the caller to the backend: `X-MCP-Principal` (the token id) and `X-MCP-Client` (the MCP client's name),
   * each percent-encoded outside printable ASCII.
   * @default false
   */
  readonly forwardIdentity?: boolean;
  /**
   * Whether a call may be sent twice: a request lost with its connection before the answer's headers (a backend
   * replica gone with the connection the gateway reused) is sent again, once, on a new connection. Set it for a
   * POST that is safe to repeat; set `false` for a GET that is not.
   * @default - by method: true for GET, PUT and DELETE (HTTP's idempotent methods), false for POST and PATCH
   */
  readonly idempotent?: boolean;
  /**
   * Scopes a caller needs to see and call this tool (OAuth tokens, and static tokens given `scopes`); callers
   * without scopes (a static token without `scopes`) are not restricted.
   * @default - none
   */
  readonly requiredScopes?: readonly string[];
  /**
   * The declared output, in the language of `input`: advertised as the tool's `outputSchema` (closed objects,
   * no `null`) and, while the gateway's `validateOutput` is on, checked against every 2xx response (a response
   * that does not conform reaches the agent as `Service returned an invalid response: …`).
   * Set at most one of `output` and `outputSchema`.
   * @default - no declared output, unless `outputSchema` is set
   */
  readonly output?: InputSpec;
  /**
   * Escape hatch: a raw JSON Schema (draft 2020-12, `type: 'object'`) describing the structured result.
   * @default - generated from `output`
   */
  readonly outputSchema?: Record<string, unknown>;
  /**
   * What the gateway does to a 2xx response before the agent sees it: field selection, redaction, a size limit.
   * @default - the response is forwarded as the service sent it
   */
  readonly response?: ServiceResponse;
  /**
   * Limits on the calls of this service's tool by each agent, on every gateway serving it, besides the gateway's own
   * `rateLimits`, e.g. `[{ calls: 10, per: 'minute' }]` (see docs/rate-limits.md).
   * @default - none
   */
  readonly rateLimits?: readonly ServiceRateLimit[];
}

/** Every prop of {@link ServiceEndpoint}. */
const ENDPOINT_PROPS: PropKeys<ServiceEndpoint> = {
  url: true,
  method: true,
  headers: true,
  tls: true,
  queryParams: true,
  bodyParam: true,
};

/** Every prop of {@link ServiceContainer}. */
const CONTAINER_PROPS: PropKeys<ServiceContainer> = {
  image: true,
  build: true,
  port: true,
  env: true,
  healthcheck: true,
};

/** Every prop of {@link ServiceProps} (the compiler keeps it whole). */
const SERVICE_PROPS: PropKeys<ServiceProps> = {
  name: true,
  response: true,
  rateLimits: true,
  description: true,
  input: true,
  inputSchema: true,
  endpoint: true,
  timeoutMs: true,
  container: true,
  forwardIdentity: true,
  idempotent: true,
  requiredScopes: true,
  output: true,
  outputSchema: true,
};

/**
 * An HTTP backend exposed as one MCP tool. Add it to one or more `Gateway`s.
 *
 * @example
 * const getCustomer = new Service(stack, 'get_customer', {
 *   description: 'Look up a customer',
 *   endpoint: { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' },
 *   input: { customer_id: { type: 'string', required: true } },
 *   container: { image: 'acme/crm:1.4', port: 8080 },
 * });
 */
export class Service extends Construct {
  /** Whether `x` is a `Service` (works across copies of this package). */
  public static isService(x: unknown): x is Service {
    return typeof x === 'object' && x !== null && SERVICE_SYMBOL in x;
  }

  /** The MCP tool name. */
  public readonly name: string;
  /** The advertised input schema (generated or raw). */
  public readonly inputSchema: Record<string, unknown>;
  /** The description advertised to agents (with the call shape line, if any). */
  public readonly description: string;
  /** The backend endpoint. */
  public readonly endpoint: ServiceEndpoint;
  /** The backend timeout in milliseconds. */
  public readonly timeoutMs: number;
  /** The backend container, when `container` was given. */
  public readonly container?: Container;
  /** The network alias of the backend container (the endpoint URL's host), when `container` was given. */
  public readonly containerHost?: string;
  /** The secrets the gateway needs for this service (`Gateway.secrets` must give each). */
  public readonly secretNames: readonly string[];
  /** Files a gateway container serving this service needs (a CA bundle). */
  public readonly gatewayUploads: readonly GatewayUpload[];
  /** The service's own rate limits, as each gateway serving it counts them. */
  public readonly rateLimits: readonly RateLimitConfig[];

  private readonly backendExtras: {
    headers?: Record<string, HeaderValueConfig>;
    tls?: BackendTlsConfig;
    forward_identity?: true;
    idempotent?: boolean;
    query_params?: string[];
    body_param?: string;
  };

  private readonly requiredScopes: readonly string[] | undefined;
  /** `output_schema` and `response` of the tool's config, when declared. */
  private readonly responseConfig: Pick<ToolConfig, 'output_schema' | 'response'>;
  private readonly aliases: Record<string, string>;
  private readonly forwardAs: Record<string, string>;

  public constructor(scope: Construct, id: string, props: ServiceProps) {
    super(scope, constructId(id, 'Service', 'name'));
    Object.defineProperty(this, SERVICE_SYMBOL, { value: true });

    this.name = props.name ?? id;
    if (typeof this.name !== 'string' || !TOOL_NAME_RE.test(this.name)) {
      const origin = props.name === undefined ? ' (the construct id)' : '';
      throw new Error(
        `Invalid service name ${quote(this.name)}${origin}: a tool name is ${NAME_RULE}; set 'name' to a valid tool name`,
      );
    }
    const report = propsReport(this, `Service '${this.name}'`);
    const { fail } = report;
    checkKnownProps(props, SERVICE_PROPS, report);

    this.endpoint = checkEndpoint(props.endpoint, fail);
    const extras = checkBackendExtras(props, this.endpoint.url, fail);
    this.backendExtras = extras.config;
    this.secretNames = extras.secrets;
    this.gatewayUploads = extras.uploads;
    this.rateLimits = checkRateLimits('rateLimits', props.rateLimits, fail, this.name);
    this.timeoutMs = props.timeoutMs ?? DEFAULT_SERVICE_TIMEOUT_MS;
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs < 1 || this.timeoutMs > MAX_SERVICE_TIMEOUT_MS) {
      fail(
        `timeoutMs (${quote(props.timeoutMs)}) must be an integer between 1 and ${MAX_SERVICE_TIMEOUT_MS} (milliseconds)`,
      );
    }

    const input = resolveInput(props, this.name, fail);
    this.inputSchema = input.inputSchema;
    this.description = input.description;
    this.requiredScopes =
      props.requiredScopes === undefined
        ? undefined
        : checkScopes('requiredScopes', props.requiredScopes, (m) => {
            throw new Error(`Service '${this.name}': ${m}`);
          });
    this.aliases = input.aliases;
    this.forwardAs = input.forwardAs;
    this.responseConfig = resolveResponse(props, fail);
    checkPlaceholders(this.endpoint.url, this.forwardedFields(), fail);
    const clash = fixedQueryClash(this.endpoint.url, this.endpoint.method, this.inputSchema, this.forwardAs);
    if (clash !== undefined) {
      const { param, field } = clash;
      fail(
        `parameter '${param}' would be sent as query parameter '${field}', which endpoint.url already fixes (?${field}=…): ` +
          `rename the parameter, give it forwardAs: '<another name>', or remove ${field} from endpoint.url`,
      );
    }
    this.checkPlaceholdersRequired(props.inputSchema !== undefined, fail);
    this.checkBodyRouting(fail);

    if (props.container !== undefined) {
      const container = checkContainer(props.container, fail);
      this.containerHost = containerHostOf(this.endpoint.url, container, this.name, fail);
      const urlPort = portOf(this.endpoint.url);
      if (urlPort !== props.container.port) {
        Annotations.of(this).addWarning(
          `Service '${this.name}': endpoint.url uses port ${urlPort} but container.port is ${props.container.port}; ` +
            'the gateway calls the URL, so make them agree',
        );
      }
      this.container = this.createContainer(container, this.containerHost);
      this.node.addValidation({ validate: () => this.checkUniqueHost() });
    }
  }

  /** The tool's entry in the gateway config (see docs/gateway.md), with a fixed key order. */
  public toolConfig(): ToolConfig {
    const hasAliases = Object.keys(this.aliases).length > 0;
    const hasForwardAs = Object.keys(this.forwardAs).length > 0;
    return {
      name: this.name,
      description: this.description,
      input_schema: this.inputSchema,
      ...(hasAliases ? { aliases: { ...this.aliases } } : {}),
      ...(hasForwardAs ? { forward_as: { ...this.forwardAs } } : {}),
      ...this.responseConfig,
      ...(this.requiredScopes !== undefined && this.requiredScopes.length > 0
        ? { required_scopes: [...this.requiredScopes] }
        : {}),
      backend: {
        url: this.endpoint.url,
        method: this.endpoint.method,
        timeout_ms: this.timeoutMs,
        ...this.backendExtras,
      },
    };
  }

  /** Field names the backend receives, or undefined when the schema leaves them open. */
  private forwardedFields(): string[] | undefined {
    const properties = this.inputSchema.properties;
    if (typeof properties !== 'object' || properties === null) {
      // a raw schema without properties may accept anything; a generated one without any is parameterless
      return this.inputSchema.additionalProperties === false ? [] : undefined;
    }
    return Object.keys(properties).map((p) => (Object.hasOwn(this.forwardAs, p) ? this.forwardAs[p] : p));
  }

  /**
   * Every placeholder's parameter must be required: the gateway refuses a call without it (the URL would name
   * another endpoint, such as the collection `/customers/`), so the advertised schema should say so.
   */
  private checkPlaceholdersRequired(raw: boolean, fail: (m: string) => never): void {
    const required = Array.isArray(this.inputSchema.required) ? this.inputSchema.required : [];
    for (const field of placeholderFields(this.endpoint.url)) {
      const param = Object.entries(this.forwardAs).find(([, f]) => f === field)?.[0] ?? field;
      if (required.includes(param)) continue;
      const fix = raw ? `add '${param}' to inputSchema.required` : `set required: true on input.${param}`;
      fail(
        `endpoint.url placeholder {${field}} is filled from parameter '${param}', which is not required: ${fix} ` +
          '(the gateway refuses a call without it)',
      );
    }
  }

  /** `queryParams` and `bodyParam` name forwarded fields, and only a body-sending method has a body to route. */
  private checkBodyRouting(fail: (m: string) => never): void {
    const { queryParams, bodyParam, method } = this.endpoint;
    if (queryParams === undefined && bodyParam === undefined) return;
    if (method === 'GET' || method === 'DELETE') {
      fail(
        `endpoint.queryParams and endpoint.bodyParam apply to POST, PUT and PATCH; ${method} sends every field as the query`,
      );
    }
    const fields = this.forwardedFields();
    const named = [...(queryParams ?? []), ...(bodyParam !== undefined ? [bodyParam] : [])];
    for (const field of named) {
      if (typeof field !== 'string' || field === '' || (fields !== undefined && !fields.includes(field))) {
        fail(`endpoint ${quote(field)} in queryParams/bodyParam names no forwarded parameter: declare it or remove it`);
      }
    }
    if (bodyParam !== undefined && queryParams?.includes(bodyParam) === true) {
      fail(`endpoint.bodyParam ${quote(bodyParam)} is also in endpoint.queryParams: a field goes either way, not both`);
    }
  }

  private createContainer(container: ServiceContainer, host: string): Container {
    const image =
      container.build !== undefined
        ? BackendImages.of(this).imageFor(host, container.build)
        : new Image(this, 'Image', { name: container.image!, keepLocally: true });
    return new Container(this, 'Resource', {
      name: dockerName(this, this.name),
      image: image.imageId,
      restart: 'unless-stopped',
      env: Object.entries(container.env ?? {}).map(([key, value]) => `${key}=${value}`),
      labels: [{ label: SERVICE_LABEL, value: this.name }],
      networksAdvanced: [{ name: GatewayNetwork.of(this).name, aliases: [host] }],
      ...backendHealth(container.healthcheck),
    });
  }

  private checkUniqueHost(): string[] {
    const stack = TerraformStack.of(this);
    const clash = stack.node
      .findAll()
      .find((c: IConstruct) => Service.isService(c) && c !== this && c.containerHost === this.containerHost);
    if (clash === undefined) return [];
    const other = clash as Service;
    return [
      `Services '${other.name}' and '${this.name}' both deploy a container for host '${this.containerHost}': ` +
        `one network alias can name only one container; remove 'container' from all but one (services may share a backend)`,
    ];
  }
}

const SERVICE_SYMBOL = Symbol.for('cdktf-mcp-gateway.Service');

function portOf(url: string): number {
  const parsed = new URL(withStandIns(url));
  if (parsed.port !== '') return Number(parsed.port);
  return parsed.protocol === 'https:' ? 443 : 80;
}

function checkEndpoint(endpoint: ServiceEndpoint | undefined, fail: (m: string) => never): ServiceEndpoint {
  if (typeof endpoint !== 'object' || endpoint === null) {
    return fail("'endpoint' is required: { url: 'http://host:port/path', method: 'GET' | 'POST' | ... }");
  }
  checkNestedProps(endpoint, ENDPOINT_PROPS, 'endpoint', fail);
  const { url, method } = endpoint;
  if (typeof url === 'string' && hasPlaceholderBeforePath(url)) {
    // user info stays out of the message: it may hold a password
    const shown = url.replace(/^([^:/?#]*:\/\/)[^/?#]*@/, '$1…@');
    fail(
      `endpoint.url ${quote(shown)} has a placeholder in the scheme, host or port: placeholders may stand only in ` +
        'the path and query, so that callers cannot choose where the gateway connects',
    );
  }
  if (typeof url === 'string' && hasUserInfo(url)) fail(`endpoint.url ${USER_INFO_ADVICE}`);
  if (typeof url !== 'string' || !isHttpUrl(url)) {
    fail(
      `endpoint.url ${quote(url)} is not an absolute http:// or https:// URL ` +
        `(e.g. http://crm:8080/customers/{customer_id})`,
    );
  }
  if (!BACKEND_METHODS.includes(method)) {
    fail(`endpoint.method ${quote(method)} is not supported: expected one of ${BACKEND_METHODS.join(', ')}`);
  }
  return {
    url,
    method,
    ...(endpoint.headers !== undefined ? { headers: endpoint.headers } : {}),
    ...(endpoint.tls !== undefined ? { tls: endpoint.tls } : {}),
    ...(endpoint.queryParams !== undefined ? { queryParams: endpoint.queryParams } : {}),
    ...(endpoint.bodyParam !== undefined ? { bodyParam: endpoint.bodyParam } : {}),
  };
}

/** The headers, TLS and identity settings of a service: as the config holds them, the secrets named, the uploads. */
function checkBackendExtras(props: ServiceProps, url: string, fail: (m: string) => never) {
  const headers = checkHeaders(props.endpoint.headers, fail);
  const tls = checkTls(props.endpoint.tls, url, fail);
  if (props.forwardIdentity !== undefined && typeof props.forwardIdentity !== 'boolean') {
    fail(`forwardIdentity (${quote(props.forwardIdentity)}) must be true or false`);
  }
  if (props.idempotent !== undefined && typeof props.idempotent !== 'boolean') {
    fail(`idempotent (${quote(props.idempotent)}) must be true or false`);
  }
  const secrets = [...headers.secrets];
  if (tls.secret !== undefined && !secrets.includes(tls.secret)) secrets.push(tls.secret);
  return {
    config: {
      ...(headers.headers !== undefined ? { headers: headers.headers } : {}),
      ...(tls.tls !== undefined ? { tls: tls.tls } : {}),
      ...(props.forwardIdentity === true ? { forward_identity: true as const } : {}),
      ...(props.idempotent !== undefined ? { idempotent: props.idempotent } : {}),
      ...(props.endpoint.queryParams !== undefined && props.endpoint.queryParams.length > 0
        ? { query_params: [...props.endpoint.queryParams] }
        : {}),
      ...(props.endpoint.bodyParam !== undefined ? { body_param: props.endpoint.bodyParam } : {}),
    },
    secrets,
    uploads: tls.upload === undefined ? [] : [tls.upload],
  };
}

function checkRawSchema(schema: Record<string, unknown>, fail: (m: string) => never): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema.type !== 'object') {
    fail("inputSchema must be a JSON Schema with type: 'object' (MCP tool arguments are always a JSON object)");
  }
  const compiled = compileToolSchema(schema);
  if (!compiled.ok) {
    fail(
      `inputSchema does not compile: ${compiled.error}. Fix the JSON Schema (draft 2020-12) or declare 'input' instead`,
    );
  }
  return schema;
}

function checkPlaceholders(url: string, fields: string[] | undefined, fail: (m: string) => never): void {
  if (fields === undefined) return;
  for (const field of placeholderFields(url)) {
    if (!fields.includes(field)) {
      fail(
        `endpoint.url placeholder {${field}} names no parameter: declare a top-level parameter '${field}' ` +
          `(or one with forwardAs: '${field}') or remove the placeholder`,
      );
    }
  }
}

/** The backend's health check and the deploy's wait for it, when it has one. */
function backendHealth(check: ServiceContainer['healthcheck']): Partial<ContainerConfig> {
  if (check === undefined) return {};
  const wait = { wait: true, waitTimeout: WAIT_TIMEOUT_SECONDS };
  if (check === 'image') return wait;
  return {
    ...wait,
    healthcheck: { test: ['CMD', ...check], interval: '5s', timeout: '5s', retries: 3, startPeriod: '30s' },
  };
}

function checkContainer(container: ServiceContainer, fail: (m: string) => never): ServiceContainer {
  checkNestedProps(container, CONTAINER_PROPS, 'container', fail);
  if ((container.image === undefined) === (container.build === undefined)) {
    fail("container needs exactly one of image (e.g. 'acme/crm:1.4') and build ({ context: 'backend' })");
  }
  if (container.build !== undefined) {
    container = { ...container, build: checkBuild(container.build, fail) };
  } else if (typeof container.image !== 'string' || container.image.trim() === '') {
    fail(`container.image ${quote(container.image)} must be a non-empty image reference such as 'acme/crm:1.4'`);
  }
  if (!isPort(container.port)) {
    fail(`container.port (${quote(container.port)}) must be ${PORT_RULE}`);
  }
  for (const [key, value] of Object.entries(container.env ?? {})) {
    if (!ENV_NAME_RE.test(key) || typeof value !== 'string') {
      fail(`container.env.${key} must be a string under a variable name matching ${ENV_NAME_PATTERN}`);
    }
  }
  const check = container.healthcheck;
  if (
    check !== undefined &&
    check !== 'image' &&
    !(
      Array.isArray(check) &&
      check.length > 0 &&
      check.every((part) => typeof part === 'string' && part !== '') &&
      !['CMD', 'CMD-SHELL', 'NONE'].includes(check[0])
    )
  ) {
    fail(
      `container.healthcheck (${quote(check)}) must be a command as a list of strings, e.g. ['node', 'healthcheck.js'] ` +
        "(without Docker's CMD prefix, which synthesis adds), or 'image' for the image's own HEALTHCHECK",
    );
  }
  return container;
}

/** The advertised schema, description and name maps, from `input` (generated) or `inputSchema` (raw). */
function resolveInput(
  props: ServiceProps,
  name: string,
  fail: (message: string) => never,
): {
  inputSchema: Record<string, unknown>;
  description: string;
  aliases: Record<string, string>;
  forwardAs: Record<string, string>;
} {
  if (props.input !== undefined && props.inputSchema !== undefined) {
    fail("set either 'input' (declared parameters) or 'inputSchema' (a raw JSON Schema), not both");
  }
  if (props.inputSchema !== undefined) {
    return {
      inputSchema: checkRawSchema(props.inputSchema, fail),
      description: props.description ?? '',
      aliases: {},
      forwardAs: {},
    };
  }
  let resolved;
  try {
    resolved = {
      inputSchema: generateInputSchema(props.input),
      description: toolDescription(props.description ?? '', props.input),
      aliases: aliasesOf(props.input),
      forwardAs: forwardAsOf(props.input),
    };
  } catch (err) {
    // InputSpecError names the parameter path; say which service it belongs to
    throw new Error(`Service '${name}': invalid 'input': ${(err as Error).message}`);
  }
  const compiled = compileToolSchema(resolved.inputSchema);
  if (!compiled.ok) fail(`the schema generated from 'input' does not compile: ${compiled.error}`);
  return resolved;
}

/** The endpoint URL's host, which becomes the backend container's network alias; it must be a hostname. */
function containerHostOf(
  url: string,
  container: ServiceContainer,
  name: string,
  fail: (message: string) => never,
): string {
  const host = new URL(withStandIns(url)).hostname;
  if (host === 'localhost' || /^[0-9.]+$/.test(host) || host.startsWith('[')) {
    fail(
      `endpoint.url host '${host}' cannot name the backend container: the gateway reaches it by a network ` +
        `alias; use a hostname such as http://${name.replace(/[^A-Za-z0-9-]/g, '-')}:${container.port}/`,
    );
  }
  return host;
}
