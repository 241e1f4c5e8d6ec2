import { Annotations, TerraformOutput, type TerraformResource, TerraformStack } from 'cdktf';
import { Construct, IConstruct } from 'constructs';
import { Container } from '@cdktf/provider-docker/lib/container';
import { Service as DockerService } from '@cdktf/provider-docker/lib/service';
import { Volume } from '@cdktf/provider-docker/lib/volume';
import {
  DEFAULT_PORT,
  DEFAULT_VALIDATE_INPUT,
  DEFAULT_VALIDATION_ERRORS,
  AUDIT_LOG_DIR,
  GATEWAY_CONFIG_FILE,
  GATEWAY_CONFIG_VERSION,
  GATEWAY_CONTAINER_PORT,
  GATEWAY_SESSION_KEY_STORE,
  GatewayConfig,
  GatewaySettings,
  isPort,
  K8S_CONFIG_DIR,
  K8S_SESSION_KEY,
  k8sName,
  NAME_RULE,
  normalizeTokenSha256,
  PORT_RULE,
  rateLimitClashes,
  renderGatewayConfig,
  terraformLiteral,
  TokenConfig,
  TOOL_NAME_RE,
  VALIDATION_CHANNELS,
  ValidationErrorsChannel,
} from '../src/config';
import { ConfigSummary } from './config-summary';
import { constructId } from './construct-id';
import { type ContainerFile, secretFile } from './container-files';
import { quote } from './docker-names';
import { createGatewayContainer } from './gateway-container';
import { DEFAULT_BASE_IMAGE, GatewayImage } from './gateway-image';
import { type GatewayLimits, limitSettings } from './gateway-limits';
import { type GatewayResponse, patternClashes, resolveGatewayResponse, withGatewayPatterns } from './gateway-response';
import { GatewayNetwork } from './gateway-network';
import { GatewaySecrets } from './gateway-secrets';
import { checkHostIp, urlHostOf } from './host-ip';
import { checkOAuth, checkResourceUrl, checkScopes, type GatewayOAuth } from './oauth-props';
import { worded } from './refusal-wording';
import {
  checkReplicas,
  checkSessionKey,
  createGatewayService,
  type GatewayReplicaOptions,
  SESSION_KEY_PATH,
  SESSION_KEY_SECRET_FILE,
} from './gateway-service';
import { SecretsRevision } from './secrets-revision';
import { Service } from './service';
import { LimitStore } from './limit-store';
import {
  checkPlacement,
  checkRegistry,
  pushImage,
  type GatewayPlacement,
  type GatewayRegistry,
} from './gateway-registry';
import { checkRateLimits, storeConfig, type GatewayStoreOptions, type RateLimit } from './rate-limits';
import { createGatewayKubernetes } from './kubernetes/gateway-kubernetes';
import { checkKubernetes, type GatewayKubernetes, type KubernetesTarget } from './kubernetes/kubernetes-props';
import { checkKnownProps, checkNestedProps, propsReport, type PropKeys } from './known-props';
import { type GatewayToken, TOKEN_PROPS } from './gateway-token';

/**
 * Who may call a gateway: static bearer tokens, OAuth 2.1 access tokens from an issuer (see docs/auth.md), or both; or
 * `'none'` (no authentication; a synth warning).
 */
export type GatewayAuth = { readonly tokens?: readonly GatewayToken[]; readonly oauth?: GatewayOAuth } | 'none';

const AUTH_PROPS: PropKeys<Exclude<GatewayAuth, 'none'>> = { tokens: true, oauth: true };
const AUDIT_LOG_PROPS: PropKeys<Extract<GatewayProps['auditLog'], object>> = { path: true };
const METRICS_PROPS: PropKeys<Extract<GatewayProps['metrics'], object>> = { port: true };

