import { createHash } from 'node:crypto';
import { DataResource, Lazy, TerraformStack } from 'cdktf';
import { Volume } from '@cdktf/provider-docker/lib/volume';
import { Construct } from 'constructs';
import type { Image } from '@cdktf/provider-docker/lib/image';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import {
  DOCKER_HANDOFF_KEY,
  type DockerHandoff,
  fromTerraformLiteral,
  GATEWAY_CONFIG_FILE,
  HANDOFF_FILE_ENV_PREFIX,
  HANDOFF_IMAGE_ENV,
  type HandoffFile,
} from '../src/config';
import { type ContainerFile, GATEWAY_UID, GATEWAY_USER } from './container-files';
import { cliLocalExec, quietLocalExec } from './cli-local-exec';
import { dockerName } from './docker-names';

/** The label of a gateway's preflight check container (not `GATEWAY_LABEL`: it serves nothing). */
export const PREFLIGHT_LABEL = 'cdktf-mcp-gateway.preflight';

/** What a one-shot run on the gateway's files needs. */
export interface OneShotRunOptions {
  /** The gateway's name. */
  readonly name: string;
  readonly image: Image;
  /** The image's name as synthesized (its tag changes with the image's context). */
  readonly imageName: string;
  /** The config (first) and CA bundles, read at synthesis: a change runs it again. */
  readonly files: () => readonly ContainerFile[];
  /** The secrets as files: a change of value runs it again. */
  readonly secretFiles: readonly ContainerFile[];
  /** The container name's part after the gateway's (`config`, `preflight`). */
  readonly role: string;
  /** The arguments after the image's entrypoint (the CLI). */
  readonly command: readonly string[];
  readonly label: string;
  /** @default - no environment */
  readonly env?: readonly string[];
  /** A volume to mount: a change of it runs it again. @default - none */
  readonly volume?: { readonly resource: Volume; readonly name: string; readonly path: string };
}

/**
 * A one-shot container on the gateway's files (no network) whose exit code decides the deploy: a
 * `terraform_data` replaced whenever those files, a secret's value, the image or the volume change, whose
 * `local-exec` runs `apply-config --docker` on the deploying machine. That creates the container through the
 * `docker` CLI, copies the files in, runs it, removes it, and fails the deploy with the gateway's own reason
 * when it exits non-zero. A plan shows only the changed digest: the container's description lies under the
 * resource's `//` comment, which Terraform ignores, and secret values travel only in the provisioner's environment.
 */
export function createOneShotRun(scope: Construct, id: string, options: OneShotRunOptions): DataResource {
  const digest = (): string => filesDigest(options.imageName, options.files());
  const container = (): string => `${dockerName(scope, options.name, options.role)}-${digest()}`;
  const run = new DataResource(scope, id, {
    triggersReplace: {
      files: Lazy.stringValue({ produce: digest }),
      // the values themselves, sensitive (a plan shows "(sensitive value)"), never a hash a guess could be tested on
      ...(options.secretFiles.length > 0
        ? { secrets: Object.fromEntries(options.secretFiles.map((f) => [f.file, f.content])) }
        : {}),
      ...(options.volume !== undefined ? { volume: options.volume.name } : {}),
    },
    ...(options.volume !== undefined
      ? {
          dependsOn: [options.volume.resource],
          // a volume created again under the same name is empty: the run fills it again
          lifecycle: {
            replaceTriggeredBy: [`${Volume.tfResourceType}.${options.volume.resource.friendlyUniqueId}`],
          },
        }
      : {}),
    provisioners: [
      cliLocalExec(['apply-config', '--docker'], Lazy.stringValue({ produce: container }), () => ({
        [HANDOFF_IMAGE_ENV]: options.image.imageId,
        ...Object.fromEntries(options.secretFiles.map((f, i) => [`${HANDOFF_FILE_ENV_PREFIX}${i}`, f.content])),
        ...dockerHostEnvironment(scope),
      })),
    ],
  });
  quietLocalExec(run);
  run.node.addValidation({ validate: () => unreachableEngine(scope, options.name) });
  run.addOverride(
    `//.${DOCKER_HANDOFF_KEY}`,
    Lazy.anyValue({
      produce: (): DockerHandoff => ({
        gateway: options.name,
        container: container(),
        user: GATEWAY_USER,
        labels: { [options.label]: options.name },
        env: [...(options.env ?? [])],
        volumes: options.volume === undefined ? [] : [`${options.volume.name}:${options.volume.path}`],
        command: [...options.command],
        files: [
          ...options.files().map((f) => handoffFile(f, { content_base64: base64Of(f) })),
          ...options.secretFiles.map((f, i) => handoffFile(f, { env: `${HANDOFF_FILE_ENV_PREFIX}${i}` })),
        ],
      }),
    }),
  );
  return run;
}

/**
 * `serve --check` on the gateway's files (no network, no volume): a Swarm service waits for it, so a failing
 * check stops the deploy with the gateway's one-line reason while the running replicas still serve.
 */
export function createPreflight(
  scope: Construct,
  options: Omit<OneShotRunOptions, 'role' | 'command' | 'label' | 'env' | 'volume'>,
): DataResource {
  return createOneShotRun(scope, 'Preflight', {
    ...options,
    role: 'preflight',
    command: ['serve', '--config', GATEWAY_CONFIG_FILE, '--check'],
    label: PREFLIGHT_LABEL,
  });
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

/** The Docker provider the gateway's resources use: the one without an alias. */
function defaultProvider(scope: Construct): DockerProvider | undefined {
  return TerraformStack.of(scope)
    .node.findAll()
    .find((c): c is DockerProvider => c instanceof DockerProvider && c.alias === undefined);
}

/**
 * The engine the stack deploys to, for the `docker` CLI the run uses: the `host` and `cert_path` of the default
 * provider. Without a `host` the run takes the deploy's `DOCKER_HOST`, or the provider's default socket.
 */
export function dockerHostEnvironment(scope: Construct): Record<string, string> {
  const provider = defaultProvider(scope);
  const env: Record<string, string> = {};
  if (provider?.host !== undefined) env.DOCKER_HOST = provider.host;
  if (provider?.certPath !== undefined)
    Object.assign(env, { DOCKER_CERT_PATH: provider.certPath, DOCKER_TLS_VERIFY: '1' });
  return env;
}

/** The provider settings the `docker` CLI cannot take: the run would reach no engine, or another one. */
export function unreachableEngine(scope: Construct, gateway: string): string[] {
  const provider = defaultProvider(scope);
  const set = (['caMaterial', 'certMaterial', 'keyMaterial', 'sshOpts'] as const).filter(
    (k) => provider?.[k] !== undefined,
  );
  if (set.length === 0) return [];
  const names = set.map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)).join(', ');
  return [
    `Gateway '${gateway}': the Docker provider sets ${names}, which the docker CLI that hands the gateway its config ` +
      'cannot use: give the certificates as cert_path (TLS) or the ssh options in ~/.ssh/config (ssh)',
  ];
}
