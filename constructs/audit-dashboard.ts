import { posix } from 'node:path';
import { Annotations, Lazy, TerraformOutput, TerraformStack, type TerraformResource } from 'cdktf';
import { Construct } from 'constructs';
import { Container } from '@cdktf/provider-docker/lib/container';
import type { Volume } from '@cdktf/provider-docker/lib/volume';
import {
  AUDIT_LOG_DIR,
  DASHBOARD_CONFIG_FILE,
  DASHBOARD_CONTAINER_PORT,
  DASHBOARD_LABEL,
  isPort,
  k8sName,
  NAME_RULE,
  normalizeTokenSha256,
  PORT_RULE,
  terraformLiteral,
  TOOL_NAME_RE,
} from '../src/config';
import { constructId } from './construct-id';
import { dockerName, quote } from './docker-names';
import { Gateway } from './gateway';
import { type GatewayToken, TOKEN_PROPS } from './gateway-token';
import { CONTAINER_HEALTHCHECK, WAIT_TIMEOUT_SECONDS } from './gateway-container';
import { checkHostIp, urlHostOf } from './host-ip';
import { DEFAULT_BASE_IMAGE, GatewayImage } from './gateway-image';
import { GatewayNetwork } from './gateway-network';
import {
  checkDashboardKubernetes,
  createDashboardKubernetes,
  type AuditDashboardKubernetes,
} from './kubernetes/audit-dashboard-kubernetes';
import { checkKnownProps, checkNestedProps, propsReport, type PropKeys, type PropsReport } from './known-props';

/** When an agent counts as failing systematically on the dashboard. */
export interface FlagRuleOptions {
  /**
   * Refused calls in the window at least.
   * @default 10
   */
  readonly minRefusals?: number;
  /**
   * Refused share of the agent's calls in the window at least, from 0 to 1.
   * @default 0.5
   */
  readonly minRate?: number;
}

const FLAG_PROPS: PropKeys<FlagRuleOptions> = { minRefusals: true, minRate: true };

/** Props of an `AuditDashboard`. */
export interface AuditDashboardProps {
  /**
   * The dashboard's name (container label and name), `^[A-Za-z0-9_.-]{1,64}$`.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * The gateways whose audit logs it reads (their audit volumes, mounted read-only; or, for a gateway with
   * `auditLog: 'store'`, its store, every replica on every node); at least one.
   */
  readonly gateways: readonly Gateway[];
  /**
   * The host port published for the dashboard.
   * @default 8090
   */
  readonly port?: number;
  /** Tokens (by hash) that may read the dashboard, or `'none'` (a synth warning: it listens on all interfaces). */
  readonly auth: { readonly tokens: readonly GatewayToken[] } | 'none';
  /**
   * How many days of audit records it keeps in memory.
   * @default 7
   */
  readonly retentionDays?: number;
  /**
   * When an agent is flagged as failing systematically.
   * @default - at least 10 refusals and a refusal rate of at least 50 % in the window
   */
  readonly flag?: FlagRuleOptions;
  /**
   * The Node image the gateway image is built on (the dashboard runs the gateway image).
   * @default 'node:22-bookworm-slim'
   */
  readonly baseImage?: string;
  /**
   * The host address the port is published on, e.g. `'127.0.0.1'` to reach the dashboard only from the Docker
   * host itself. Also the host of the output URL.
   * @default - every interface of the Docker host ('0.0.0.0'); the URL says localhost
   */
  readonly hostIp?: string;
  /**
   * Run the dashboard in a Kubernetes cluster, for gateways deployed there that keep their audit in a store
   * (`auditLog: 'store'`, the default with a store): one pod on the gateways' image, reading every pod's records.
   * @default - a Docker container
   */
  readonly kubernetes?: AuditDashboardKubernetes;
}

/** Every prop of {@link AuditDashboardProps} (the compiler keeps it whole). */
const AUDIT_DASHBOARD_PROPS: PropKeys<AuditDashboardProps> = {
  name: true,
  auth: true,
  port: true,
  baseImage: true,
  hostIp: true,
  kubernetes: true,
  gateways: true,
  retentionDays: true,
  flag: true,
};

