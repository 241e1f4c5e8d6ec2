import { createHash } from 'node:crypto';
import { DataResource, Fn, Lazy, Token } from 'cdktf';
import { Construct } from 'constructs';
import { Config } from '@cdktf/provider-docker/lib/config';
import { Image } from '@cdktf/provider-docker/lib/image';
import { Secret } from '@cdktf/provider-docker/lib/secret';
import { Service as DockerService, ServiceTaskSpecContainerSpecSecrets } from '@cdktf/provider-docker/lib/service';
import { Volume } from '@cdktf/provider-docker/lib/volume';
import {
  AUDIT_LOG_DIR,
  AUDIT_NODE_ENV,
  DEFAULT_AUDIT_LOG_PATH,
  GATEWAY_CONFIG_FILE,
  GATEWAY_CONTAINER_PORT,
  GATEWAY_HEALTHCHECK_SCRIPT,
  GATEWAY_LABEL,
  GatewaySettings,
  sensitiveBase64,
} from '../src/config';
import type { ConfigSummary } from './config-summary';
import { type ContainerFile } from './container-files';
import { dockerName, quote } from './docker-names';
import { cliLocalExec, quietLocalExec } from './cli-local-exec';
import { createPreflight, dockerHostEnvironment, unreachableEngine } from './one-shot-run';
import type { SecretsRevision } from './secrets-revision';
import {
  pushImage,
  registryAuth,
  taskPlacement,
  type GatewayPlacement,
  type GatewayRegistry,
} from './gateway-registry';

/**
 * How the replicas of a gateway are reached:
 * - `host-network`: each replica runs in the host's network and binds `port` itself; replicas on one node share
 *   it through SO_REUSEPORT (one node; put a load balancer in front of several nodes);
 * - `ingress`: Swarm's routing mesh publishes `port` on every node of the swarm and spreads connections over the
 *   replicas wherever they run (the multi-node choice).
 */
export type PublishMode = 'host-network' | 'ingress';

/** The publish modes, for messages. */
export const PUBLISH_MODES: readonly PublishMode[] = ['host-network', 'ingress'];

/** Where a replica finds the session key (a Docker secret, mounted under `/run/secrets`). */
export const SESSION_KEY_SECRET_FILE = 'cdktf-mcp-gateway-session-key';
/** `SESSION_KEY_SECRET_FILE` as the replica sees it: the config's `session_key_file`. */
export const SESSION_KEY_PATH = `/run/secrets/${SESSION_KEY_SECRET_FILE}`;
/** The environment variable naming each replica's audit file (see `serve --help`). */
export const AUDIT_LOG_ENV = 'CDKTF_MCP_GATEWAY_AUDIT_LOG';

/**
 * Timing of a replicated gateway. A rolling update starts the new task, waits for its healthcheck, watches it
 * for `MONITOR`, then stops an old one; the old one hands the port over and drains (at most the keep-alive
 * timeout plus the drain timeout, 16 s) within `STOP_GRACE_PERIOD`.
 */
const HEALTH = { interval: '3s', timeout: '3s', startPeriod: '10s', retries: 3 };
const MONITOR = '10s';
const STOP_GRACE_PERIOD = '30s';
/** How long `cdktf deploy` waits for a rolling update to converge before it reports a failure. */
const CONVERGE_TIMEOUT = '5m';

/** What `createGatewayService` needs from the `Gateway`. */
export interface GatewayServiceOptions {
  /** The gateway's name (labels, Docker object names). */
  readonly name: string;
  /** The published port (host-network: the port every replica binds). */
  readonly port: number;
  /** The address every replica binds (host-network) when the gateway has `hostIp`. */
  readonly hostIp?: string;
  readonly replicas: number;
  /** A sensitive string (e.g. a `TerraformVariable`'s value): hex or base64 text of at least 32 bytes. */
  readonly sessionKey?: string;
  readonly publishMode: PublishMode;
  /** The gateway image (the one a container would run). */
  readonly image: Image;
  /** The image's name as synthesized (its tag changes with the image's context). */
  readonly imageName: string;
  /** The config's `audit_log` setting. */
  readonly auditLog: GatewaySettings['audit_log'];
  /** The config document as text, read at synthesis (services may be added after construction). */
  readonly configText: () => string;
  /**
   * The values of the secrets its services name (`Secret.env('NAME')`), each delivered as a Docker secret at
   * `/run/secrets/NAME`, where the gateway looks first.
   * @default - none
   */
  readonly secrets?: readonly (readonly [string, string])[];
  /** Names the Docker secrets after their current values (without revealing them), when there are secrets. */
  readonly revision?: SecretsRevision;
  /** The files of the preflight check (config, CA bundles; the secrets come as files too). */
  readonly checkFiles: () => readonly ContainerFile[];
  readonly checkSecretFiles: readonly ContainerFile[];
  /** The registry the image is pushed to, for nodes other than the manager. @default - the manager's image */
  readonly registry?: GatewayRegistry;
  /** @default - any node */
  readonly placement?: GatewayPlacement;
  /** The stack output that reports the config: it records a new one only once the hand-over gave it. */
  readonly summary: ConfigSummary;
}

