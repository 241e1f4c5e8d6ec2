import { Token } from 'cdktf';
import { Construct } from 'constructs';
import type { Image } from '@cdktf/provider-docker/lib/image';
import { RegistryImage } from '@cdktf/provider-docker/lib/registry-image';
import { quote } from './docker-names';
import { checkNestedProps, type PropKeys } from './known-props';

/**
 * The image registry a replicated gateway's image reaches every Swarm node through: the stack builds the image on
 * the manager, pushes it there, and the tasks pull it by digest.
 */
export interface GatewayRegistry {
  /** `host:port` of the registry, e.g. `registry.internal:5000` (the nodes' engines must trust it). */
  readonly address: string;
  /** @default - no credentials (an open registry) */
  readonly username?: string;
  /** A sensitive value such as a `TerraformVariable` with `sensitive: true`. @default - none */
  readonly password?: string;
  /**
   * The registry speaks plain HTTP (the nodes' engines list it in `insecure-registries`), so the deploy reads the
   * pushed image's digest over HTTP too.
   * @default false
   */
  readonly insecure?: boolean;
}

/**
 * Where a replicated gateway's tasks may run. Replicas are spread over the eligible nodes (a `spread` preference on
 * `node.id`) whatever is set here.
 */
export interface GatewayPlacement {
  /** Swarm placement constraints, e.g. `['node.labels.mcp == true']`. @default - every node */
  readonly constraints?: readonly string[];
  /**
   * The most tasks of the gateway on one node. A rolling update starts a new task before it stops an old one, so
   * with a limit of 1 it needs a node with no task of the gateway: keep a spare node, or the update never finishes.
   * @default - no limit
   */
  readonly maxReplicasPerNode?: number;
}

const REGISTRY_PROPS: PropKeys<GatewayRegistry> = { address: true, username: true, password: true, insecure: true };
const PLACEMENT_PROPS: PropKeys<GatewayPlacement> = { constraints: true, maxReplicasPerNode: true };

/** The registry as checked (a bad value fails naming the field and the fix). */
export function checkRegistry(registry: GatewayRegistry, fail: (m: string) => never): GatewayRegistry {
  if (typeof registry !== 'object' || registry === null)
    fail(`registry (${quote(registry)}) must be { address, username?, password? }`);
  checkNestedProps(registry, REGISTRY_PROPS, 'registry', fail);
  const { address, username, password } = registry;
  if (typeof address !== 'string' || !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(address)) {
    fail(
      `registry.address (${quote(address)}) must be host or host:port, e.g. 'registry.internal:5000' (no scheme, no path)`,
    );
  }
  if (username !== undefined && typeof username !== 'string')
    fail(`registry.username (${quote(username)}) must be a string`);
  if (password !== undefined && (typeof password !== 'string' || !Token.isUnresolved(password))) {
    // never echo the value
    fail(
      'registry.password must be a reference to a sensitive value (e.g. a TerraformVariable with sensitive: true), not a literal',
    );
  }
  if ((username === undefined) !== (password === undefined))
    fail('registry: give both username and password, or neither');
  return registry;
}

/** The placement as checked. */
export function checkPlacement(placement: GatewayPlacement, fail: (m: string) => never): GatewayPlacement {
  if (typeof placement !== 'object' || placement === null)
    fail(`placement (${quote(placement)}) must be { constraints?, maxReplicasPerNode? }`);
  checkNestedProps(placement, PLACEMENT_PROPS, 'placement', fail);
  const { constraints, maxReplicasPerNode } = placement;
  if (
    constraints !== undefined &&
    (!Array.isArray(constraints) || constraints.some((c) => typeof c !== 'string' || !/^\S.*(==|!=).*\S$/.test(c)))
  ) {
    fail(`placement.constraints (${quote(constraints)}) must be Swarm constraints such as 'node.labels.mcp == true'`);
  }
  if (maxReplicasPerNode !== undefined && (!Number.isSafeInteger(maxReplicasPerNode) || maxReplicasPerNode < 1)) {
    fail(`placement.maxReplicasPerNode (${quote(maxReplicasPerNode)}) must be a positive integer`);
  }
  return placement;
}

/** The image pushed to the registry, and the reference tasks pull it by (`name@sha256:…`). */
export function pushImage(
  scope: Construct,
  image: Image,
  imageName: string,
  registry: GatewayRegistry,
): { pushed: RegistryImage; reference: string } {
  const pushed = new RegistryImage(scope, 'PushedImage', {
    name: imageName,
    // a new build (a new image id) is pushed again
    triggers: { image: image.imageId },
    keepRemotely: true,
    dependsOn: [image],
  });
  // set whole: the provider needs the block for any registry (an open one too) and takes it without credentials,
  // which the generated bindings do not allow
  pushed.addOverride('auth_config', {
    address: `${registry.insecure === true ? 'http' : 'https'}://${registry.address}`,
    ...(registry.username === undefined ? {} : { username: registry.username, password: registry.password }),
  });
  return { pushed, reference: `${imageName.replace(/:[^:/]+$/, '')}@${pushed.sha256Digest}` };
}

/** A task's placement: `placement`'s constraints and limit, and the replicas spread over nodes. */
export function taskPlacement(placement: GatewayPlacement | undefined): {
  constraints?: string[];
  maxReplicas?: number;
  prefs: string[];
} {
  return {
    ...(placement?.constraints === undefined ? {} : { constraints: [...placement.constraints] }),
    ...(placement?.maxReplicasPerNode === undefined ? {} : { maxReplicas: placement.maxReplicasPerNode }),
    // one replica per node before a second on any: a lost node takes as few as it can
    prefs: ['spread=node.id'],
  };
}

/** The service's `auth` (the nodes pull with these credentials), when the registry has some. */
export function registryAuth(registry: GatewayRegistry | undefined): {
  auth?: { serverAddress: string; username: string; password: string };
} {
  if (registry?.username === undefined) return {};
  return { auth: { serverAddress: registry.address, username: registry.username, password: registry.password! } };
}
