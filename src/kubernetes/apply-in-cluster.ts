import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  configDigest,
  K8S_CONFIG_KEY,
  K8S_DIGEST_ANNOTATION,
  K8S_SECRETS_SUBDIR,
  K8S_SESSION_KEY,
  k8sLabels,
  k8sNames,
} from '../config';
import type { ClusterApi } from './cluster-api';

/** What a pod's `/readyz` says of the config it serves, or `undefined` when it did not answer. */
export interface PodReport {
  readonly digest: string;
  /** When the pod loaded that config (ms since the epoch). */
  readonly loadedAt: number;
}

/** What `applyInCluster` works on. */
export interface InClusterApplyOptions {
  readonly api: ClusterApi;
  readonly namespace: string;
  readonly gateway: string;
  /** The folder the job mounts Terraform's copy of the config in: `gateway.json` and `secrets/NAME`. */
  readonly nextDir: string;
  /** The digest synthesis computed for the config, when it had no value known only at deploy. @default - none */
  readonly expectDigest?: string;
  /** The gateway's port in its pods. */
  readonly podPort: number;
  readonly timeoutMs: number;
  /** The gateway's check of a config file (`serve --check`): a reason, or `undefined` when it would serve it. */
  readonly check: (configPath: string) => Promise<string | undefined>;
  /** Asks a pod what it serves. @default an HTTP GET of `/readyz` */
  readonly readyz?: (ip: string, port: number) => Promise<PodReport | undefined>;
  /** @default 250 */
  readonly pollMs?: number;
}

/** How `applyInCluster` ended. */
export type InClusterResult =
  | { readonly outcome: 'serving'; readonly digest: string; readonly pods: number; readonly ms: number }
  | { readonly outcome: 'stored'; readonly digest: string; readonly why: string }
  | { readonly outcome: 'refused'; readonly reason: string };

interface LiveCopy {
  readonly config: string | undefined;
  readonly secrets: Readonly<Record<string, string>>;
}

/**
 * Hands the config Terraform wrote to a gateway's pods, the Kubernetes form of `apply-config`:
 * 1. waits until the mounted copy is the one synthesis made (`expectDigest`), then checks it as `serve --check`
 *    does; a refusal changes nothing the pods mount;
 * 2. writes it, with its secrets, into the live ConfigMap and Secret the pods mount (one projected volume, so the
 *    config and its secrets change together), keeping a session key the cluster generated before;
 * 3. asks every pod's kubelet to refresh the mount now (an annotation) and waits until each ready pod's `/readyz`
 *    reports the new digest, loaded after the swap. No report in time puts the previous live copy back.
 */
export async function applyInCluster(options: InClusterApplyOptions): Promise<InClusterResult> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const pollMs = options.pollMs ?? 250;
  const configPath = path.join(options.nextDir, K8S_CONFIG_KEY);

  const mounted = await mountedConfig(configPath, options.expectDigest, deadline, pollMs);
  if (mounted === undefined) {
    return {
      outcome: 'refused',
      reason: `the job's copy of ${K8S_CONFIG_KEY} did not become the deployed one within ${options.timeoutMs / 1000} s`,
    };
  }
  const problem = await options.check(configPath);
  if (problem !== undefined) return { outcome: 'refused', reason: problem };
  const { text, digest } = mounted;

  const names = k8sNames(options.gateway);
  const ns = encodeURIComponent(options.namespace);
  const configMapPath = `/api/v1/namespaces/${ns}/configmaps/${names.live}`;
  const secretPath = `/api/v1/namespaces/${ns}/secrets/${names.live}`;
  const before = await readLive(options.api, configMapPath, secretPath);
  const secrets = secretData(path.join(options.nextDir, K8S_SECRETS_SUBDIR), before.secrets);
  if (before.config === text && sameData(before.secrets, secrets)) {
    return { outcome: 'serving', digest, pods: 0, ms: 0 };
  }

  const readyz = options.readyz ?? readyzOverHttp;
  const pods = () => listPods(options.api, ns, options.gateway);
  const loadedBefore = new Map<string, number>();
  for (const pod of await pods()) {
    const report = pod.ready ? await readyz(pod.ip, options.podPort) : undefined;
    loadedBefore.set(pod.name, report?.loadedAt ?? 0);
  }
  await writeLive(options.api, configMapPath, secretPath, { config: text, secrets }, before);
  const swappedAt = Date.now();
  if (loadedBefore.size === 0) return { outcome: 'stored', digest, why: 'no pod of the gateway runs yet' };

  const nudged = new Map<string, number>();
  let waiting: string[] = [];
  while (Date.now() < deadline) {
    waiting = [];
    const current = await pods();
    for (const pod of current) {
      if ((nudged.get(pod.name) ?? 0) + 5_000 < Date.now()) {
        nudged.set(pod.name, Date.now());
        await nudge(options.api, ns, pod.name, digest);
      }
      if (!pod.ready) continue;
      const report = await readyz(pod.ip, options.podPort);
      const fresh = report !== undefined && report.loadedAt > (loadedBefore.get(pod.name) ?? 0);
      if (report?.digest !== digest || !fresh)
        waiting.push(`${pod.name} (${report?.digest.slice(0, 12) ?? 'no answer'})`);
    }
    const ready = current.filter((p) => p.ready).length;
    if (waiting.length === 0 && ready > 0)
      return { outcome: 'serving', digest, pods: ready, ms: Date.now() - swappedAt };
    await sleep(pollMs);
  }
  await writeLive(options.api, configMapPath, secretPath, before, { config: text, secrets });
  return {
    outcome: 'refused',
    reason:
      `the gateway's pods did not report serving config ${digest.slice(0, 12)} within ${options.timeoutMs / 1000} s ` +
      `(${waiting.join(', ') || 'no ready pod'}); the previous config was put back`,
  };
}

