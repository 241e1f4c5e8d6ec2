import { Annotations, Token } from 'cdktf';
import { Construct } from 'constructs';
import { Container } from '@cdktf/provider-docker/lib/container';
import { Image } from '@cdktf/provider-docker/lib/image';
import { Volume } from '@cdktf/provider-docker/lib/volume';
import { isPort, LIMIT_STORE_NAME_RE, LIMIT_STORE_NAME_RULE, PORT_RULE, terraformLiteral } from '../src/config';
import { uploadFiles } from './container-files';
import { dockerName, quote } from './docker-names';
import { GatewayNetwork } from './gateway-network';
import { checkHostIp, urlHostOf } from './host-ip';
import {
  checkLimitStoreKubernetes,
  createLimitStoreKubernetes,
  type LimitStoreKubernetes,
} from './kubernetes/limit-store-kubernetes';
import { checkKnownProps, propsReport, type PropKeys } from './known-props';

/** Props of a {@link LimitStore}. */
export interface LimitStoreProps {
  /**
   * The store's name: its container's, and the host name gateways reach it at on the stack's network.
   * @default 'limit-store'
   */
  readonly name?: string;
  /**
   * The Redis (or Valkey) image, which must run `redis-server CONFIG_FILE` as its command (the official `redis` and
   * `valkey/valkey` images do; Valkey's binary is `valkey-server`, also installed as `redis-server`).
   * @default 'redis:7.4-alpine'
   */
  readonly image?: string;
  /**
   * The store's password (`requirepass`), which the gateways using it are given as a secret: a sensitive value
   * such as a `TerraformVariable` with `sensitive: true`.
   * @default - none: any container on the stack's network may use the store
   */
  readonly password?: string;
  /**
   * Publish the store on the Docker host's 127.0.0.1 at this port, for gateways with `replicas` (their tasks
   * run in the host's network, where the stack's network names do not resolve).
   * @default - not published
   */
  readonly hostPort?: number;
  /**
   * The Docker host address `hostPort` is published on: on a Swarm of several nodes, an address of the node the
   * store runs on that every node reaches (the replicas on other nodes connect to it there). Needs `hostPort`.
   * @default '127.0.0.1' (this host only)
   */
  readonly hostIp?: string;
  /**
   * Run the store in a Kubernetes cluster (the stack's `kubernetes` provider) instead of Docker, for gateways
   * deployed there: a Deployment of one pod behind a ClusterIP Service in a namespace of its own.
   * @default - a Docker container on the stack's network
   */
  readonly kubernetes?: LimitStoreKubernetes;
}

/** The store's port inside its container. */
const STORE_PORT = 6379;
/** The server's settings (the password is added apart, as a sensitive value). */
const STORE_SETTINGS = [
  `port ${STORE_PORT}`,
  'bind 0.0.0.0',
  'dir /data',
  'appendonly yes',
  'appendfsync everysec',
  'save ""',
  // without a password the store answers only where it is reachable: the stack's network, or the cluster
  'protected-mode no',
];
/** The store's config file inside its container (it holds the password). */
const STORE_CONFIG_FILE = '/etc/cdktf-mcp-gateway/store.conf';

/** Every prop of {@link LimitStoreProps} (the compiler keeps it whole). */
const LIMIT_STORE_PROPS: PropKeys<LimitStoreProps> = {
  name: true,
  hostIp: true,
  kubernetes: true,
  image: true,
  password: true,
  hostPort: true,
};

/**
 * A Redis server deployed beside the gateways of a stack, in which their replicas share rate limits and ended
 * sessions: pass it as a gateway's `store`. Its data (counts, quotas, ended sessions) is kept in a volume with an
 * append-only file, so a day's quota survives a restart of the store too.
 *
 * @example
 * const store = new LimitStore(stack, 'Limits', { password: storePassword.stringValue });
 * new Gateway(stack, 'support', { services, auth, rateLimits: [{ calls: 60, per: 'minute' }], store });
 */
export class LimitStore extends Construct {
  /** Whether `x` is a `LimitStore` (works across copies of this package). */
  public static isLimitStore(x: unknown): x is LimitStore {
    return typeof x === 'object' && x !== null && LIMIT_STORE_SYMBOL in x;
  }

  /** The store's name (its host name on the stack's network, or its Service's name on Kubernetes). */
  public readonly name: string;
  /**
   * Where gateways reach the store: `redis://NAME:6379` from a container on the stack's network, or
   * `redis://NAME.NAMESPACE.svc.cluster.local:6379` from a pod when the store runs on Kubernetes.
   */
  public readonly networkUrl: string;
  /** Whether the store runs on Kubernetes (`kubernetes` set), where only gateways deployed there reach it. */
  public readonly onKubernetes: boolean;
  /** `redis://HOST_IP:PORT` when `hostPort` is set: where replicas in the host's network reach it. */
  public readonly hostUrl?: string;
  /** The password, when set (a gateway using the store is given it as a secret). */
  public readonly password?: string;
  /** The store's Docker container (none on Kubernetes). */
  public readonly container?: Container;