/**
 * The Swarm form of a gateway: a `docker_service` with `replicas` tasks running the gateway image, its config
 * as a `docker_config` named after the content's hash (a change is a new config, checked first, and a rolling
 * update), the session key as a `docker_secret`, and a start-first, health-gated update that rolls back on failure.
 */
export function createGatewayService(scope: Construct, options: GatewayServiceOptions): DockerService {
  const preflight = createPreflight(scope, {
    name: options.name,
    image: options.image,
    imageName: options.imageName,
    files: options.checkFiles,
    secretFiles: options.checkSecretFiles,
  });
  options.revision?.after(preflight);
  const config = createConfig(scope, options, preflight);
  const volume =
    options.auditLog === false || options.auditLog === 'store'
      ? undefined
      : new Volume(scope, 'AuditLog', { name: dockerName(scope, options.name, 'audit') });
  const hostNetwork = options.publishMode === 'host-network';
  const hostArgs = options.hostIp === undefined ? [] : ['--host', options.hostIp];
  const pushed =
    options.registry === undefined ? undefined : pushImage(scope, options.image, options.imageName, options.registry);
  // The provider reads a task's network back as the swarm's id of it ('host' comes back as a generated id that no
  // plan can know), which would plan a replacement of the service, an outage, on every deploy: the networks are
  // left out of the diff, and a change of publish mode replaces the service through this marker instead.
  const networkMode = new DataResource(scope, 'PublishMode', { input: { publish_mode: options.publishMode } });
  const service = new DockerService(scope, 'Resource', {
    dependsOn: [preflight],
    lifecycle: {
      // the config roll below moves the service to a new config; the service itself changes only with its image,
      // secrets, ports or settings
      ignoreChanges: ['task_spec[0].networks_advanced', 'task_spec[0].container_spec[0].configs'],
      // as an address: cdktf 0.21 writes a construct given here with its path appended, which the engine refuses
      replaceTriggeredBy: [`${DataResource.tfResourceType}.${networkMode.friendlyUniqueId}`],
    },
    name: dockerName(scope, options.name),
    labels: [{ label: GATEWAY_LABEL, value: options.name }],
    mode: { replicated: { replicas: options.replicas } },
    taskSpec: {
      containerSpec: {
        image: pushed?.reference ?? options.image.imageId,
        // host networking: the replica binds the published port itself (the healthcheck follows --port)
        args: hostNetwork
          ? ['serve', '--config', GATEWAY_CONFIG_FILE, '--port', String(options.port), ...hostArgs]
          : undefined,
        env: auditEnv(options.auditLog, volume),
        labels: [{ label: GATEWAY_LABEL, value: options.name }],
        configs: [{ configId: config.id, configName: config.name, fileName: GATEWAY_CONFIG_FILE, fileMode: 0o444 }],
        secrets: secretMounts(scope, options),
        mounts: volume === undefined ? undefined : [{ type: 'volume', source: volume.name, target: AUDIT_LOG_DIR }],
        healthcheck: { test: ['CMD', 'node', GATEWAY_HEALTHCHECK_SCRIPT], ...HEALTH },
        stopSignal: 'SIGTERM',
        stopGracePeriod: STOP_GRACE_PERIOD,
      },

      networksAdvanced: hostNetwork ? [{ name: 'host' }] : undefined,
      restartPolicy: { condition: 'any', delay: '2s', window: '30s' },
      placement: taskPlacement(options.placement),
    },
    ...registryAuth(options.registry),
    endpointSpec: hostNetwork
      ? undefined
      : {
          mode: 'vip',
          ports: [
            {
              targetPort: GATEWAY_CONTAINER_PORT,
              publishedPort: options.port,
              publishMode: 'ingress',
              protocol: 'tcp',
            },
          ],
        },
    updateConfig: {
      parallelism: 1,
      order: 'start-first',
      failureAction: 'rollback',
      monitor: MONITOR,
      delay: '0s',
      maxFailureRatio: '0',
    },
    rollbackConfig: { parallelism: 1, order: 'start-first', failureAction: 'pause', monitor: MONITOR, delay: '0s' },
    // apply returns once a rolling update of the service's own settings (image, secrets) converged, or fails when
    // it rolled back; a new config rolls through createConfigRoll, which waits the same way
    convergeConfig: { delay: '1s', timeout: CONVERGE_TIMEOUT },
  });
  options.summary.after(createConfigRoll(scope, options.name, service, config));
  return service;
}