/**
 * The audit dashboard (see docs/dashboard.md): a container of the gateway image running `cdktf-mcp-gateway dashboard`, which
 * reads the audit logs of the gateways it names (every replica's file) and shows which agents fail
 * systematically, on which tool, with which message.
 *
 * @example
 * new AuditDashboard(stack, 'audit', {
 *   gateways: [agents, legacy],
 *   auth: { tokens: [{ id: 'ops', sha256: process.env.OPS_TOKEN_SHA256! }] },
 * });
 */
export class AuditDashboard extends Construct {
  /** The dashboard's name. */
  public readonly name: string;
  /** The published host port. */
  public readonly port: number;
  /** The page on the Docker host, `http://localhost:PORT/` (or `http://HOST_IP:PORT/`). */
  public readonly url: string;
  /** The address the port is published on, when `hostIp` was given. */
  public readonly hostIp?: string;
  /** The dashboard's `docker_container` (none on Kubernetes). */
  public readonly container?: Container;
  /** The dashboard's Kubernetes Deployment, when it sets `kubernetes`. */
  public readonly deployment?: TerraformResource;

  public constructor(scope: Construct, id: string, props: AuditDashboardProps) {
    super(scope, constructId(id, 'AuditDashboard'));
    this.name = props.name ?? id;
    if (typeof this.name !== 'string' || !TOOL_NAME_RE.test(this.name)) {
      const origin = props.name === undefined ? ' (the construct id)' : '';
      throw new Error(
        `Invalid dashboard name ${quote(this.name)}${origin}: a dashboard name is ${NAME_RULE}; set 'name'`,
      );
    }
    const report = propsReport(this, `AuditDashboard '${this.name}'`);
    const { fail } = report;
    checkKnownProps(props, AUDIT_DASHBOARD_PROPS, report);
    this.port = props.port ?? DASHBOARD_CONTAINER_PORT;
    if (!isPort(this.port)) {
      fail(`port (${quote(props.port)}) must be ${PORT_RULE}`);
    }
    this.hostIp = checkHostIp(props.hostIp, fail);
    if (props.kubernetes !== undefined) {
      for (const prop of ['port', 'hostIp', 'baseImage'] as const) {
        if (props[prop] !== undefined) {
          fail(`${prop} applies to Docker only; on Kubernetes, leave it out (the Service is kubernetes.service)`);
        }
      }
    }
    const { volumes, stores } = auditSourcesOf(this, props.gateways, props.kubernetes !== undefined, fail);
    const config = {
      audit_dirs: volumes.map((v) => v.dir),
      ...(stores.length === 0
        ? {}
        : {
            audit_stores: stores.map((st) => ({
              gateway: st.gateway,
              url: st.url,
              ...(st.passwordFile === undefined ? {} : { password_file: st.passwordFile }),
            })),
          }),
      port: DASHBOARD_CONTAINER_PORT,
      host: '0.0.0.0',
      auth: checkAuth(props.auth, report),
      retention_ms: checkRetentionDays(props.retentionDays ?? 7, fail) * 86_400_000,
      flag: checkFlag(props.flag ?? {}, fail),
    };
    if (config.auth === 'none') {
      Annotations.of(this).addWarning(
        `AuditDashboard '${this.name}' has auth: 'none': anyone who can reach port ${this.port} reads which agents ` +
          'call which tools and their refusal messages. Add auth.tokens for anything beyond a local test',
      );
    }
    if (props.kubernetes !== undefined) {
      const target = checkDashboardKubernetes(this.name, props.kubernetes, fail);
      this.deployment = createDashboardKubernetes(this, {
        name: this.name,
        ...target,
        image: props.gateways[0].image!,
        config: JSON.stringify(config, null, 2),
        files: stores.flatMap((st) =>
          st.passwordFile === undefined ? [] : [[posix.basename(st.passwordFile), st.password!]],
        ),
      });
      this.url = `http://${k8sName(this.name)}.${target.namespace}.svc.cluster.local:${DASHBOARD_CONTAINER_PORT}/`;
    } else {
      this.container = this.createContainer(
        props.baseImage ?? DEFAULT_BASE_IMAGE,
        volumes,
        stores,
        JSON.stringify(config, null, 2),
      );
      this.url = `http://${urlHostOf(this.hostIp)}:${this.port}/`;
    }
    new TerraformOutput(this, 'Url', {
      value: this.url,
      description: `Audit dashboard ${this.name}`,
    }).overrideLogicalId(`dashboard_${this.name.replace(/[^A-Za-z0-9_-]/g, '_')}_url`);
  }