/** Props of a `Gateway`. */
export interface GatewayProps extends GatewayLimits, GatewayReplicaOptions {
  /**
   * The gateway's name (audit log, container label and name), `^[A-Za-z0-9_.-]{1,64}$`.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * The services exposed as tools, in this order. More can be added with `addService()`.
   * @default - none yet (at least one is required by synthesis)
   */
  readonly services?: readonly Service[];
  /**
   * Check every `tools/call` against the tool's schema before the service runs.
   * @default true
   */
  readonly validateInput?: boolean;
  /**
   * Check every 2xx response of a service that declares `output` (or `outputSchema`) against it, and advertise it
   * as the tool's `outputSchema`. Off: no `outputSchema` is advertised and structured results pass unchecked;
   * the services' `response` shaping still applies.
   * @default true
   */
  readonly validateOutput?: boolean;
  /**
   * Tools per `tools/list` page, in every protocol revision: the list comes in pages with `nextCursor` while
   * more follow. Raise it for a client that reads only the first page.
   * @default 100
   */
  readonly toolsListPageSize?: number;
  /**
   * How refusals reach the agent: a JSON-RPC error (`protocol`), an `isError` tool result (`tool_result`), or
   * `tool_result` for clients of MCP 2025-11-25 or later and `protocol` for 2025-03-26 and 2025-06-18 (`auto`).
   * @default 'auto'
   */
  readonly validationErrors?: ValidationErrorsChannel;
  /**
   * Whether a refusal sent as a tool result carries `structuredContent: {violations}` beside its one-line text.
   * Turn it off for clients that show the model the structured content instead of the text (pydantic-ai does).
   * @default true
   */
  readonly refusalStructuredContent?: boolean;
  /**
   * What the gateway does to the 2xx response of every tool it serves, before the agent sees it: redaction
   * patterns a team applies everywhere (an email address, a card number), beside each service's own `response`.
   * @default - each service's `response` alone
   */
  readonly response?: GatewayResponse;
  /** Bearer tokens (by hash) allowed to call the gateway, or `'none'` to turn authentication off. */
  readonly auth: GatewayAuth;
  /**
   * One JSON line per `tools/call` in a Docker volume mounted at `/var/log/cdktf-mcp-gateway`; `{ path }` names
   * the file, which must be in that directory. `'store'` writes every replica's records to the gateway's `store`
   * instead, where an `AuditDashboard` reads them whatever node each replica runs on (no volume).
   * @default - `'store'` when the gateway has a `store`, else true (`/var/log/cdktf-mcp-gateway/audit.jsonl`)
   */
  readonly auditLog?: boolean | 'store' | { readonly path: string };
  /**
   * The host port published for the gateway's container port 8080.
   * @default 8080
   */
  readonly port?: number;
  /**
   * The Node image the gateway image is built on (Docker build arg `BASE_IMAGE`; Node >= 22, uid 1000).
   * @default 'node:22-bookworm-slim'
   */
  readonly baseImage?: string;
  /**
   * The host address the port is published on (`ports.ip`), e.g. `'127.0.0.1'` to reach the gateway only from
   * the Docker host itself, or the address of one interface. Also the host of the output URL.
   * @default - every interface of the Docker host ('0.0.0.0'); the URL says localhost
   */
  readonly hostIp?: string;
  /**
   * The URL agents reach the gateway's MCP endpoint at, e.g. `'https://mcp.example.com/mcp'` behind a TLS proxy:
   * the `resource` of its OAuth metadata and the default audience of its tokens. Used only with `auth.oauth`.
   * @default - `http://localhost:PORT/mcp` (or the `hostIp` address)
   */
  readonly resourceUrl?: string;
  /**
   * Prometheus metrics at `GET /metrics` (see docs/constructs.md): `true` on the gateway's port behind its authentication,
   * `{ port }` on a port of their own (published too) that a scraper reaches without a token.
   * @default false
   */
  readonly metrics?: boolean | { readonly port: number };
  /**
   * Values of the secrets the services name with `Secret.env('NAME')`: `{ NAME: value }`, typically sensitive
   * `TerraformVariable`s (`.stringValue`). Each reaches the gateway as the file `/run/secrets/NAME`, readable by
   * the gateway's user alone (an uploaded file, or a Docker secret with `replicas`), never its config or its
   * environment.
   * @default - none (a service naming a secret then fails synthesis)
   */
  readonly secrets?: Readonly<Record<string, string>>;
  /**
   * `Host` header values accepted (DNS-rebinding protection), e.g. `['mcp.example.com']`.
   * @default - any host (the gateway listens on all interfaces in its container)
   */
  readonly allowedHosts?: readonly string[];
  /**
   * `Origin` header values accepted, e.g. `['https://app.example.com']`. Agents usually send none.
   * @default - none: a request carrying any `Origin` is refused
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Limits on the calls of each agent (each token, each OAuth subject), of all tools together or of one `tool`,
   * e.g. `[{ calls: 60, per: 'minute' }, { tool: 'create_ticket', calls: 10, per: 'minute' }, { calls: 10000,
   * per: 'day' }]`. A call over a limit gets HTTP 429 and JSON-RPC -32023 (docs/rate-limits.md). A service's own
   * `rateLimits` apply besides these.
   * @default - no limit
   */
  readonly rateLimits?: readonly RateLimit[];
  /**
   * Where the gateway's processes share rate limits and ended sessions: a `LimitStore` deployed beside it (with
   * `kubernetes` set when the gateway has it), or the `url` (and `password`) of a Redis or Valkey server of your own.
   * @default - none: limits count per gateway process (per replica), and a `DELETE` ends a session in the replica
   *   that receives it
   */
  readonly store?: LimitStore | GatewayStoreOptions;
  /**
   * With `replicas` on a multi-node Swarm: the registry the image reaches every node through (pushed by the
   * stack, pulled by digest). Only with `replicas`.
   * @default - none: the tasks run the image built on the manager, so they run on the manager only
   */
  readonly registry?: GatewayRegistry;
  /**
   * With `replicas`: where the tasks may run (constraints, a per-node limit). Replicas are spread over the eligible
   * nodes in any case.
   * @default - any node, spread
   */
  readonly placement?: GatewayPlacement;
  /**
   * Deploy to Kubernetes instead of Docker: a namespace of the gateway's own with a Deployment of `replicas` pods
   * (2 unless set), a Service, a PodDisruptionBudget, the config and its secrets. The pods run the image the stack
   * builds and pushes to `registry`, or `kubernetes.image`. The stack needs the hashicorp/kubernetes provider
   * (`KubernetesCluster`). See docs/kubernetes.md.
   * @default - Docker: one container, or a Swarm service with `replicas`
   */
  readonly kubernetes?: GatewayKubernetes;
}

/** The secret a `LimitStore`'s password reaches the gateway as (`/run/secrets/NAME`). */
const LIMIT_STORE_PASSWORD_SECRET = 'MCP_LIMIT_STORE_PASSWORD';