/**
 * The config as a `docker_config` named after its content hash, created only once the gateway's check passed it,
 * so a refused one leaves nothing behind.
 */
function createConfig(scope: Construct, options: GatewayServiceOptions, preflight: DataResource): Config {
  return new Config(scope, 'Config', {
    dependsOn: [preflight],
    name: Lazy.stringValue({
      produce: () => `${dockerName(scope, options.name)}-${contentHash(options.configText())}`,
    }),
    // sensitive, so a plan prints "(sensitive value)" rather than the whole config; ConfigSummary shows the fields
    data: Lazy.stringValue({ produce: () => sensitiveBase64(options.configText()) }),
    // a new config exists before the service moves to it, and the old one goes only once no task uses it
    lifecycle: { createBeforeDestroy: true },
  });
}

/**
 * Moves a running service to its new config, as Docker documents a config's rotation (`docker service update
 * --config-rm OLD --config-add NEW`: a rolling update by the service's own settings), from a `terraform_data`
 * replaced whenever the config's name changes. A plan then shows the config's new name, not the service's spec.
 * The service's first deploy creates it on its config, and the roll finds nothing to do.
 */
function createConfigRoll(scope: Construct, gateway: string, service: DockerService, config: Config): DataResource {
  const roll = new DataResource(scope, 'ConfigRoll', {
    triggersReplace: { config: config.name },
    dependsOn: [service],
    provisioners: [
      cliLocalExec(
        ['apply-config', '--target', GATEWAY_CONFIG_FILE, '--config-name', config.name, '--swarm'],
        service.name,
        () => dockerHostEnvironment(scope),
      ),
    ],
  });
  quietLocalExec(roll);
  roll.node.addValidation({ validate: () => unreachableEngine(scope, gateway) });
  return roll;
}

/** The props of a `Gateway` that make it a Swarm service of replicas (`GatewayProps` extends them). */
export interface GatewayReplicaOptions {
  /**
   * Run the gateway as a Docker Swarm service with this many replicas (a `docker_service`; the config a
   * `docker_config`, the session key a `docker_secret`) instead of one `docker_container`. A config change is
   * then a rolling update with no failed call (docs/replicas.md). The Docker host must be a Swarm manager.
   * @default - one docker_container
   */
  readonly replicas?: number;
  /**
   * The key that signs session ids, shared by the replicas (the file `/run/secrets/cdktf-mcp-gateway-session-key`,
   * the config's `session_key_file`): a sensitive value such as a `TerraformVariable` with `sensitive: true`,
   * holding hex or base64 text of at least 32 bytes (`openssl rand -base64 32`). Required when `replicas` > 1.
   * Changing it ends every session (docs/deploy.md: rotating the key).
   * @default - a single container generates a key once and keeps it in its state volume (sessions survive
   *   redeploys); one replica makes a random key at each start
   */
  readonly sessionKey?: string;
  /**
   * How replicas are reached: `host-network` (each binds `port` on its node, sharing it through SO_REUSEPORT;
   * one node) or `ingress` (Swarm's routing mesh on every node; the multi-node choice). Only with `replicas`.
   * @default 'host-network'
   */
  readonly publishMode?: PublishMode;
}

/** Fails unless `sessionKey` is absent or a reference to a sensitive value (never echoing it). */
export function checkSessionKey(sessionKey: unknown, fail: (m: string) => never): void {
  if (sessionKey !== undefined && (typeof sessionKey !== 'string' || !Token.isUnresolved(sessionKey))) {
    // never echo the value: it may be the key itself
    fail(
      'sessionKey must be a reference to a sensitive value, not a literal (a literal would be written into ' +
        "cdk.tf.json): e.g. new TerraformVariable(this, 'session_key', { type: 'string', sensitive: true }).stringValue",
    );
  }
}

