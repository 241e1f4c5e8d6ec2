import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { configDigest } from '../../src/config';
import type { ClusterApi } from '../../src/kubernetes/cluster-api';
import { applyInCluster, type PodReport } from '../../src/kubernetes/apply-in-cluster';
import { tempDir } from '../helpers/temp-dir';

const NS = 'mcp';
const LIVE_CM = `/api/v1/namespaces/${NS}/configmaps/orders-live`;
const LIVE_SECRET = `/api/v1/namespaces/${NS}/secrets/orders-live`;
const b64 = (s: string) => Buffer.from(s).toString('base64');

/**
 * An API server holding the live ConfigMap and Secret and the gateway's pods; each pod "reloads" (reports the live
 * digest, loaded now) once its kubelet is nudged, unless `stuck`.
 */
class FakeCluster implements ClusterApi {
  public configMap: Record<string, string> = {};
  public secret: Record<string, string> = {};
  public patches: string[] = [];
  public readonly pods = new Map<string, { ip: string; report: PodReport; stuck?: boolean }>();

  public async get(p: string): Promise<Record<string, unknown>> {
    if (p === LIVE_CM) return { data: { ...this.configMap } };
    if (p === LIVE_SECRET) return { data: { ...this.secret } };
    if (p.startsWith(`/api/v1/namespaces/${NS}/pods?labelSelector=`)) {
      return {
        items: [...this.pods].map(([name, pod]) => ({
          metadata: { name },
          status: { phase: 'Running', podIP: pod.ip, conditions: [{ type: 'Ready', status: 'True' }] },
        })),
      };
    }
    throw new Error(`unexpected GET ${p}`);
  }

  public async patch(p: string, body: unknown): Promise<Record<string, unknown>> {
    this.patches.push(p);
    const data = (body as { data?: Record<string, string | null> }).data ?? {};
    const merge = (into: Record<string, string>) => {
      for (const [k, v] of Object.entries(data)) {
        if (v === null) delete into[k];
        else into[k] = v;
      }
    };
    if (p === LIVE_CM) merge(this.configMap);
    else if (p === LIVE_SECRET) merge(this.secret);
    else if (p.startsWith(`/api/v1/namespaces/${NS}/pods/`)) {
      const pod = this.pods.get(decodeURIComponent(p.split('/').pop()!));
      const text = this.configMap['gateway.json'];
      if (pod !== undefined && !pod.stuck && text !== undefined) {
        pod.report = { digest: configDigest(Buffer.from(text)), loadedAt: pod.report.loadedAt + 1 };
      }
    } else throw new Error(`unexpected PATCH ${p}`);
    return {};
  }

  public readyz = async (ip: string): Promise<PodReport | undefined> =>
    [...this.pods.values()].find((p) => p.ip === ip)?.report;
}

function nextDir(config: string, secrets: Record<string, string>): string {
  const dir = tempDir('k8s-next-');
  fs.writeFileSync(path.join(dir, 'gateway.json'), config);
  fs.mkdirSync(path.join(dir, 'secrets'));
  // what a Secret volume holds beside the keys: the kubelet's own links
  fs.mkdirSync(path.join(dir, 'secrets', '..2026_12_05'));
  for (const [k, v] of Object.entries(secrets)) fs.writeFileSync(path.join(dir, 'secrets', k), v);
  return dir;
}

const CONFIG_A = '{"version":1,"gateway":{"name":"orders","validate_input":true},"tools":[]}\n';
const CONFIG_B = '{"version":1,"gateway":{"name":"orders","validate_input":false},"tools":[]}\n';

function options(cluster: FakeCluster, dir: string, extra: Partial<Parameters<typeof applyInCluster>[0]> = {}) {
  return {
    api: cluster,
    namespace: NS,
    gateway: 'orders',
    nextDir: dir,
    podPort: 8080,
    timeoutMs: 2_000,
    pollMs: 10,
    check: async () => undefined,
    readyz: cluster.readyz,
    ...extra,
  };
}

