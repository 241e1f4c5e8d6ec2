/**
 * `apply-config --kubectl`: what a Kubernetes gateway's deploy runs on the deploying machine. A stand-in `kubectl`
 * on PATH records every call and what it reads on stdin, and answers as the API server would; the real cluster
 * runs it in the Kubernetes deploy test (test/kubernetes).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { HANDOFF_IMAGE_ENV, K8S_HANDOFF_KEY, type KubernetesHandoff } from '../../src/config';
import { installStandIn, standInCalls } from '../helpers/stand-in-tool';
import { tempDir } from '../helpers/temp-dir';

const CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

/** A `kubectl` that logs its arguments, keeps `create`'s stdin, and answers `get job` with FAKE_JOB. */
const FAKE_KUBECTL = `#!/usr/bin/env node
const fs = require('fs');
const dir = process.env.FAKE_KUBECTL_DIR;
const args = process.argv.slice(2);
fs.appendFileSync(dir + '/calls.jsonl', JSON.stringify(args) + '\\n');
const verb = args[args.indexOf('--namespace') + 2];
if (verb === 'create') fs.writeFileSync(dir + '/created.json', fs.readFileSync(0));
if (verb === process.env.FAKE_KUBECTL_FAIL) {
  process.stderr.write('error: You must be logged in to the server (Unauthorized)\\n');
  process.exit(1);
}
if (verb === 'get' && args.includes('namespace')) process.stdout.write(process.env.FAKE_NAMESPACE_UID ?? 'uid-1');
else if (verb === 'get') {
  // FAKE_JOBS: what each read of the job prints, the last one from then on; ERROR fails that read
  const answers = process.env.FAKE_JOBS.split('|');
  const n = fs.existsSync(dir + '/reads') ? Number(fs.readFileSync(dir + '/reads', 'utf8')) : 0;
  fs.writeFileSync(dir + '/reads', String(n + 1));
  const answer = answers[Math.min(n, answers.length - 1)];
  if (answer === 'ERROR') {
    process.stderr.write('Unable to connect to the server: net/http: TLS handshake timeout\\n');
    process.exit(1);
  }
  process.stderr.write('Warning: a deprecation notice kubectl may print\\n');
  process.stdout.write(answer);
}
`;

const HANDOFF: KubernetesHandoff = {
  gateway: 'orders',
  namespace: 'mcp-gateway-orders',
  kubeconfig: '/home/me/.kube/config',
  labels: { 'app.kubernetes.io/instance': 'orders', 'app.kubernetes.io/component': 'apply-config' },
  timeout_seconds: 5,
  job: {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { namespace: 'mcp-gateway-orders' },
    spec: { template: { spec: { containers: [{ name: 'apply-config', args: ['apply-config'] }] } } },
  },
};

/** What `kubectl get job -o jsonpath=…` prints: the Failed condition's reason, a tab, the outcome annotation. */
const job = (outcome = '', failed = '') => `${failed}\t${outcome}`;

