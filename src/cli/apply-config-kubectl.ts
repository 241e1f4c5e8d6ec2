import { parseArgs } from 'node:util';
import {
  HANDOFF_IMAGE_ENV,
  K8S_NAMESPACE_UID_ENV,
  K8S_OUTCOME_ANNOTATION,
  kubernetesHandoffsOf,
  type KubernetesHandoff,
} from '../config';
import { UsageError } from '../config/package-error';
import { isObject } from '../validation/json-object';
import { kubectl } from './external-tools';
import { HandoffError, readSynthesizedStack } from './synthesized-stack';
import { usageFailure } from './usage-failure';

export const KUBECTL_USAGE = `Usage: cdktf-mcp-gateway apply-config --kubectl NAMESPACE/GATEWAY --job NAME [--stack-file FILE]

Run by a Kubernetes gateway's deploy, on the deploying machine: creates the apply job NAME as synthesis
described it in FILE (default: cdk.tf.json in the current directory) with kubectl, on the kubeconfig and context
the stack's KubernetesCluster names (else KUBE_CONFIG_PATH and KUBE_CTX, as the provider reads them, else
kubectl's own default), after checking that the gateway's namespace there has the uid Terraform recorded
(${K8S_NAMESPACE_UID_ENV}). Removes the gateway's other apply jobs first, waits for the outcome the job records,
prints nothing when the pods serve the config, and prints "Gateway 'NAME' did not take the new config: REASON"
and exits 1 otherwise.

Options:
  --kubectl NS/GATEWAY  the gateway's namespace and name (required)
  --job NAME            the apply job's name (required)
  --stack-file FILE     the synthesized stack, default cdk.tf.json`;

/** How often the job's outcome is read while it runs. */
const POLL_MS = 1_000;

/** `apply-config --kubectl`: what a Kubernetes gateway's `terraform_data` runs (see createApplyConfig). */
export async function runKubectl(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        kubectl: { type: 'string' },
        job: { type: 'string' },
        'stack-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help === true) {
      process.stdout.write(`${KUBECTL_USAGE}\n`);
      return 0;
    }
    if (!/^[^/\s]+\/[^/\s]+$/.test(values.kubectl ?? ''))
      throw new UsageError('--kubectl NAMESPACE/GATEWAY is required');
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(values.job ?? ''))
      throw new UsageError(`--job: must be a Kubernetes object name, got ${JSON.stringify(values.job ?? '')}`);
  } catch (err) {
    return usageFailure('apply-config', err);
  }
  try {
    const handoff = readHandoff(values['stack-file'] ?? 'cdk.tf.json', values.kubectl!);
    const reason = await applyWithKubectl(handoff, values.job!);
    if (reason === undefined) return 0;
    process.stderr.write(`Gateway '${handoff.gateway}' did not take the new config: ${reason}\n`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
  }
  return 1;
}

/** The hand-over synthesis left for `NAMESPACE/GATEWAY`; throws the line to print when there is none. */
function readHandoff(stackFile: string, target: string): KubernetesHandoff {
  const handoff = kubernetesHandoffsOf(readSynthesizedStack(stackFile)).find(
    (h) => isObject(h) && `${h.namespace}/${h.gateway}` === target,
  );
  if (handoff === undefined) {
    throw new HandoffError(`cdktf-mcp-gateway: ${stackFile} describes no Kubernetes hand-over for ${target}`);
  }
  const problem = shapeProblem(handoff);
  if (problem !== undefined) {
    throw new HandoffError(
      `cdktf-mcp-gateway: the hand-over for ${target} in ${stackFile} is malformed: ${problem} (synthesize again)`,
    );
  }
  return handoff;
}

/** A label's name or value as Kubernetes takes it (a selector built from them must select this gateway's jobs only). */
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9_./-]{0,250}[A-Za-z0-9])?$/;

/** What is wrong with a hand-over read from a file, if anything: synthesis writes it, but anyone may edit the file. */
function shapeProblem(h: KubernetesHandoff): string | undefined {
  if (typeof h.gateway !== 'string' || typeof h.namespace !== 'string') return 'gateway and namespace must be strings';
  if (![h.kubeconfig, h.context].every((v) => v === undefined || typeof v === 'string'))
    return 'kubeconfig and context must be strings';
  // an empty selector would remove every job of the namespace
  const labels = isObject(h.labels) ? Object.entries(h.labels) : [];
  if (labels.length === 0 || !labels.every(([k, v]) => LABEL.test(k) && typeof v === 'string' && LABEL.test(v)))
    return 'labels must name at least one label, as Kubernetes spells them';
  if (!Number.isInteger(h.timeout_seconds) || h.timeout_seconds < 1)
    return 'timeout_seconds must be a positive integer';
  const containers = (h.job as { spec?: { template?: { spec?: { containers?: unknown } } } } | undefined)?.spec
    ?.template?.spec?.containers;
  if (!isObject(h.job) || !Array.isArray(containers) || containers.length === 0 || !containers.every(isObject))
    return 'job must be a Job with containers';
  return undefined;
}