describe('applyInCluster (apply-config --kubernetes)', () => {
  it('stores the first config, with a session key it generates, when no pod runs yet', async () => {
    const cluster = new FakeCluster();
    const result = await applyInCluster(options(cluster, nextDir(CONFIG_A, { BACKEND_KEY: 'k1' })));
    assert.equal(result.outcome, 'stored');
    assert.equal(cluster.configMap['gateway.json'], CONFIG_A);
    assert.equal(cluster.secret.BACKEND_KEY, b64('k1'));
    // base64 text of 32 random bytes, as `openssl rand -base64 32` writes it, base64-encoded as Secret data is
    const key = Buffer.from(cluster.secret['cdktf-mcp-gateway-session-key'], 'base64').toString();
    assert.equal(Buffer.from(key, 'base64').length, 32);
    assert.ok(!('..2026_12_05' in cluster.secret), "the kubelet's links are not secrets");
  });

  it('hands a new config to every pod and waits until each reports it, keeping the session key', async () => {
    const cluster = new FakeCluster();
    cluster.configMap = { 'gateway.json': CONFIG_A };
    cluster.secret = { BACKEND_KEY: b64('k1'), OLD_SECRET: b64('x'), 'cdktf-mcp-gateway-session-key': b64('kept') };
    const a = { digest: configDigest(Buffer.from(CONFIG_A)), loadedAt: 100 };
    cluster.pods.set('orders-1', { ip: '10.0.0.1', report: a });
    cluster.pods.set('orders-2', { ip: '10.0.0.2', report: a });
    const result = await applyInCluster(
      options(cluster, nextDir(CONFIG_B, { BACKEND_KEY: 'k2' }), { expectDigest: configDigest(Buffer.from(CONFIG_B)) }),
    );
    assert.equal(result.outcome, 'serving');
    assert.equal(result.outcome === 'serving' && result.pods, 2);
    assert.equal(cluster.configMap['gateway.json'], CONFIG_B);
    assert.deepEqual(cluster.secret, { BACKEND_KEY: b64('k2'), 'cdktf-mcp-gateway-session-key': b64('kept') });
    assert.ok(cluster.patches.includes(`/api/v1/namespaces/${NS}/pods/orders-1`), 'each pod nudged');
  });

  it("changes nothing the pods mount when the gateway's check refuses the config", async () => {
    const cluster = new FakeCluster();
    cluster.configMap = { 'gateway.json': CONFIG_A };
    const result = await applyInCluster(
      options(cluster, nextDir(CONFIG_B, { BACKEND_KEY: '' }), {
        check: async () => 'tools[0].backend.headers["X-Backend-Key"]: secret BACKEND_KEY is empty',
      }),
    );
    assert.deepEqual(result, {
      outcome: 'refused',
      reason: 'tools[0].backend.headers["X-Backend-Key"]: secret BACKEND_KEY is empty',
    });
    assert.deepEqual(cluster.patches, []);
    assert.equal(cluster.configMap['gateway.json'], CONFIG_A);
  });

  it('puts the previous live copy back when a pod does not report the new config in time', async () => {
    const cluster = new FakeCluster();
    cluster.configMap = { 'gateway.json': CONFIG_A };
    cluster.secret = { BACKEND_KEY: b64('k1') };
    const a = { digest: configDigest(Buffer.from(CONFIG_A)), loadedAt: 100 };
    cluster.pods.set('orders-1', { ip: '10.0.0.1', report: a });
    cluster.pods.set('orders-2', { ip: '10.0.0.2', report: a, stuck: true });
    const result = await applyInCluster(options(cluster, nextDir(CONFIG_B, { BACKEND_KEY: 'k2' }), { timeoutMs: 300 }));
    assert.equal(result.outcome, 'refused');
    assert.match(
      result.outcome === 'refused' ? result.reason : '',
      /did not report serving config [0-9a-f]{12} within 0\.3 s \(orders-2 \([0-9a-f]{12}\)\); the previous config was put back/,
    );
    assert.equal(cluster.configMap['gateway.json'], CONFIG_A);
    assert.deepEqual(cluster.secret, { BACKEND_KEY: b64('k1') });
  });

  it('waits for a reload even when only a secret changed (the digest alone cannot tell)', async () => {
    const cluster = new FakeCluster();
    cluster.configMap = { 'gateway.json': CONFIG_A };
    cluster.secret = { BACKEND_KEY: b64('k1'), 'cdktf-mcp-gateway-session-key': b64('kept') };
    const a = { digest: configDigest(Buffer.from(CONFIG_A)), loadedAt: 100 };
    cluster.pods.set('orders-1', { ip: '10.0.0.1', report: a, stuck: true });
    const result = await applyInCluster(options(cluster, nextDir(CONFIG_A, { BACKEND_KEY: 'k2' }), { timeoutMs: 300 }));
    assert.equal(result.outcome, 'refused', 'a pod that did not reload is not taken for one serving the new secret');
  });

  it('writes nothing when the live copy is already this config', async () => {
    const cluster = new FakeCluster();
    cluster.configMap = { 'gateway.json': CONFIG_A };
    cluster.secret = { BACKEND_KEY: b64('k1'), 'cdktf-mcp-gateway-session-key': b64('kept') };
    const result = await applyInCluster(options(cluster, nextDir(CONFIG_A, { BACKEND_KEY: 'k1' })));
    assert.equal(result.outcome, 'serving');
    assert.deepEqual(cluster.patches, []);
  });

  it('waits for its mount to hold the deployed config before checking it', async () => {
    const cluster = new FakeCluster();
    const dir = nextDir(CONFIG_A, {});
    let checked = '';
    setTimeout(() => fs.writeFileSync(path.join(dir, 'gateway.json'), CONFIG_B), 100);
    const result = await applyInCluster(
      options(cluster, dir, {
        expectDigest: configDigest(Buffer.from(CONFIG_B)),
        check: async (file) => {
          checked = fs.readFileSync(file, 'utf8');
          return undefined;
        },
      }),
    );
    assert.equal(result.outcome, 'stored');
    assert.equal(checked, CONFIG_B);
  });
});
