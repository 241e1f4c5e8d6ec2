import { createHash } from 'node:crypto';
import { Lazy } from 'cdktf';
import { Construct } from 'constructs';
import { Container, type ContainerConfig } from '@cdktf/provider-docker/lib/container';
import { Image } from '@cdktf/provider-docker/lib/image';
import { Volume } from '@cdktf/provider-docker/lib/volume';
import {
  AUDIT_LOG_DIR,
  GATEWAY_BUILD_ENV,
  GATEWAY_CONFIG_FILE,
  GATEWAY_CONFIG_LABEL,
  GATEWAY_HEALTHCHECK_SCRIPT,
  GATEWAY_LABEL,
  GATEWAY_STATE_DIR,
  SECRETS_DIR_ENV,
  STATE_CONFIG_FILE,
  STATE_SECRETS_DIR,
  STATE_STATUS_FILE,
} from '../src/config';
import { type ContainerFile, GATEWAY_USER, uploadFiles } from './container-files';
import { dockerName } from './docker-names';
import type { SecretsRevision } from './secrets-revision';

/**
 * The health probe of gateway and dashboard containers: the image's own script, every 5 s, so that a deploy
 * waits seconds, not half a minute, for a healthy container. (`start_interval` would probe faster during the start
 * period, but Docker refuses it below API 1.44, Docker 25.)
 */
export const CONTAINER_HEALTHCHECK = {
  test: ['CMD', 'node', GATEWAY_HEALTHCHECK_SCRIPT],
  interval: '5s',
  timeout: '5s',
  // as Docker prints it back (Go durations: '60s' would read back as '1m0s', a change in every plan)
  startPeriod: '30s',
  retries: 3,
} as const;

/** The label of a gateway's preflight check container (not `GATEWAY_LABEL`: it serves nothing). */
export const PREFLIGHT_LABEL = 'cdktf-mcp-gateway.preflight';

/** How long `cdktf deploy` waits for a new gateway or dashboard container to be healthy. */
export const WAIT_TIMEOUT_SECONDS = 120;

/** What `createGatewayContainer` needs from the `Gateway`. */
export interface GatewayContainerOptions {
  readonly name: string;
  readonly image: Image;
  /** The image's name as synthesized (its tag changes with the image's context). */
  readonly imageName: string;
  /** The published ports (the gateway's, and a metrics port of its own). */
  readonly ports: readonly { internal: number; external: number; ip?: string }[];
  /** The bridge network it shares with the backend containers. */
  readonly network: string;
  /** The config (first) and CA bundles, read at synthesis. */
  readonly files: () => readonly ContainerFile[];
  /** The services' secrets, as files under /run/secrets. */
  readonly secretFiles: readonly ContainerFile[];
  /** The session key, as a file under /run/secrets, when one is given. */
  readonly sessionKeyFile?: ContainerFile;
  /** Whether the audit log is on (a volume at the audit directory). */
  readonly auditLog: boolean;
  /** Names the config hand-off after the secrets' current values, when there are secrets. */
  readonly revision?: SecretsRevision;
}

/**
 * The single-container form of a gateway. The gateway serves the config in its state volume and reloads it in
 * place (`serve --watch --status-file`); a one-shot `apply-config` container, replaced whenever the config or a
 * secret changes, checks the new config, swaps it in and waits until the gateway reports serving it. So a config
 * change never replaces the gateway container, and a config the gateway refuses fails the deploy while the old one
 * keeps serving. Only a change of image, port, network, mount, CA bundle or session key replaces the container.
 */
export function createGatewayContainer(scope: Construct, options: GatewayContainerOptions): Container {
  const state = new Volume(scope, 'State', { name: dockerName(scope, options.name, 'state') });
  const stateMount = { volumeName: state.name, containerPath: GATEWAY_STATE_DIR };
  const build = `${GATEWAY_BUILD_ENV}=${options.imageName}`;
  const sessionKey = options.sessionKeyFile === undefined ? [] : [options.sessionKeyFile];
  const apply = createCheckContainer(scope, 'ApplyConfig', {
    ...options,
    secretFiles: [...options.secretFiles, ...sessionKey],
    role: 'config',
    // quiet: the output is the resource's container_logs, which a plan prints whole when the check is replaced;
    // it then holds a refusal's reason alone (the postcondition's message)
    command: ['apply-config', '--config', GATEWAY_CONFIG_FILE, '--state-dir', GATEWAY_STATE_DIR, '--quiet'],
    env: [build],
    volumes: [{ ...stateMount, readOnly: false }],
    label: GATEWAY_CONFIG_LABEL,
  });
  const audit = options.auditLog
    ? new Volume(scope, 'AuditLog', { name: dockerName(scope, options.name, 'audit') })
    : undefined;
  const container = new Container(scope, 'Resource', {
    name: dockerName(scope, options.name),
    image: options.image.imageId,
    restart: 'unless-stopped',
    user: GATEWAY_USER,
    command: ['serve', '--config', STATE_CONFIG_FILE, '--watch', '--status-file', STATE_STATUS_FILE],
    env: [`${SECRETS_DIR_ENV}=${STATE_SECRETS_DIR}`, build],
    ports: [...options.ports],
    healthcheck: { ...CONTAINER_HEALTHCHECK, test: [...CONTAINER_HEALTHCHECK.test] },
    wait: true,
    waitTimeout: WAIT_TIMEOUT_SECONDS,
    labels: [{ label: GATEWAY_LABEL, value: options.name }],
    networksAdvanced: [{ name: options.network }],
    volumes: [...(audit === undefined ? [] : [{ volumeName: audit.name, containerPath: AUDIT_LOG_DIR }]), stateMount],
    // the first deploy's config is in the state volume before the gateway starts
    dependsOn: [apply],
  });
  // CA bundles and the session key are read at start only: a change of them replaces the container
  uploadFiles(container, () => [...options.files().filter((f) => f.file !== GATEWAY_CONFIG_FILE), ...sessionKey]);
  return container;
}