/**
 * The mounted config and its digest once it is the expected one (the kubelet may still hold the previous version
 * briefly).
 */
async function mountedConfig(
  file: string,
  expectDigest: string | undefined,
  deadline: number,
  pollMs: number,
): Promise<{ text: string; digest: string } | undefined> {
  for (;;) {
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(file);
    } catch {
      bytes = undefined;
    }
    const digest = bytes === undefined ? undefined : configDigest(bytes);
    if (digest !== undefined && (expectDigest === undefined || digest === expectDigest)) {
      return { text: bytes!.toString('utf8'), digest };
    }
    if (Date.now() >= deadline) return undefined;
    await sleep(pollMs);
  }
}

/** The secrets as the live Secret's `data` (base64), with the session key: the given one, else kept, else new. */
function secretData(dir: string, live: Readonly<Record<string, string>>): Record<string, string> {
  const data: Record<string, string> = {};
  let names: string[] = [];
  try {
    // a Secret volume also holds the kubelet's `..data` links
    names = readdirSync(dir).filter((n) => !n.startsWith('..'));
  } catch {
    names = [];
  }
  for (const name of names) data[name] = readFileSync(path.join(dir, name)).toString('base64');
  // the key file holds base64 text (as `openssl rand -base64 32` writes it); `data` holds that text base64-encoded
  data[K8S_SESSION_KEY] ??= live[K8S_SESSION_KEY] ?? Buffer.from(randomBytes(32).toString('base64')).toString('base64');
  return data;
}

async function readLive(api: ClusterApi, configMapPath: string, secretPath: string): Promise<LiveCopy> {
  const [configMap, secret] = await Promise.all([api.get(configMapPath), api.get(secretPath)]);
  const config = (configMap.data as Record<string, string> | undefined)?.[K8S_CONFIG_KEY];
  return { config, secrets: { ...((secret.data as Record<string, string> | undefined) ?? {}) } };
}

/** Replaces the live copy `was` with `next` (a merge patch: keys `next` lacks are removed). */
async function writeLive(
  api: ClusterApi,
  configMapPath: string,
  secretPath: string,
  next: LiveCopy,
  was: LiveCopy,
): Promise<void> {
  const removed = Object.fromEntries(
    Object.keys(was.secrets)
      .filter((k) => !(k in next.secrets))
      .map((k) => [k, null]),
  );
  // the Secret first: a kubelet refresh in between then pairs the old config with a superset of its secrets
  await api.patch(secretPath, { data: { ...next.secrets, ...removed } });
  await api.patch(configMapPath, { data: { [K8S_CONFIG_KEY]: next.config ?? null } });
}

function sameData(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

interface PodInfo {
  readonly name: string;
  readonly ip: string;
  readonly ready: boolean;
}

/** The gateway's pods that are not being deleted. */
async function listPods(api: ClusterApi, ns: string, gateway: string): Promise<PodInfo[]> {
  const selector = Object.entries(k8sLabels(gateway, 'gateway'))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const list = await api.get(`/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`);
  const items = (list.items as PodObject[] | undefined) ?? [];
  return items
    .filter(
      (p) =>
        p.metadata.deletionTimestamp === undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
    )
    .map((p) => ({
      name: p.metadata.name,
      ip: p.status?.podIP ?? '',
      ready:
        p.status?.podIP !== undefined &&
        (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    }));
}

interface PodObject {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

/** Prompts the pod's kubelet to refresh its mounted config; a failure only leaves it to the periodic sync. */
async function nudge(api: ClusterApi, ns: string, pod: string, digest: string): Promise<void> {
  try {
    await api.patch(`/api/v1/namespaces/${ns}/pods/${encodeURIComponent(pod)}`, {
      metadata: { annotations: { [K8S_DIGEST_ANNOTATION]: digest } },
    });
  } catch {
    // the pod went meanwhile, or the role lacks the right: the kubelet's own sync still delivers the config
  }
}

async function readyzOverHttp(ip: string, port: number): Promise<PodReport | undefined> {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  try {
    const res = await fetch(`http://${host}:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json()) as { config_digest?: unknown; config_loaded_at?: unknown };
    if (typeof body.config_digest !== 'string') return undefined;
    return { digest: body.config_digest, loadedAt: Number(body.config_loaded_at) || 0 };
  } catch {
    return undefined;
  }
}