/** Every prop of {@link GatewayProps} (the compiler keeps it whole). */
const GATEWAY_PROPS: PropKeys<GatewayProps> = {
  name: true,
  services: true,
  validateInput: true,
  validateOutput: true,
  toolsListPageSize: true,
  validationErrors: true,
  refusalStructuredContent: true,
  response: true,
  auth: true,
  auditLog: true,
  port: true,
  baseImage: true,
  hostIp: true,
  resourceUrl: true,
  metrics: true,
  secrets: true,
  allowedHosts: true,
  allowedOrigins: true,
  rateLimits: true,
  store: true,
  registry: true,
  placement: true,
  kubernetes: true,
  maxBodyBytes: true,
  maxResponseBytes: true,
  maxHeldResponseBytes: true,
  maxConcurrentCalls: true,
  maxConcurrentCallsPerPrincipal: true,
  maxRevokedSessionsPerPrincipal: true,
  headerTimeoutMs: true,
  requestTimeoutMs: true,
  writeTimeoutMs: true,
  maxConnectionsPerAddress: true,
  sessionTtlMs: true,
  maxStreamsPerPrincipal: true,
  toolsListTtlMs: true,
  replicas: true,
  sessionKey: true,
  publishMode: true,
};

/**
 * An MCP server exposing a chosen set of services to a group of agents, deployed as a Docker container that
 * runs the gateway image with the generated config.
 *
 * @example
 * new Gateway(stack, 'support', {
 *   services: [getCustomer],
 *   auth: { tokens: [{ id: 'support-bot', sha256: process.env.SUPPORT_BOT_TOKEN_SHA256! }] },
 *   port: 8080,
 * });
 */
export class Gateway extends Construct {
  /** Whether `x` is a `Gateway` (works across copies of this package). */
  public static isGateway(x: unknown): x is Gateway {
    return typeof x === 'object' && x !== null && GATEWAY_SYMBOL in x;
  }

  /** The gateway's name. */
  public readonly name: string;
  /** The published host port. */
  public readonly port: number;
  /**
   * The MCP endpoint on the Docker host, `http://localhost:PORT/mcp` (or `http://HOST_IP:PORT/mcp`); on Kubernetes
   * its Service inside the cluster, `http://NAME.NAMESPACE.svc.cluster.local:PORT/mcp`.
   */
  public readonly url: string;
  /** The address the port is published on, when `hostIp` was given. */
  public readonly hostIp?: string;
  /** The gateway's `docker_container` (without `replicas`). */
  public readonly container?: Container;
  /** The gateway's Swarm `docker_service` (with `replicas`). */
  public readonly service?: DockerService;
  /** The Kubernetes Deployment, when the gateway sets `kubernetes`. */
  public readonly deployment?: TerraformResource;
  /**
   * The image reference the gateway's pods run, when it sets `kubernetes` (`name@sha256:…` when the stack pushed
   * it): a backend in the cluster may run on it too (it has Node).
   */
  public readonly image?: string;

  private readonly services: Service[] = [];
  private readonly settings: GatewaySettings;
  private readonly secrets: GatewaySecrets;
  /** The patterns every tool's responses are redacted with, besides the tool's own. */
  private readonly redactPatterns: Readonly<Record<string, string>> | undefined;

  public constructor(scope: Construct, id: string, props: GatewayProps) {
    super(scope, constructId(id, 'Gateway'));
    Object.defineProperty(this, GATEWAY_SYMBOL, { value: true });

    this.name = props.name ?? id;
    if (typeof this.name !== 'string' || !TOOL_NAME_RE.test(this.name)) {
      const origin = props.name === undefined ? ' (the construct id)' : '';
      throw new Error(`Invalid gateway name ${quote(this.name)}${origin}: a gateway name is ${NAME_RULE}; set 'name'`);
    }
    const report = propsReport(this, `Gateway '${this.name}'`);
    const { fail } = report;
    this.fail = fail;
    checkKnownProps(props, GATEWAY_PROPS, report);

    this.port = props.port ?? DEFAULT_PORT;
    if (!isPort(this.port)) {
      fail(`port (${quote(props.port)}) must be ${PORT_RULE}`);
    }
    const validation = validationSettings(props, fail);
    this.redactPatterns = resolveGatewayResponse(props.response, fail);
    const auth = checkAuth(props.auth, fail);
    if (auth === 'none') warnOpen(this, this.name, this.port);
    const auditLog = checkAuditLog(props.auditLog ?? (props.store === undefined ? true : 'store'), props, fail);
    this.hostIp = checkHostIp(props.hostIp, fail);
    this.secrets = new GatewaySecrets(this, props.secrets, fail);
    const k8s = props.kubernetes === undefined ? undefined : checkKubernetes(this.name, props.kubernetes, fail);
    const endpoint = endpointOf(this.name, this.hostIp, this.port, k8s);
    const replicas = k8s === undefined ? checkReplicas(props, fail) : kubernetesReplicas(props, fail);
    const baseImage = props.baseImage ?? DEFAULT_BASE_IMAGE;
    if (typeof baseImage !== 'string' || !/^[^\s]+$/.test(baseImage)) {
      fail(`baseImage ${quote(baseImage)} must be an image reference such as '${DEFAULT_BASE_IMAGE}'`);
    }

    this.settings = {
      name: this.name,
      host: '0.0.0.0',
      port: GATEWAY_CONTAINER_PORT,
      ...validation,
      auth,
      ...resourceUrlSetting(auth, props.resourceUrl ?? endpoint, fail),
      audit_log: auditLog,
      ...metricsSetting(props.metrics, this.port, fail),
      ...(props.allowedHosts !== undefined
        ? { allowed_hosts: checkList('allowedHosts', props.allowedHosts, fail) }
        : {}),
      ...(props.allowedOrigins !== undefined
        ? { allowed_origins: checkList('allowedOrigins', props.allowedOrigins, fail) }
        : {}),
      ...limitSettings(props, fail),
      ...rateLimitSettings(props.rateLimits, fail),
      ...this.storeSetting(props, replicas, k8s !== undefined, fail),
      ...(k8s !== undefined
        ? { session_key_file: `${K8S_CONFIG_DIR}/${K8S_SESSION_KEY}` }
        : props.sessionKey !== undefined
          ? { session_key_file: SESSION_KEY_PATH }
          : replicas === undefined
            ? { session_key_store: GATEWAY_SESSION_KEY_STORE }
            : {}),
    };
    for (const service of props.services ?? []) this.addService(service);

    this.url = endpoint;
    if (k8s !== undefined)
      ({ deployment: this.deployment, image: this.image } = this.createKubernetes(
        props,
        k8s,
        replicas ?? 2,
        baseImage,
      ));
    else ({ container: this.container, service: this.service } = this.createResources(props, replicas, baseImage));
    new TerraformOutput(this, 'Url', {
      value: this.url,
      description: `MCP endpoint of gateway ${this.name}`,
    }).overrideLogicalId(outputIdOf(this.name));
    this.node.addValidation({ validate: () => worded(this, this.validateGateway()) });
  }