  private createContainer(
    baseImage: string,
    volumes: readonly AuditMount[],
    stores: readonly AuditStoreRead[],
    config: string,
  ): Container {
    const healthUrl = `http://127.0.0.1:${DASHBOARD_CONTAINER_PORT}/healthz`;
    const container = new Container(this, 'Resource', {
      name: dockerName(this, this.name),
      image: GatewayImage.of(this).imageFor(baseImage).imageId,
      command: ['dashboard', '--config', DASHBOARD_CONFIG_FILE],
      restart: 'unless-stopped',
      upload: [
        { file: DASHBOARD_CONFIG_FILE, content: Lazy.stringValue({ produce: () => terraformLiteral(`${config}\n`) }) },
        // a store's password as a file of its own: a sensitive value keeps it out of plans
        ...stores.flatMap((st) =>
          st.passwordFile === undefined ? [] : [{ file: st.passwordFile, content: st.password! }],
        ),
      ],
      ports: [
        {
          internal: DASHBOARD_CONTAINER_PORT,
          external: this.port,
          ...(this.hostIp !== undefined ? { ip: this.hostIp } : {}),
        },
      ],
      // the image's probe, pointed at the dashboard's port rather than a gateway config's
      env: [`GATEWAY_HEALTH_URL=${healthUrl}`],
      healthcheck: { ...CONTAINER_HEALTHCHECK, test: [...CONTAINER_HEALTHCHECK.test] },
      wait: true,
      waitTimeout: WAIT_TIMEOUT_SECONDS,
      labels: [{ label: DASHBOARD_LABEL, value: this.name }],
      // the stack's network, not Docker's default bridge, which a daemon may run without (--bridge=none)
      networksAdvanced: [{ name: GatewayNetwork.of(this).name }],
      volumes: volumes.map((v) => ({ volumeName: v.volume.name, containerPath: v.dir, readOnly: true })),
    });
    return container;
  }
}

/** A gateway whose audit the dashboard reads from its store (`auditLog: 'store'`). */
interface AuditStoreRead {
  readonly gateway: string;
  readonly url: string;
  readonly password?: string;
  readonly passwordFile?: string;
}

interface AuditMount {
  readonly volume: Volume;
  /** Where the volume is mounted in the dashboard container, one directory per gateway. */
  readonly dir: string;
}

