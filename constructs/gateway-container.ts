import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { DataResource, Lazy, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { Container, type ContainerConfig } from '@cdktf/provider-docker/lib/container';
import { Image } from '@cdktf/provider-docker/lib/image';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { Volume } from '@cdktf/provider-docker/lib/volume';
import {
  AUDIT_LOG_DIR,
  DOCKER_HANDOFF_KEY,
  type DockerHandoff,
  fromTerraformLiteral,
  GATEWAY_BUILD_ENV,
  GATEWAY_CONFIG_FILE,
  GATEWAY_CONFIG_LABEL,
  GATEWAY_HEALTHCHECK_SCRIPT,
  GATEWAY_LABEL,
  GATEWAY_STATE_DIR,
  HANDOFF_FILE_ENV_PREFIX,
  HANDOFF_IMAGE_ENV,
  type HandoffFile,
  SECRETS_DIR_ENV,
  STATE_CONFIG_FILE,
  STATE_SECRETS_DIR,
  STATE_STATUS_FILE,
} from '../src/config';
import { type ContainerFile, GATEWAY_UID, GATEWAY_USER, uploadFiles } from './container-files';
import { packageRoot } from '../src/package-info';
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
  /** Runs the config hand-over again when the secrets' values change, when there are secrets. */
  readonly revision?: SecretsRevision;
}

/**
 * The single-container form of a gateway. The gateway serves the config in its state volume and reloads it in
 * place (`serve --watch --status-file`); the deploy's config hand-over (`createConfigApply`), run again whenever
 * the config or a secret changes, checks the new config, swaps it in and waits until the gateway reports serving it. So a config
 * change never replaces the gateway container, and a config the gateway refuses fails the deploy while the old one
 * keeps serving. Only a change of image, port, network, mount, CA bundle or session key replaces the container.
 */
export function createGatewayContainer(scope: Construct, options: GatewayContainerOptions): Container {
  const state = new Volume(scope, 'State', { name: dockerName(scope, options.name, 'state') });
  const stateMount = { volumeName: state.name, containerPath: GATEWAY_STATE_DIR };
  const build = `${GATEWAY_BUILD_ENV}=${options.imageName}`;
  const sessionKey = options.sessionKeyFile === undefined ? [] : [options.sessionKeyFile];
  const apply = createConfigApply(scope, {
    ...options,
    volume: state,
    secretFiles: [...options.secretFiles, ...sessionKey],
    env: [build],
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

interface ConfigApplyOptions extends GatewayContainerOptions {
  readonly volume: Volume;
  readonly env: readonly string[];
}

/**
 * The config's hand-over: a `terraform_data` replaced whenever the config, a CA bundle, a secret's value, the
 * image or the state volume changes, whose `local-exec` runs `apply-config --docker` on the deploying machine.
 * That starts the one-shot `apply-config` container on the gateway's files (no network, the state volume) and
 * fails the deploy with the gateway's own reason when it refuses them. A plan shows the replacement as the
 * changed digest alone: what the container runs is left under the resource's `//` comment, which Terraform
 * ignores, and secret values reach it only through the provisioner's environment.
 */
function createConfigApply(scope: Construct, options: ConfigApplyOptions): DataResource {
  const handoffName = dockerName(scope, options.name, 'config');
  const volumeName = dockerName(scope, options.name, 'state');
  const files = Lazy.stringValue({ produce: () => filesDigest(options.imageName, options.files()) });
  const container = Lazy.stringValue({
    produce: () => `${handoffName}-${filesDigest(options.imageName, options.files())}`,
  });
  const apply = new DataResource(scope, 'ApplyConfig', {
    triggersReplace: {
      files,
      ...(options.revision !== undefined ? { secrets: options.revision.tag } : {}),
      volume: volumeName,
    },
    dependsOn: [options.volume],
    provisioners: [
      {
        type: 'local-exec',
        interpreter: [
          'node',
          path.join(packageRoot(__dirname), 'dist', 'src', 'cli', 'main.js'),
          'apply-config',
          '--docker',
        ],
        command: container,
        environment: {
          [HANDOFF_IMAGE_ENV]: options.image.imageId,
          ...Object.fromEntries(options.secretFiles.map((f, i) => [`${HANDOFF_FILE_ENV_PREFIX}${i}`, f.content])),
          ...dockerHostEnvironment(scope),
        },
      },
    ],
  });
  // without the "Executing: [...]" line: the deploy prints only a refusal's reason
  apply.addOverride('provisioner.0.local-exec.quiet', true);
  apply.addOverride(
    `//.${DOCKER_HANDOFF_KEY}`,
    Lazy.anyValue({
      produce: (): DockerHandoff => ({
        gateway: options.name,
        container: `${handoffName}-${filesDigest(options.imageName, options.files())}`,
        user: GATEWAY_USER,
        labels: { [GATEWAY_CONFIG_LABEL]: options.name },
        env: [...options.env],
        volumes: [`${volumeName}:${GATEWAY_STATE_DIR}`],
        command: ['apply-config', '--config', GATEWAY_CONFIG_FILE, '--state-dir', GATEWAY_STATE_DIR, '--quiet'],
        files: [
          ...options.files().map((f) => handoffFile(f, { content_base64: base64Of(f) })),
          ...options.secretFiles.map((f, i) => handoffFile(f, { env: `${HANDOFF_FILE_ENV_PREFIX}${i}` })),
        ],
      }),
    }),
  );
  return apply;
}

/** Twelve hex digits naming the gateway's files and image (no secret: their values follow the revision). */
function filesDigest(imageName: string, files: readonly ContainerFile[]): string {
  return createHash('sha256')
    .update(JSON.stringify({ image: imageName, files: files.map((f) => ({ file: f.file, content: f.content })) }))
    .digest('hex')
    .slice(0, 12);
}

function handoffFile(f: ContainerFile, content: Pick<HandoffFile, 'content_base64' | 'env'>): HandoffFile {
  const owner = f.ownedByGateway === true ? GATEWAY_UID : 0;
  return { path: f.file, ...content, mode: f.permissions ?? '0444', uid: owner, gid: owner };
}

/** A literal file's bytes as the container gets them: Terraform's escapes undone (see `terraformLiteral`). */
function base64Of(f: ContainerFile): string {
  return Buffer.from(f.sensitive === true ? f.content : fromTerraformLiteral(f.content), 'utf8').toString('base64');
}

/** The Docker provider's `host` and `cert_path`, for the `docker` CLI the hand-over runs. */
function dockerHostEnvironment(scope: Construct): Record<string, string> {
  const provider = TerraformStack.of(scope)
    .node.findAll()
    .find((c): c is DockerProvider => c instanceof DockerProvider);
  const env: Record<string, string> = {};
  if (provider?.host !== undefined) env.DOCKER_HOST = provider.host;
  if (provider?.certPath !== undefined)
    Object.assign(env, { DOCKER_CERT_PATH: provider.certPath, DOCKER_TLS_VERIFY: '1' });
  return env;
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