  /**
   * Expose one more service as a tool (after those already added).
   *
   * @throws Error when `service` is already on this gateway, or deploys its backend container in another stack
   * (a gateway joins only its own stack's network, so it could not reach that container).
   */
  public addService(service: Service): void {
    if (!Service.isService(service)) {
      throw new Error(`Gateway '${this.name}': addService() expects a Service construct, got ${quote(service)}`);
    }
    if (this.services.includes(service)) {
      throw new Error(
        `Gateway '${this.name}': service '${service.name}' ('${service.node.path}') is already on this gateway; add each Service once`,
      );
    }
    const here = TerraformStack.of(this);
    const there = TerraformStack.of(service);
    if (service.container !== undefined && there !== here) {
      throw new Error(
        `Gateway '${this.name}' (stack '${here.node.id}') cannot reach the container of service '${service.name}', ` +
          `deployed by stack '${there.node.id}': a gateway joins only its own stack's network; create the Service ` +
          "in the gateway's stack, or drop its 'container' and deploy the backend elsewhere",
      );
    }
    this.services.push(service);
  }

  /** The Docker volume the gateway writes its audit log to (an `AuditDashboard` reads it), when the log is a file. */
  public get auditVolume(): Volume | undefined {
    return this.node.tryFindChild('AuditLog') as Volume | undefined;
  }

  /**
   * Where an `AuditDashboard` on the stack's network reads this gateway's audit with `auditLog: 'store'`: the
   * store's URL from there, and its password (a secret value) when it has one.
   */
  public get auditStore(): { readonly url: string; readonly password?: string } | undefined {
    return this.auditStoreTarget;
  }

  /** The gateway config this gateway's container is given (see docs/gateway.md), with a fixed key order. */
  public config(): GatewayConfig {
    const serviceLimits = this.services.flatMap((s) => s.rateLimits);
    return {
      version: GATEWAY_CONFIG_VERSION,
      gateway:
        serviceLimits.length === 0
          ? this.settings
          : { ...this.settings, rate_limits: [...(this.settings.rate_limits ?? []), ...serviceLimits] },
      tools: this.services.map((s) => withGatewayPatterns(s.toolConfig(), this.redactPatterns)),
    };
  }

  /** The `store` setting, and the secret carrying a `LimitStore`'s password. */
  private storeSetting(
    props: GatewayProps,
    replicas: number | undefined,
    onKubernetes: boolean,
    fail: (message: string) => never,
  ): Pick<GatewaySettings, 'store'> {
    const store = props.store;
    if (store === undefined) return {};
    if (!LimitStore.isLimitStore(store)) {
      if (typeof store !== 'object' || store === null)
        fail(`store (${quote(store)}) must be a LimitStore or { url, password?, onUnavailable?, timeoutMs? }`);
      const config = storeConfig(store, fail);
      if (config.password !== undefined) this.storeSecretName = config.password.secret;
      const password = config.password === undefined ? undefined : props.secrets?.[config.password.secret];
      this.auditStoreTarget = { url: config.url, ...(password === undefined ? {} : { password }) };
      return { store: config };
    }
    if (store.onKubernetes !== onKubernetes) {
      fail(
        onKubernetes
          ? `store: LimitStore '${store.name}' runs as a Docker container, which pods cannot reach: ` +
              'give it kubernetes: {} to run it in the cluster, or pass store: { url } of a Redis or Valkey the pods reach'
          : `store: LimitStore '${store.name}' runs on Kubernetes, which a Docker gateway does not reach: ` +
              'drop its kubernetes prop, or deploy the gateway to Kubernetes too',
      );
    }
    if (TerraformStack.of(store) !== TerraformStack.of(this)) {
      fail(
        `store: LimitStore '${store.name}' is in another stack, whose network this gateway does not join; create it in the gateway's stack`,
      );
    }
    let url = store.networkUrl;
    this.auditStoreTarget = { url, ...(store.password === undefined ? {} : { password: store.password }) };
    if (replicas !== undefined && !store.onKubernetes) {
      if ((props.publishMode ?? 'host-network') !== 'host-network' || store.hostUrl === undefined) {
        fail(
          `store: the replicas run in the host's network, where LimitStore '${store.name}' is reached only when published: ` +
            'give the LimitStore a hostPort (and a hostIp the other nodes reach, with several), or pass store: { url } of a store the replicas reach',
        );
      }
      url = store.hostUrl!;
    }
    if (store.password !== undefined) {
      if (props.secrets !== undefined && LIMIT_STORE_PASSWORD_SECRET in props.secrets) {
        fail(
          `secrets.${LIMIT_STORE_PASSWORD_SECRET} is the name the LimitStore's password reaches the gateway under; rename your secret`,
        );
      }
      this.storePassword = store.password;
    }
    return {
      store: { url, ...(store.password === undefined ? {} : { password: { secret: LIMIT_STORE_PASSWORD_SECRET } }) },
    };
  }