/** Creates the job, waits for its outcome; the reason it was not taken, or undefined when the pods serve it. */
async function applyWithKubectl(h: KubernetesHandoff, name: string): Promise<string | undefined> {
  const image = process.env[HANDOFF_IMAGE_ENV];
  if (image === undefined || image === '') {
    throw new HandoffError(`cdktf-mcp-gateway: ${HANDOFF_IMAGE_ENV} is not set (the deploy passes the image)`);
  }
  // the provider's own defaults when the stack names no kubeconfig or context
  const kubeconfig = h.kubeconfig ?? process.env.KUBE_CONFIG_PATH;
  const context = h.context ?? process.env.KUBE_CTX;
  const base = [
    ...(kubeconfig === undefined || kubeconfig === '' ? [] : ['--kubeconfig', kubeconfig]),
    ...(context === undefined || context === '' ? [] : ['--context', context]),
    '--request-timeout=30s',
    '--namespace',
    h.namespace,
  ];
  const ctl = async (args: string[], input?: Buffer): Promise<string> => {
    const run = await kubectl([...base, ...args], input);
    if (run.code !== 0) throw new HandoffError(`kubectl ${args[0]} failed: ${run.output.trim() || `exit ${run.code}`}`);
    return run.stdout;
  };
  await sameCluster(h, (args) => ctl(args));
  const selector = Object.entries(h.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  // every apply job of this gateway goes first: an older one still running (an interrupted deploy) would otherwise
  // write its config over this one's, and one of this name (a refused deploy run again) would answer for it
  await ctl(['delete', 'job', '--selector', selector, '--cascade=foreground', '--wait=true']);
  await ctl(['create', '-f', '-'], Buffer.from(JSON.stringify(jobManifest(h.job, name, image))));
  const outcome = await awaitOutcome(h, name, (args) => ctl(args));
  if (outcome === undefined) {
    // a job that gave no outcome in time must not hand its config over later
    await ctl(['delete', 'job', name, '--ignore-not-found', '--wait=false']).catch(() => '');
    return `the apply job recorded no outcome within ${h.timeout_seconds} s; see kubectl -n ${h.namespace} describe job/${name}`;
  }
  if ('failed' in outcome) return outcome.failed;
  if (outcome.recorded.startsWith('refused')) return outcome.recorded;
  try {
    await ctl(['delete', 'job', '--selector', selector, '--field-selector', `metadata.name!=${name}`, '--wait=false']);
  } catch (err) {
    // the config serves: a job left over costs nothing, and the next deploy removes it
    process.stderr.write(`cdktf-mcp-gateway: could not remove older apply jobs: ${(err as Error).message}\n`);
  }
  return undefined;
}

/**
 * Fails unless kubectl reaches the cluster Terraform deployed to: the gateway's namespace there has the uid
 * Terraform recorded. A kubeconfig or context Terraform reads but kubectl does not would otherwise run the job
 * on another cluster, where it would report that cluster's config as serving.
 */
async function sameCluster(h: KubernetesHandoff, ctl: (args: string[]) => Promise<string>): Promise<void> {
  const expected = process.env[K8S_NAMESPACE_UID_ENV];
  if (expected === undefined || expected === '') {
    throw new HandoffError(
      `cdktf-mcp-gateway: ${K8S_NAMESPACE_UID_ENV} is not set (the deploy passes the namespace's uid)`,
    );
  }
  const found = (await ctl(['get', 'namespace', h.namespace, '--output', 'jsonpath={.metadata.uid}'])).trim();
  if (found !== expected) {
    throw new HandoffError(
      `cdktf-mcp-gateway: kubectl reaches another cluster than Terraform: namespace ${h.namespace} has uid ${found} ` +
        `there and ${expected} in Terraform's state; name the kubeconfig and context on KubernetesCluster ` +
        '(configPath, configContext) so that both use them',
    );
  }
}

/**
 * Reads the job's outcome until it records one, fails, or the hand-over's time is up (undefined then). A read
 * that fails is tried again until then: the job runs on whether or not one read got through.
 */
async function awaitOutcome(
  h: KubernetesHandoff,
  name: string,
  ctl: (args: string[]) => Promise<string>,
): Promise<{ recorded: string } | { failed: string } | undefined> {
  const deadline = performance.now() + h.timeout_seconds * 1000;
  const outcome = `{.metadata.annotations.${K8S_OUTCOME_ANNOTATION.replace(/\./g, '\\.')}}`;
  // the reason the job failed (its Failed condition), a tab, the outcome: short enough to come back whole
  const status = `jsonpath={.status.conditions[?(@.type=="Failed")].reason}{"\\t"}${outcome}`;
  let lastError = '';
  while (performance.now() < deadline) {
    try {
      const [failed, ...rest] = (await ctl(['get', 'job', name, '--output', status])).split('\t');
      const recorded = rest.join('\t').trim();
      if (recorded !== '') return { recorded };
      if (failed.trim() !== '')
        return {
          failed: `the apply job failed (${failed.trim()}) and recorded no outcome; see kubectl -n ${h.namespace} logs job/${name}`,
        };
      lastError = '';
    } catch (err) {
      lastError = (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (lastError !== '') throw new HandoffError(lastError);
  return undefined;
}

/** The synthesized job with its name and its container's image. */
function jobManifest(job: Record<string, unknown>, name: string, image: string): Record<string, unknown> {
  const manifest = structuredClone(job) as {
    metadata: Record<string, unknown>;
    spec: { template: { spec: { containers: Record<string, unknown>[] } } };
  };
  manifest.metadata.name = name;
  for (const container of manifest.spec.template.spec.containers) container.image = image;
  return manifest;
}