/** What a preflight check runs on. */
export interface PreflightOptions {
  readonly name: string;
  readonly image: Image;
  /** The image's name as synthesized (its tag changes with the image's context). */
  readonly imageName: string;
  /** The config and CA bundles (no secret), read at synthesis: a change renames the check. */
  readonly files: () => readonly ContainerFile[];
  /** The secrets as files: a change of value renames the check through `revision`. */
  readonly secretFiles: readonly ContainerFile[];
  /** Names the check after the secrets' current values, when there are secrets. */
  readonly revision?: SecretsRevision;
}

/**
 * `serve --check` in a throw-away container (no network, no volume) on the gateway's files. It is replaced, under
 * a new name, whenever those files change (`create_before_destroy`); a Swarm service waits for it, so a failing
 * check stops the deploy while the running replicas still serve. Its postcondition carries the gateway's one-line
 * reason into `cdktf deploy`'s output.
 */
export function createPreflight(scope: Construct, options: PreflightOptions): Container {
  return createCheckContainer(scope, 'Preflight', {
    ...options,
    role: 'preflight',
    command: ['serve', '--config', GATEWAY_CONFIG_FILE, '--check'],
    label: PREFLIGHT_LABEL,
  });
}

/** Settings of the one-shot containers equal to what Docker reports back for them (see `createCheckContainer`). */
const ONE_SHOT_DEFAULTS: Partial<ContainerConfig> = {
  entrypoint: ['node', '/app/dist/src/cli/main.js'],
  workingDir: '/app',
  hostname: 'cdktf-mcp-gateway-check',
  // no probe for a one-shot run; Docker keeps the image's HEALTHCHECK timings beside NONE (image/Dockerfile)
  healthcheck: { test: ['NONE'], interval: '30s', timeout: '5s', startPeriod: '10s', retries: 3 },
  init: false,
  ipcMode: 'private',
  logDriver: 'json-file',
  runtime: 'runc',
  shmSize: 64,
  stopSignal: 'SIGTERM',
  stopTimeout: 0,
  cpuShares: 0,
  maxRetryCount: 0,
  memory: 0,
  memorySwap: 0,
  privileged: false,
  publishAllPorts: false,
};

interface CheckContainerOptions extends PreflightOptions {
  /** The name's part after the gateway's (`preflight`, `config`). */
  readonly role: string;
  readonly command: readonly string[];
  readonly label: string;
  readonly env?: readonly string[];
  readonly volumes?: readonly { volumeName: string; containerPath: string; readOnly?: boolean }[];
}

/**
 * A one-shot container on the gateway's files (no network) whose exit code decides the deploy: replaced under a
 * new name whenever those files, the secrets' values or the image change (`create_before_destroy`), and failing
 * the deploy with its last output line, the gateway's own reason, when it exits non-zero.
 */
function createCheckContainer(scope: Construct, id: string, options: CheckContainerOptions): Container {
  // the files without the secrets, whose values only the revision follows (a hash of them would reveal them)
  // and the image's name, which carries its context's hash: an upgrade replaces the check under a new name too
  const configs = Lazy.stringValue({
    produce: () =>
      createHash('sha256')
        .update(
          JSON.stringify({
            image: options.imageName,
            files: options.files().map((f) => ({ file: f.file, content: f.content })),
          }),
        )
        .digest('hex')
        .slice(0, 12),
  });
  const suffix = options.revision === undefined ? configs : `${configs}-${options.revision.tag}`;
  const check = new Container(scope, id, {
    name: `${dockerName(scope, options.name, options.role)}-${suffix}`,
    image: options.image.imageId,
    command: [...options.command],
    // what Docker reads back for a one-shot container, written out so that a replacement's plan lists only what
    // changes (unset, each would print as "x -> null" or "(known after apply)")
    ...ONE_SHOT_DEFAULTS,
    networkMode: 'none',
    restart: 'no',
    user: GATEWAY_USER,
    mustRun: false,
    attach: true,
    logs: true,
    ...(options.env !== undefined ? { env: [...options.env] } : {}),
    ...(options.volumes !== undefined ? { volumes: [...options.volumes] } : {}),
    labels: [{ label: options.label, value: options.name }],
    lifecycle: {
      createBeforeDestroy: true,
      postcondition: [
        {
          condition: '${self.exit_code == 0}',
          // container_logs is null when the check never ran (an upload failed): that error is reported already
          errorMessage: `Gateway '${options.name}' cannot start: \${trimspace(coalesce(self.container_logs, "(no output)"))}`,
        },
      ],
    },
  });
  // read back too, but not in the generated bindings (they follow an older provider schema). Empty lists and maps
  // are left out: the provider takes an empty one for none, so writing them out changes no plan.
  check.addOverride('platform', 'linux');
  uploadFiles(check, () => [...options.files(), ...options.secretFiles]);
  return check;
}