  /** Fails naming the gateway. */
  private fail: (message: string) => never = () => {
    throw new Error('unreachable');
  };

  private auditStoreTarget: { readonly url: string; readonly password?: string } | undefined;
  /** The secret name of `store.password` (given in `secrets`), to check it is given. */
  private storeSecretName: string | undefined;
  /** A `LimitStore`'s password, handed to the gateway as a secret of its own. */
  private storePassword: string | undefined;

  /** The gateway's Docker objects: a container (with a preflight check), or a Swarm service with `replicas`. */
  private createResources(
    props: GatewayProps,
    replicas: number | undefined,
    baseImage: string,
  ): { container?: Container; service?: DockerService } {
    const serviceSecrets = [
      ...this.secrets.entries(),
      ...(this.storePassword === undefined ? [] : [[LIMIT_STORE_PASSWORD_SECRET, this.storePassword] as const]),
    ];
    const secretValues = [
      ...serviceSecrets,
      ...(props.sessionKey !== undefined ? [[SESSION_KEY_SECRET_FILE, props.sessionKey] as const] : []),
    ];
    const secretFiles = secretValues.map(([name, value]) => secretFile(name, value));
    const registry = props.registry === undefined ? undefined : checkRegistry(props.registry, this.fail);
    const placement = props.placement === undefined ? undefined : checkPlacement(props.placement, this.fail);
    if (replicas === undefined && (registry !== undefined || placement !== undefined)) {
      this.fail(
        `${registry !== undefined ? 'registry' : 'placement'} applies to replicas only: set 'replicas', or drop it`,
      );
    }
    const image = GatewayImage.of(this).imageFor(baseImage, registry?.address);
    const imageName = GatewayImage.of(this).nameFor(baseImage, registry?.address);
    const summary = new ConfigSummary(this, 'ConfigSummary', outputIdOf(this.name).replace(/_url$/, '_config'), () =>
      this.config(),
    );
    if (replicas === undefined) {
      return {
        container: createGatewayContainer(this, {
          name: this.name,
          image,
          imageName,
          ports: this.publishedPorts(),
          network: GatewayNetwork.of(this).name,
          files: () => this.files(),
          secretFiles: serviceSecrets.map(([name, value]) => secretFile(name, value)),
          sessionKeyFile:
            props.sessionKey === undefined ? undefined : secretFile(SESSION_KEY_SECRET_FILE, props.sessionKey),
          auditLog: this.settings.audit_log !== false && this.settings.audit_log !== 'store',
          summary,
        }),
      };
    }
    // names the Docker secrets, which cannot change: a new value is a new secret under a new name
    const revision = secretValues.length > 0 ? new SecretsRevision(this, 'SecretsRevision', secretValues) : undefined;
    return {
      service: createGatewayService(this, {
        name: this.name,
        port: this.port,
        hostIp: this.hostIp,
        replicas,
        sessionKey: props.sessionKey,
        publishMode: props.publishMode ?? 'host-network',
        image,
        imageName,
        auditLog: this.settings.audit_log,
        configText: () => renderGatewayConfig(this.config()),
        secrets: serviceSecrets,
        revision,
        checkFiles: () => this.files(),
        checkSecretFiles: secretFiles,
        registry,
        placement,
        summary,
      }),
    };
  }

  /**
   * The gateway's Kubernetes objects (see `createGatewayKubernetes`). The image is the one the stack builds and
   * pushes to `registry`, pulled by digest, or `kubernetes.image` as it is.
   */
  private createKubernetes(
    props: GatewayProps,
    target: KubernetesTarget,
    replicas: number,
    baseImage: string,
  ): { deployment: TerraformResource; image: string } {
    for (const prop of ['placement', 'publishMode', 'hostIp'] as const) {
      if (props[prop] !== undefined) {
        this.fail(`${prop} applies to Docker only; on Kubernetes, leave it out (see docs/kubernetes.md)`);
      }
    }
    const secretValues = [
      ...this.secrets.entries(),
      ...(this.storePassword === undefined ? [] : [[LIMIT_STORE_PASSWORD_SECRET, this.storePassword] as const]),
      ...(props.sessionKey !== undefined ? [[K8S_SESSION_KEY, props.sessionKey] as const] : []),
    ];
    const revision = secretValues.length > 0 ? new SecretsRevision(this, 'SecretsRevision', secretValues) : undefined;
    const summary = new ConfigSummary(this, 'ConfigSummary', outputIdOf(this.name).replace(/_url$/, '_config'), () =>
      this.config(),
    );
    let image: { reference: string; pull: boolean; name: string };
    const dependsOn: TerraformResource[] = [];
    if (target.image !== undefined) {
      if (props.registry !== undefined) {
        this.fail("kubernetes.image names an image already on the nodes; drop 'registry' (or drop kubernetes.image)");
      }
      image = { reference: target.image, pull: false, name: target.image };
    } else {
      if (props.registry === undefined) {
        this.fail(
          "a Kubernetes gateway's image reaches the nodes through a registry: set registry: { address: 'host:port' } " +
            '(the stack builds and pushes the image), or name an image already on every node in kubernetes.image',
        );
      }
      const registry = checkRegistry(props.registry, this.fail);
      const built = GatewayImage.of(this).imageFor(baseImage, registry.address);
      const name = GatewayImage.of(this).nameFor(baseImage, registry.address);
      const pushed = pushImage(this, built, name, registry);
      dependsOn.push(pushed.pushed);
      image = { reference: pushed.reference, pull: true, name };
    }
    const metrics = this.settings.metrics;
    const deployment = createGatewayKubernetes(this, {
      name: this.name,
      target,
      replicas,
      port: this.port,
      ...(typeof metrics === 'object' ? { metricsPort: metrics.port } : {}),
      image,
      configText: () => renderGatewayConfig(this.config()),
      secrets: secretValues,
      revision,
      dependsOn,
      summary,
    });
    return { deployment, image: image.reference };
  }

