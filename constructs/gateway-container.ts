import { Construct } from 'constructs';
import { Container } from '@cdktf/provider-docker/lib/container';
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
import type { ConfigSummary } from './config-summary';
import { createOneShotRun } from './one-shot-run';

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
  /** The stack output that reports the config: it records a new one only once the hand-over gave it. */
  readonly summary: ConfigSummary;
}

/**
 * The single-container form of a gateway. The gateway serves the config in its state volume and reloads it in
 * place (`serve --watch --status-file`); the deploy's config hand-over (`createOneShotRun`), run again whenever
 * the config or a secret changes, checks the new config, swaps it in and waits until the gateway reports serving it. So a config
 * change never replaces the gateway container, and a config the gateway refuses fails the deploy while the old one
 * keeps serving. Only a change of image, port, network, mount, CA bundle or session key replaces the container.
 */
export function createGatewayContainer(scope: Construct, options: GatewayContainerOptions): Container {
  const state = new Volume(scope, 'State', { name: dockerName(scope, options.name, 'state') });
  const stateMount = { volumeName: state.name, containerPath: GATEWAY_STATE_DIR };
  const build = `${GATEWAY_BUILD_ENV}=${options.imageName}`;
  const sessionKey = options.sessionKeyFile === undefined ? [] : [options.sessionKeyFile];
  const apply = createOneShotRun(scope, 'ApplyConfig', {
    ...options,
    secretFiles: [...options.secretFiles, ...sessionKey],
    role: 'config',
    // quiet: the run prints only a refusal's reason, which the deploy shows
    command: ['apply-config', '--config', GATEWAY_CONFIG_FILE, '--state-dir', GATEWAY_STATE_DIR, '--quiet'],
    env: [build],
    volume: { resource: state, name: dockerName(scope, options.name, 'state'), path: GATEWAY_STATE_DIR },
    label: GATEWAY_CONFIG_LABEL,
  });
  options.summary.after(apply);
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
