import { createHash } from 'node:crypto';
import { Lazy } from 'cdktf';
import { Construct } from 'constructs';
import { Container } from '@cdktf/provider-docker/lib/container';
import { Image } from '@cdktf/provider-docker/lib/image';
import { Volume } from '@cdktf/provider-docker/lib/volume';
import {
  AUDIT_LOG_DIR,
  GATEWAY_CONFIG_FILE,
  GATEWAY_HEALTHCHECK_SCRIPT,
  GATEWAY_LABEL,
  GATEWAY_STATE_DIR,
} from '../src/contract';
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
  /** The config and CA bundles, read at synthesis. */
  readonly files: () => readonly ContainerFile[];
  /** The secrets (the session key among them), as files under /run/secrets. */
  readonly secretFiles: readonly ContainerFile[];
  /** Whether the audit log is on (a volume at the audit directory). */
  readonly auditLog: boolean;
  /** Whether the gateway keeps a generated session key in a state volume (no `sessionKey` given). */
  readonly stateVolume: boolean;
  /** Names the preflight check after the secrets' current values, when there are secrets. */
  readonly revision?: SecretsRevision;
}

/**
 * The single-container form of a gateway: the gateway container, which the deploy waits to see healthy, and beside
 * it a preflight run of the image's `serve --check` on the exact files the gateway gets, so that a config or a
 * secret it cannot start with fails the deploy with the gateway's own reason. The two run side by side: the
 * container's fixed name and port mean Terraform removes the old one first anyway, and waiting for the check
 * would lengthen every redeploy's gap in service by its run time.
 */
export function createGatewayContainer(scope: Construct, options: GatewayContainerOptions): Container {
  const files = (): ContainerFile[] => [...options.files(), ...options.secretFiles];
  createPreflight(scope, options);
  const audit = options.auditLog
    ? new Volume(scope, 'AuditLog', { name: dockerName(scope, options.name, 'audit') })
    : undefined;
  const state = options.stateVolume
    ? new Volume(scope, 'State', { name: dockerName(scope, options.name, 'state') })
    : undefined;
  const volumes = [
    ...(audit === undefined ? [] : [{ volumeName: audit.name, containerPath: AUDIT_LOG_DIR }]),
    ...(state === undefined ? [] : [{ volumeName: state.name, containerPath: GATEWAY_STATE_DIR }]),
  ];
  const container = new Container(scope, 'Resource', {
    name: dockerName(scope, options.name),
    image: options.image.imageId,
    restart: 'unless-stopped',
    user: GATEWAY_USER,
    ports: [...options.ports],
    healthcheck: { ...CONTAINER_HEALTHCHECK, test: [...CONTAINER_HEALTHCHECK.test] },
    wait: true,
    waitTimeout: WAIT_TIMEOUT_SECONDS,
    labels: [{ label: GATEWAY_LABEL, value: options.name }],
    networksAdvanced: [{ name: options.network }],
    volumes: volumes.length === 0 ? undefined : volumes,
  });
  uploadFiles(container, files);
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
  // the files without the secrets, whose values only the revision follows (a hash of them would reveal them)
  // and the image's name, which carries its context's hash: an upgrade replaces the check under a new name too
  const configs = Lazy.stringValue({
    produce: () =>
      createHash('sha256')
        .update(JSON.stringify({ image: options.imageName, files: options.files() }))
        .digest('hex')
        .slice(0, 12),
  });
  const suffix = options.revision === undefined ? configs : `${configs}-${options.revision.tag}`;
  const preflight = new Container(scope, 'Preflight', {
    name: `${dockerName(scope, options.name, 'preflight')}-${suffix}`,
    image: options.image.imageId,
    command: ['serve', '--config', GATEWAY_CONFIG_FILE, '--check'],
    networkMode: 'none',
    restart: 'no',
    user: GATEWAY_USER,
    mustRun: false,
    attach: true,
    logs: true,
    labels: [{ label: PREFLIGHT_LABEL, value: options.name }],
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
  uploadFiles(preflight, () => [...options.files(), ...options.secretFiles]);
  return preflight;
}