  /** The files a gateway's containers get: the config (kept out of plans), then each distinct CA bundle. */
  private files(): ContainerFile[] {
    const files: ContainerFile[] = [
      { file: GATEWAY_CONFIG_FILE, content: renderGatewayConfig(this.config()), sensitive: true },
    ];
    for (const upload of this.services.flatMap((s) => s.gatewayUploads)) {
      if (!files.some((f) => f.file === upload.file))
        files.push({ file: upload.file, content: terraformLiteral(upload.content) });
    }
    return files;
  }

  /** The gateway's port, and the metrics port when metrics have one of their own. */
  private publishedPorts(): { internal: number; external: number; ip?: string }[] {
    const ip = this.hostIp !== undefined ? { ip: this.hostIp } : {};
    const ports = [{ internal: GATEWAY_CONTAINER_PORT, external: this.port, ...ip }];
    const metrics = this.settings.metrics;
    if (typeof metrics === 'object') ports.push({ internal: metrics.port, external: metrics.port, ...ip });
    return ports;
  }

  /**
   * Limits naming a tool the gateway does not serve, or two limits of one window for the same tools (the gateway's
   * and a service's own); warns when limits count per process (no store).
   */
  private rateLimitErrors(): string[] {
    const errors: string[] = [];
    const tools = new Set(this.services.map((s) => s.name));
    const origins = [
      ...(this.settings.rate_limits ?? []).map((l, i) => ({ limit: l, where: `rateLimits[${i}]` })),
      ...this.services.flatMap((s) =>
        s.rateLimits.map((l, i) => ({ limit: l, where: `service '${s.name}' rateLimits[${i}]` })),
      ),
    ];
    const clashes = rateLimitClashes(
      origins.map((o) => o.limit),
      tools,
    );
    for (const clash of clashes) {
      const { limit, where } = origins[clash.index];
      errors.push(
        'unknownTool' in clash
          ? `Gateway '${this.name}': ${where}.tool '${clash.unknownTool}' is not a service of this gateway (its services: ${[...tools].join(', ')}); add the service or fix the name`
          : `Gateway '${this.name}': ${where} and ${origins[clash.repeats].where} both limit ${limit.tool ?? 'all tools'} per ${limit.per}; keep one, with the lower count`,
      );
    }
    if (origins.length > 0 && this.settings.store === undefined) {
      Annotations.of(this).addWarning(
        `Gateway '${this.name}': rate limits count per gateway process without a store` +
          (this.service !== undefined ? ', so each replica admits the full count' : '') +
          ', and start over when the gateway restarts: give the gateway a store (a LimitStore) to count them exactly',
      );
    }
    return errors;
  }