/** Each gateway's audit: its volume (a file), or its store (`auditLog: 'store'`, every replica on every node). */
function auditSourcesOf(
  scope: Construct,
  gateways: readonly Gateway[],
  onKubernetes: boolean,
  fail: (m: string) => never,
): { volumes: AuditMount[]; stores: AuditStoreRead[] } {
  if (!Array.isArray(gateways) || gateways.length === 0) {
    fail("'gateways' must name at least one Gateway whose audit log it reads");
  }
  const stack = TerraformStack.of(scope);
  const volumes: AuditMount[] = [];
  const stores: AuditStoreRead[] = [];
  gateways.forEach((gateway, i) => {
    if (!Gateway.isGateway(gateway)) return fail(`gateways[${i}] must be a Gateway construct, got ${quote(gateway)}`);
    if (TerraformStack.of(gateway) !== stack) {
      fail(`gateway '${gateway.name}' is in another stack: a dashboard mounts only its own stack's audit volumes`);
    }
    if (gateways.indexOf(gateway) !== i) fail(`gateway '${gateway.name}' is listed twice`);
    if ((gateway.deployment !== undefined) !== onKubernetes) {
      fail(
        onKubernetes
          ? `gateway '${gateway.name}' runs on Docker: a dashboard on Kubernetes reads gateways deployed there`
          : `gateway '${gateway.name}' runs on Kubernetes: give the dashboard kubernetes: {} to run it there too`,
      );
    }
    const store = gateway.config().gateway.audit_log === 'store' ? gateway.auditStore : undefined;
    if (store !== undefined) {
      const passwordFile = store.password === undefined ? undefined : `${STORE_PASSWORD_DIR}/audit-store-${i}`;
      stores.push({ gateway: gateway.name, url: store.url, password: store.password, passwordFile });
      return;
    }
    if (onKubernetes) {
      fail(
        `gateway '${gateway.name}' keeps its audit in a file in each pod, which a dashboard cannot read: ` +
          "give the gateway a store (its audit goes there, auditLog: 'store')",
      );
    }
    const volume = gateway.auditVolume;
    if (volume === undefined) {
      fail(`gateway '${gateway.name}' has auditLog: false, so there is nothing to read; turn its audit log on`);
    }
    volumes.push({ volume: volume!, dir: `${AUDIT_LOG_DIR}/${gateway.name}` });
  });
  return { volumes, stores };
}

/** Where the dashboard container finds the passwords of the stores it reads. */
const STORE_PASSWORD_DIR = '/etc/cdktf-mcp-gateway';

function checkAuth(auth: AuditDashboardProps['auth'], { fail, warn }: PropsReport) {
  if (auth === 'none') return 'none' as const;
  if (typeof auth !== 'object' || auth === null || !Array.isArray(auth.tokens) || auth.tokens.length === 0) {
    return fail("'auth' is required: { tokens: [{ id, sha256 }] }, or 'none' to leave the dashboard open");
  }
  checkNestedProps(auth, { tokens: true }, 'auth', fail);
  return {
    tokens: auth.tokens.map((token, i) => {
      checkNestedProps(token, TOKEN_PROPS, `auth.tokens[${i}]`, fail);
      // a token list shared with a gateway keeps its scopes; they restrict nothing here
      if (token?.scopes !== undefined) {
        warn(
          `auth.tokens[${i}].scopes is ignored: the dashboard has no scopes, and token '${token.id}' reads the audit ` +
            'of every gateway it shows',
        );
      }
      if (typeof token?.id !== 'string' || token.id.trim() === '')
        fail(`auth.tokens[${i}].id must be a non-empty string`);
      const checked = normalizeTokenSha256(token.sha256);
      if ('problem' in checked) return fail(`auth.tokens[${i}].sha256 (token '${token.id}') ${checked.problem}`);
      return { id: token.id, sha256: checked.sha256 };
    }),
  };
}

function checkRetentionDays(days: number, fail: (m: string) => never): number {
  if (!Number.isInteger(days) || days < 1 || days > 90)
    fail(`retentionDays (${quote(days)}) must be an integer from 1 to 90`);
  return days;
}

function checkFlag(flag: FlagRuleOptions, fail: (m: string) => never): { min_refusals: number; min_rate: number } {
  checkNestedProps(flag, FLAG_PROPS, 'flag', fail);
  const minRefusals = flag.minRefusals ?? 10;
  const minRate = flag.minRate ?? 0.5;
  if (!Number.isInteger(minRefusals) || minRefusals < 1)
    fail(`flag.minRefusals (${quote(minRefusals)}) must be an integer >= 1`);
  if (typeof minRate !== 'number' || !(minRate >= 0 && minRate <= 1))
    fail(`flag.minRate (${quote(minRate)}) must be a number from 0 to 1`);
  return { min_refusals: minRefusals, min_rate: minRate };
}