  public constructor(scope: Construct, id: string, props: LimitStoreProps = {}) {
    super(scope, id);
    Object.defineProperty(this, LIMIT_STORE_SYMBOL, { value: true });
    this.name = props.name ?? 'limit-store';
    const report = propsReport(this, `LimitStore '${this.name}'`);
    const { fail } = report;
    checkKnownProps(props, LIMIT_STORE_PROPS, report);
    if (typeof this.name !== 'string' || !LIMIT_STORE_NAME_RE.test(this.name)) {
      fail(`name (${quote(this.name)}) must be ${LIMIT_STORE_NAME_RULE}`);
    }
    const image = props.image ?? 'redis:7.4-alpine';
    if (typeof image !== 'string' || !/^[^\s]+$/.test(image))
      fail(`image (${quote(image)}) must be an image reference such as 'redis:7.4-alpine'`);
    if (props.hostPort !== undefined && !isPort(props.hostPort))
      fail(`hostPort (${quote(props.hostPort)}) must be ${PORT_RULE}`);
    if (props.password !== undefined) {
      if (typeof props.password !== 'string')
        fail("password must be a string (a sensitive TerraformVariable's stringValue)");
      if (!Token.isUnresolved(props.password)) {
        Annotations.of(this).addWarning(
          'password is a literal string: it is written into cdk.tf.json and the Terraform state. Pass a sensitive TerraformVariable instead',
        );
      } else if (/[\s"]/.test(props.password)) {
        fail('password must not hold white space or quotes');
      }
    }
    this.password = props.password;
    this.onKubernetes = props.kubernetes !== undefined;
    if (props.kubernetes !== undefined) {
      this.networkUrl = this.createKubernetes(props, image, fail);
      return;
    }
    this.networkUrl = `redis://${this.name}:${STORE_PORT}`;
    const hostIp = checkHostIp(props.hostIp, fail) ?? '127.0.0.1';
    if (props.hostIp !== undefined && props.hostPort === undefined) fail('hostIp needs hostPort: the port to publish');
    if (props.hostIp !== undefined && props.password === undefined && !isLoopbackAddress(hostIp)) {
      Annotations.of(this).addWarning(
        `hostIp ${hostIp} publishes the store beyond this host without a password: anyone who reaches it can ` +
          'change rate-limit counts and end sessions. Set password',
      );
    }
    this.hostUrl = props.hostPort === undefined ? undefined : `redis://${urlHostOf(hostIp)}:${props.hostPort}`;

    const data = new Volume(this, 'Data', { name: dockerName(this, this.name, 'data') });
    const pulled = new Image(this, 'Image', { name: image, keepLocally: true });
    this.container = new Container(this, 'Resource', {
      name: dockerName(this, this.name),
      image: pulled.imageId,
      restart: 'unless-stopped',
      command: ['redis-server', STORE_CONFIG_FILE],
      networksAdvanced: [{ name: GatewayNetwork.of(this).name, aliases: [this.name] }],
      ports: props.hostPort === undefined ? [] : [{ internal: STORE_PORT, external: props.hostPort, ip: hostIp }],
      volumes: [{ volumeName: data.name, containerPath: '/data' }],
    });
    // a sensitive variable's value keeps the whole file out of plans
    const password = this.password === undefined ? '' : `requirepass "${this.password}"\n`;
    uploadFiles(this.container, () => [
      { file: STORE_CONFIG_FILE, content: `${terraformLiteral(STORE_SETTINGS.join('\n'))}\n${password}` },
    ]);
  }

  /** The store's objects in the cluster (`kubernetes` set); returns its URL from the gateways' pods. */
  private createKubernetes(props: LimitStoreProps, image: string, fail: (m: string) => never): string {
    for (const prop of ['hostPort', 'hostIp'] as const) {
      if (props[prop] !== undefined) fail(`${prop} applies to Docker only; on Kubernetes, leave it out`);
    }
    const target = checkLimitStoreKubernetes(this.name, props.kubernetes!, fail);
    if (props.password === undefined) {
      Annotations.of(this).addWarning(
        'no password: any pod in the cluster that reaches the store can change rate-limit counts and end sessions. Set password',
      );
    }
    return createLimitStoreKubernetes(this, {
      name: this.name,
      image,
      port: STORE_PORT,
      target,
      settings: STORE_SETTINGS,
      ...(props.password === undefined ? {} : { password: props.password }),
    });
  }
}

function isLoopbackAddress(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.');
}

const LIMIT_STORE_SYMBOL = Symbol.for('cdktf-mcp-gateway.LimitStore');