  private validateGateway(): string[] {
    const errors: string[] = [
      ...this.secrets.check(this.name, this.services, this.storeSecretName),
      ...this.rateLimitErrors(),
      ...patternClashes(
        this.name,
        this.services.map((s) => s.toolConfig()),
        this.redactPatterns,
      ),
    ];
    for (const s of this.service === undefined ? [] : this.services.filter((x) => x.container !== undefined)) {
      errors.push(
        `Gateway '${this.name}' has replicas, but service '${s.name}' deploys its backend as a docker_container on ` +
          "the gateway's bridge network, which a Swarm service cannot join: deploy the backend elsewhere and drop " +
          "its 'container' (point endpoint.url at it), or drop 'replicas'",
      );
    }
    for (const s of this.deployment === undefined ? [] : this.services) {
      if (s.container !== undefined) {
        errors.push(
          `Gateway '${this.name}' deploys to Kubernetes, but service '${s.name}' deploys its backend as a ` +
            'docker_container, which pods cannot reach: run the backend in the cluster and point endpoint.url at it ' +
            "(e.g. http://backend.NAMESPACE.svc:8080/path), and drop its 'container'",
        );
      }
      if (s.gatewayUploads.length > 0) {
        errors.push(
          `Gateway '${this.name}' deploys to Kubernetes, but service '${s.name}' names a CA file (endpoint.tls.caFile), ` +
            'which the Kubernetes route does not carry yet: give the backend a certificate the image trusts, or deploy with Docker',
        );
      }
    }
    if (this.services.length === 0) {
      errors.push(
        `Gateway '${this.name}' has no services: pass 'services' or call addService() with at least one Service`,
      );
    }
    const byName = new Map<string, Service[]>();
    for (const s of this.services) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
    for (const [name, services] of byName) {
      if (services.length < 2) continue;
      const paths = services.map((s) => `'${s.node.path}'`).join(', ');
      errors.push(
        `Gateway '${this.name}' exposes the tool name '${name}' ${services.length} times (${paths}): ` +
          "each tool on a gateway needs a unique name; set a distinct 'name' on the Services or add each Service once",
      );
    }
    const others = TerraformStack.of(this)
      .node.findAll()
      .filter((c: IConstruct): c is Gateway => Gateway.isGateway(c) && c !== this);
    for (const other of others) {
      if (other.name === this.name) {
        errors.push(
          `Gateway name '${this.name}' is used by '${other.node.path}' and '${this.node.path}' in one stack: ` +
            "container and volume names derive from it; give each gateway its own 'name'",
        );
      }
      if (other.name !== this.name && outputIdOf(other.name) === outputIdOf(this.name)) {
        // Terraform output names cannot hold '.', so 'a.b' and 'a_b' map to one output and one would be lost
        errors.push(
          `Gateways '${other.name}' and '${this.name}' would both write the output '${outputIdOf(this.name)}': ` +
            "give one of them a 'name' that differs in more than '.' and '_'",
        );
      }
      // Kubernetes gateways publish in namespaces of their own, not on the Docker host's ports
      if (other.port === this.port && other.deployment === undefined && this.deployment === undefined) {
        errors.push(
          `Gateways '${other.name}' and '${this.name}' both publish host port ${this.port}: give each gateway its own 'port'`,
        );
      }
    }
    return errors;
  }
}

const GATEWAY_SYMBOL = Symbol.for('cdktf-mcp-gateway.Gateway');

/** The settings of what the gateway validates and how it refuses, each checked (one message per bad value). */
function validationSettings(
  props: GatewayProps,
  fail: (m: string) => never,
): Pick<
  GatewaySettings,
  'validate_input' | 'validate_output' | 'tools_list_page_size' | 'validation_errors' | 'refusal_structured_content'
> {
  const validateInput = props.validateInput ?? DEFAULT_VALIDATE_INPUT;
  if (typeof validateInput !== 'boolean') fail(`validateInput (${quote(validateInput)}) must be true or false`);
  if (props.validateOutput !== undefined && typeof props.validateOutput !== 'boolean') {
    fail(`validateOutput (${quote(props.validateOutput)}) must be true or false`);
  }
  const pageSize = props.toolsListPageSize;
  if (pageSize !== undefined && (!Number.isSafeInteger(pageSize) || pageSize < 1)) {
    fail(`toolsListPageSize (${quote(pageSize)}) must be a positive integer (tools per tools/list page)`);
  }
  const channel = props.validationErrors ?? DEFAULT_VALIDATION_ERRORS;
  if (!(VALIDATION_CHANNELS as readonly string[]).includes(channel)) {
    fail(`validationErrors ${quote(channel)} is not supported: expected one of ${VALIDATION_CHANNELS.join(', ')}`);
  }
  const refusalStructured = props.refusalStructuredContent;
  if (refusalStructured !== undefined && typeof refusalStructured !== 'boolean') {
    fail(`refusalStructuredContent (${quote(refusalStructured)}) must be true or false`);
  }
  return {
    validate_input: validateInput,
    ...(props.validateOutput !== undefined ? { validate_output: props.validateOutput } : {}),
    ...(pageSize !== undefined ? { tools_list_page_size: pageSize } : {}),
    validation_errors: channel,
    ...(refusalStructured !== undefined ? { refusal_structured_content: refusalStructured } : {}),
  };
}

/** Where agents reach a gateway: its published port, or on Kubernetes its Service's name inside the cluster. */
function endpointOf(name: string, hostIp: string | undefined, port: number, k8s: KubernetesTarget | undefined): string {
  return k8s === undefined
    ? `http://${urlHostOf(hostIp)}:${port}/mcp`
    : `http://${k8sName(name)}.${k8s.namespace}.svc.cluster.local:${port}/mcp`;
}

/** A Kubernetes gateway's `replicas` (2 unless set); its pods share a session key the cluster keeps. */
function kubernetesReplicas(props: GatewayProps, fail: (m: string) => never): number {
  checkSessionKey(props.sessionKey, fail);
  const replicas = props.replicas ?? 2;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 1000) {
    fail(`replicas (${quote(replicas)}) must be an integer 1-1000 (the Deployment's pods)`);
  }
  return replicas;
}

/** The `rate_limits` setting of the gateway's own `rateLimits` (its services' are added by `config()`). */
function rateLimitSettings(
  limits: readonly RateLimit[] | undefined,
  fail: (m: string) => never,
): Pick<GatewaySettings, 'rate_limits'> {
  const checked = checkRateLimits('rateLimits', limits, fail);
  return checked.length === 0 ? {} : { rate_limits: checked };
}

/** The stack output holding a gateway's URL, e.g. `gateway_agents_url` (stable: scripts read it by name). */
function outputIdOf(name: string): string {
  return `gateway_${name.replace(/[^A-Za-z0-9_-]/g, '_')}_url`;
}