describe('apply-config --kubectl (the deploy hands a Kubernetes gateway its config through kubectl)', () => {
  let dir: string;
  let toolPath: string;

  beforeEach(() => {
    dir = tempDir('apply-kubectl-');
    toolPath = installStandIn(dir, 'kubectl', FAKE_KUBECTL);
    const stack = { resource: { terraform_data: { apply: { '//': { [K8S_HANDOFF_KEY]: HANDOFF } } } } };
    writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify(stack));
  });

  function run(env: Record<string, string>, target = 'mcp-gateway-orders/orders') {
    const result = spawnSync(process.execPath, [CLI, 'apply-config', '--kubectl', target, '--job', 'orders-apply-1'], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: toolPath,
        FAKE_KUBECTL_DIR: dir,
        [HANDOFF_IMAGE_ENV]: 'registry:5000/gw@sha256:abc',
        CDKTF_MCP_GATEWAY_NAMESPACE_UID: 'uid-1',
        ...env,
      },
    });
    return { status: result.status, out: result.stdout + result.stderr, calls: standInCalls(dir) };
  }

  const base = ['--kubeconfig', '/home/me/.kube/config', '--request-timeout=30s', '--namespace', 'mcp-gateway-orders'];
  const selector = 'app.kubernetes.io/instance=orders,app.kubernetes.io/component=apply-config';

  it("checks the cluster, removes the gateway's apply jobs, creates this one, waits for its outcome, removes the rest; prints nothing", () => {
    const { status, out, calls } = run({ FAKE_JOBS: `${job()}|${job('serving 0123 (3 pods)')}` });
    assert.equal(status, 0, out);
    assert.equal(out, '');
    const read = [
      ...base,
      'get',
      'job',
      'orders-apply-1',
      '--output',
      `jsonpath={.status.conditions[?(@.type=="Failed")].reason}{"\\t"}{.metadata.annotations.mcp-gateway\\.cdktf\\.io/outcome}`,
    ];
    assert.deepEqual(calls, [
      [...base, 'get', 'namespace', 'mcp-gateway-orders', '--output', 'jsonpath={.metadata.uid}'],
      [...base, 'delete', 'job', '--selector', selector, '--cascade=foreground', '--wait=true'],
      [...base, 'create', '-f', '-'],
      read,
      read,
      [
        ...base,
        'delete',
        'job',
        '--selector',
        selector,
        '--field-selector',
        'metadata.name!=orders-apply-1',
        '--wait=false',
      ],
    ]);
    const created = JSON.parse(readFileSync(path.join(dir, 'created.json'), 'utf8'));
    assert.equal(created.metadata.name, 'orders-apply-1');
    assert.equal(created.spec.template.spec.containers[0].image, 'registry:5000/gw@sha256:abc');
  });

  it('refuses to run on another cluster than Terraform deployed to (the namespace has another uid there)', () => {
    const { status, out, calls } = run({ FAKE_JOBS: job(), FAKE_NAMESPACE_UID: 'uid-of-prod' });
    assert.equal(status, 1);
    assert.match(
      out,
      /^cdktf-mcp-gateway: kubectl reaches another cluster than Terraform: namespace mcp-gateway-orders has uid uid-of-prod there and uid-1 in Terraform's state/,
    );
    assert.equal(calls.length, 1, 'nothing created');
  });

  it("fails the deploy with the gateway's reason when the job recorded a refusal, and keeps the other jobs", () => {
    const outcome = 'refused: tools[0].backend.headers["X-Key"]: secret BACKEND_KEY is empty';
    const { status, out, calls } = run({ FAKE_JOBS: job(outcome) });
    assert.equal(status, 1);
    assert.equal(out, `Gateway 'orders' did not take the new config: ${outcome}\n`);
    assert.equal(calls.length, 4);
  });

  it('reads again after a read that failed, as the job runs on', () => {
    const { status, out } = run({ FAKE_JOBS: `ERROR|${job()}|${job('stored 0123')}` });
    assert.equal(status, 0, out);
  });

  it('says why when the job failed without an outcome', () => {
    const { status, out } = run({ FAKE_JOBS: job('', 'DeadlineExceeded') });
    assert.equal(status, 1);
    assert.equal(
      out,
      "Gateway 'orders' did not take the new config: the apply job failed (DeadlineExceeded) and recorded no outcome; " +
        'see kubectl -n mcp-gateway-orders logs job/orders-apply-1\n',
    );
  });

  it('removes a job that gave no outcome in time, so that it cannot hand its config over later', function () {
    this.timeout(20_000);
    const handoff = { ...HANDOFF, timeout_seconds: 2 };
    writeFileSync(
      path.join(dir, 'cdk.tf.json'),
      JSON.stringify({ resource: { terraform_data: { apply: { '//': { [K8S_HANDOFF_KEY]: handoff } } } } }),
    );
    const { status, out, calls } = run({ FAKE_JOBS: job() });
    assert.equal(status, 1);
    assert.equal(
      out,
      "Gateway 'orders' did not take the new config: the apply job recorded no outcome within 2 s; " +
        'see kubectl -n mcp-gateway-orders describe job/orders-apply-1\n',
    );
    assert.deepEqual(calls.at(-1), [...base, 'delete', 'job', 'orders-apply-1', '--ignore-not-found', '--wait=false']);
  });

  it("fails with kubectl's own message when it cannot reach the cluster", () => {
    const { status, out } = run({ FAKE_JOBS: job(), FAKE_KUBECTL_FAIL: 'delete' });
    assert.equal(status, 1);
    assert.equal(out, 'kubectl delete failed: error: You must be logged in to the server (Unauthorized)\n');
  });

  it('refuses a hand-over whose labels would select every job of the namespace', () => {
    writeFileSync(
      path.join(dir, 'cdk.tf.json'),
      JSON.stringify({
        resource: { terraform_data: { apply: { '//': { [K8S_HANDOFF_KEY]: { ...HANDOFF, labels: {} } } } } },
      }),
    );
    const { status, out, calls } = run({ FAKE_JOBS: job() });
    assert.equal(status, 1);
    assert.match(out, /is malformed: labels must name at least one label/);
    assert.deepEqual(calls, []);
  });

  it('names what is missing: a hand-over for another gateway, or kubectl itself', () => {
    const other = run({ FAKE_JOBS: job() }, 'mcp-gateway-orders/billing');
    assert.equal(other.status, 1);
    assert.equal(
      other.out,
      'cdktf-mcp-gateway: cdk.tf.json describes no Kubernetes hand-over for mcp-gateway-orders/billing\n',
    );
    const none = spawnSync(
      process.execPath,
      [CLI, 'apply-config', '--kubectl', 'mcp-gateway-orders/orders', '--job', 'orders-apply-1'],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: path.join(dir, 'empty'), [HANDOFF_IMAGE_ENV]: 'gw:1', CDKTF_MCP_GATEWAY_NAMESPACE_UID: 'uid-1' },
      },
    );
    assert.equal(none.status, 1);
    assert.match(none.stderr, /through kubectl, which is not on this PATH: install kubectl/);
  });
});