/** `replicas` (undefined: a container) after the checks that tie `sessionKey` and `publishMode` to it. */
export function checkReplicas(
  props: GatewayReplicaOptions & { readonly hostIp?: string },
  fail: (m: string) => never,
): number | undefined {
  const { replicas, sessionKey, publishMode } = props;
  if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 1)) {
    fail(
      `replicas (${typeof replicas === 'number' ? String(replicas) : quote(replicas)}) must be an integer >= 1 (leave it out for one docker_container)`,
    );
  }
  if (publishMode !== undefined && !(PUBLISH_MODES as readonly string[]).includes(publishMode)) {
    fail(`publishMode ${quote(publishMode)} is not supported: expected one of ${PUBLISH_MODES.join(', ')}`);
  }
  checkSessionKey(sessionKey, fail);
  if (replicas === undefined) {
    if (publishMode !== undefined) fail(`publishMode applies to replicas only: set 'replicas', or drop 'publishMode'`);
    return undefined;
  }
  if (publishMode === 'ingress' && props.hostIp !== undefined) {
    fail(
      `hostIp (${quote(props.hostIp)}) cannot apply to publishMode 'ingress': Swarm's routing mesh publishes the port ` +
        "on every interface of every node; use publishMode 'host-network' (each replica binds hostIp), or drop hostIp",
    );
  }
  if (replicas > 1 && sessionKey === undefined) {
    fail(
      `replicas: ${replicas} needs 'sessionKey', shared by the replicas so that any of them serves any session: ` +
        "e.g. sessionKey: new TerraformVariable(this, 'session_key', { type: 'string', sensitive: true }).stringValue, " +
        'set with TF_VAR_session_key=$(openssl rand -base64 32)',
    );
  }
  return replicas;
}

/** The first 12 hex digits of the SHA-256 of `text` (enough to tell configs of one gateway apart). */
function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12);
}

/** Each replica's audit file on the volume; or, writing to the store, the node's name for its records. */
function auditEnv(
  auditLog: GatewaySettings['audit_log'],
  volume: Volume | undefined,
): Record<string, string> | undefined {
  // Swarm fills in the node's name: the store's audit index names each replica's node with it
  if (auditLog === 'store') return { [AUDIT_NODE_ENV]: '{{.Node.Hostname}}' };
  return volume === undefined ? undefined : { [AUDIT_LOG_ENV]: slotAuditPath(auditLog) };
}

/**
 * The audit file of one replica, `audit-{{.Task.Slot}}.jsonl` beside the configured one: Swarm fills in the
 * task slot (1..replicas, kept by the task that replaces another), so each replica appends to a file of its own.
 */
function slotAuditPath(auditLog: GatewaySettings['audit_log']): string {
  const path = typeof auditLog === 'object' ? auditLog.path : DEFAULT_AUDIT_LOG_PATH;
  const dot = path.lastIndexOf('.');
  const [stem, ext] = dot > path.lastIndexOf('/') ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
  return `${stem}-{{.Task.Slot}}${ext}`;
}

/** The session key and every secret the services name, as Docker secrets of the service. */
function secretMounts(
  scope: Construct,
  options: GatewayServiceOptions,
): ServiceTaskSpecContainerSpecSecrets[] | undefined {
  const tag = options.revision?.tag ?? '';
  const mounts = (options.secrets ?? []).map(([name, value]) =>
    secretMount(scope, `Secret-${name}`, `${options.name}-secret-${name}`, name, value, tag),
  );
  if (options.sessionKey !== undefined) {
    mounts.push(
      secretMount(scope, 'SessionKey', `${options.name}-session-key`, SESSION_KEY_SECRET_FILE, options.sessionKey, tag),
    );
  }
  return mounts.length === 0 ? undefined : mounts;
}

/**
 * A `docker_secret` (the session key, or a value a service names), mounted read-only for the gateway's user under
 * `/run/secrets/FILE`. Named after the secrets' revision (`tag`) so that a new value is a new secret (Docker
 * secrets cannot change, and one in use cannot be removed) while the name reveals nothing about the value.
 */
function secretMount(
  scope: Construct,
  id: string,
  name: string,
  fileName: string,
  value: string,
  tag: string,
): ServiceTaskSpecContainerSpecSecrets {
  const secret = new Secret(scope, id, {
    name: `${dockerName(scope, name)}-${tag}`,
    data: Fn.base64encode(value),
    lifecycle: { createBeforeDestroy: true },
  });
  return { secretId: secret.id, secretName: secret.name, fileName, fileUid: '1000', fileGid: '1000', fileMode: 0o400 };
}