function checkAuth(auth: GatewayAuth | undefined, fail: (m: string) => never): GatewaySettings['auth'] {
  if (auth === 'none') return 'none';
  if (typeof auth !== 'object' || auth === null || (!Array.isArray(auth.tokens) && auth.oauth === undefined)) {
    return fail(
      "'auth' is required: { tokens: [{ id, sha256 }] } and/or { oauth: { issuer } }, or 'none' to turn authentication off",
    );
  }
  checkNestedProps(auth, AUTH_PROPS, 'auth', fail);
  const oauth = auth.oauth === undefined ? undefined : checkOAuth(auth.oauth, fail);
  if (auth.tokens === undefined) return { oauth: oauth! };
  if (!Array.isArray(auth.tokens))
    return fail(`auth.tokens (${quote(auth.tokens)}) must be an array of { id, sha256 }`);
  if (auth.tokens.length === 0) {
    fail("auth.tokens is empty, so nobody could call the gateway: add a token, or set auth: 'none' on purpose");
  }
  const tokens: TokenConfig[] = [];
  auth.tokens.forEach((token, i) => {
    checkNestedProps(token, TOKEN_PROPS, `auth.tokens[${i}]`, fail);
    if (typeof token?.id !== 'string' || token.id.trim() === '') {
      fail(`auth.tokens[${i}].id must be a non-empty string (it names the caller in the audit log)`);
    }
    // never echo the value: a token pasted here by mistake must not end up in build logs
    const checked = normalizeTokenSha256(token.sha256);
    if ('problem' in checked) return fail(`auth.tokens[${i}].sha256 (token '${token.id}') ${checked.problem}`);
    const sha256 = checked.sha256;
    const same = tokens.find((t) => t.id === token.id || t.sha256 === sha256);
    if (same !== undefined) {
      fail(
        `auth.tokens[${i}] repeats the ${same.id === token.id ? `id '${token.id}'` : 'sha256 of another token'}: each token needs its own id and hash`,
      );
    }
    const scopes = token.scopes === undefined ? undefined : checkScopes(`auth.tokens[${i}].scopes`, token.scopes, fail);
    tokens.push({ id: token.id, sha256, ...(scopes !== undefined ? { scopes } : {}) });
  });
  return { tokens, ...(oauth !== undefined ? { oauth } : {}) };
}

/** The synth warning of `auth: 'none'`. */
function warnOpen(gateway: IConstruct, name: string, port: number): void {
  Annotations.of(gateway).addWarning(
    `Gateway '${name}' has auth: 'none': anyone who can reach port ${port} can call its tools. ` +
      'Add auth.tokens or auth.oauth for anything beyond a local test',
  );
}

/** `resource_url` for a gateway with `auth.oauth` (the metadata's `resource`, the default audience); none otherwise. */
function resourceUrlSetting(
  auth: GatewaySettings['auth'],
  resourceUrl: string,
  fail: (m: string) => never,
): { resource_url?: string } {
  if (auth === 'none' || auth.oauth === undefined) return {};
  return { resource_url: checkResourceUrl(resourceUrl, fail) };
}

function checkAuditLog(
  auditLog: boolean | 'store' | { readonly path: string },
  props: GatewayProps,
  fail: (m: string) => never,
): GatewaySettings['audit_log'] {
  if (typeof auditLog === 'boolean') return auditLog;
  if (auditLog === 'store') {
    if (props.store === undefined) {
      fail("auditLog: 'store' writes the audit to the gateway's store, and it has none: set store, or auditLog: true");
    }
    return 'store';
  }
  checkNestedProps(auditLog, AUDIT_LOG_PROPS, 'auditLog', fail);
  const path = typeof auditLog === 'object' && auditLog !== null ? auditLog.path : undefined;
  if (typeof path !== 'string' || !new RegExp(`^${AUDIT_LOG_DIR}/[^/]+$`).test(path)) {
    fail(
      `auditLog.path ${quote(path)} must be a file directly in ${AUDIT_LOG_DIR}/ (the volume the gateway ` +
        `container writes to), e.g. ${AUDIT_LOG_DIR}/audit.jsonl; or set auditLog: true`,
    );
  }
  return { path: path as string };
}

function checkList(prop: string, values: readonly string[], fail: (m: string) => never): string[] {
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string' || v === '')) {
    const example = prop === 'allowedHosts' ? "['mcp.example.com']" : "['https://app.example.com']";
    fail(`${prop} (${quote(values)}) must be a list of non-empty strings, e.g. ${example}`);
  }
  return [...values];
}

/** The config's `metrics` field, left out when metrics are off (so toggling other props changes nothing here). */
function metricsSetting(
  metrics: GatewayProps['metrics'],
  gatewayPort: number,
  fail: (m: string) => never,
): Pick<GatewaySettings, 'metrics'> {
  if (metrics === undefined || metrics === false) return {};
  if (metrics === true) return { metrics: true };
  // metrics on a port of their own answer without a token: a key meant to narrow that must not be dropped
  checkNestedProps(metrics, METRICS_PROPS, 'metrics', fail);
  const port = typeof metrics === 'object' && metrics !== null ? metrics.port : undefined;
  if (!isPort(port) || port === GATEWAY_CONTAINER_PORT || port === gatewayPort) {
    fail(
      `metrics.port (${quote(port)}) must be ${PORT_RULE} other than the gateway's ports ` +
        `(${GATEWAY_CONTAINER_PORT} inside, ${gatewayPort} published); or set metrics: true to serve /metrics behind the gateway's tokens`,
    );
  }
  return { metrics: { port: port! } };
}
