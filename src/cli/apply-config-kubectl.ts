import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { HANDOFF_IMAGE_ENV, K8S_OUTCOME_ANNOTATION, kubernetesHandoffsOf, type KubernetesHandoff } from '../config';
import { UsageError } from '../config/package-error';
import { isObject } from '../validation/json-object';
import { kubectl, ToolError } from './external-tools';
import { usageFailure } from './usage-failure';

export const KUBECTL_USAGE = `Usage: cdktf-mcp-gateway apply-config --kubectl NAMESPACE/GATEWAY --job NAME [--stack-file FILE]

Run by a Kubernetes gateway's deploy, on the deploying machine: creates the apply job NAME as synthesis
described it in FILE (default: cdk.tf.json in the current directory) with kubectl, on the cluster and context
the stack's provider names (else KUBE_CONFIG_PATH, else kubectl's own default), waits for the outcome it records
and removes the gateway's older apply jobs. Prints nothing when the pods serve the config; prints
"Gateway 'NAME' did not take the new config: REASON" and exits 1 otherwise.

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
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(stackFile, 'utf8'));
  } catch (err) {
    throw new ToolError(`cdktf-mcp-gateway: cannot read the synthesized stack ${stackFile}: ${(err as Error).message}`);
  }
  const handoff = kubernetesHandoffsOf(doc).find((h) => isObject(h) && `${h.namespace}/${h.gateway}` === target);
  if (handoff === undefined) {
    throw new ToolError(`cdktf-mcp-gateway: ${stackFile} describes no Kubernetes hand-over for ${target}`);
  }
  const shaped =
    typeof handoff.gateway === 'string' &&
    typeof handoff.namespace === 'string' &&
    isObject(handoff.labels) &&
    Number.isInteger(handoff.timeout_seconds) &&
    isObject(handoff.job) &&
    [handoff.kubeconfig, handoff.context].every((v) => v === undefined || typeof v === 'string');
  if (!shaped) {
    throw new ToolError(
      `cdktf-mcp-gateway: the hand-over for ${target} in ${stackFile} is malformed (synthesize again)`,
    );
  }
  return handoff;
}

/** Creates the job, waits for its outcome; the reason it was not taken, or undefined when the pods serve it. */
async function applyWithKubectl(h: KubernetesHandoff, name: string): Promise<string | undefined> {
  const image = process.env[HANDOFF_IMAGE_ENV];
  if (image === undefined || image === '') {
    throw new ToolError(`cdktf-mcp-gateway: ${HANDOFF_IMAGE_ENV} is not set (the deploy passes the image)`);
  }
  const kubeconfig = h.kubeconfig ?? process.env.KUBE_CONFIG_PATH;
  const base = [
    ...(kubeconfig === undefined || kubeconfig === '' ? [] : ['--kubeconfig', kubeconfig]),
    ...(h.context === undefined ? [] : ['--context', h.context]),
    '--namespace',
    h.namespace,
  ];
  const ctl = async (args: string[], input?: Buffer): Promise<string> => {
    const run = await kubectl([...base, ...args], input);
    if (run.code !== 0) throw new ToolError(`kubectl ${args[0]} failed: ${run.output.trim() || `exit ${run.code}`}`);
    return run.stdout;
  };
  // a job of this name left by an interrupted or refused deploy of the same config: run the check again
  await ctl(['delete', 'job', name, '--ignore-not-found', '--wait=true']);
  await ctl(['create', '-f', '-'], Buffer.from(JSON.stringify(jobManifest(h.job, name, image))));
  const deadline = Date.now() + h.timeout_seconds * 1000;
  // the failed count, a tab, the outcome: short enough to come back whole
  const status = `jsonpath={.status.failed}{"\\t"}{.metadata.annotations.${K8S_OUTCOME_ANNOTATION.replace(/\./g, '\\.')}}`;
  for (;;) {
    const [failed, ...rest] = (await ctl(['get', 'job', name, '--output', status])).split('\t');
    const outcome = rest.length === 0 || rest.join('\t') === '' ? undefined : rest.join('\t').trim();
    if (outcome !== undefined && !outcome.startsWith('refused')) {
      await ctl([
        'delete',
        'job',
        '--selector',
        Object.entries(h.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
        '--field-selector',
        `metadata.name!=${name}`,
        '--wait=false',
      ]);
      return undefined;
    }
    if (outcome !== undefined) return outcome;
    if (Number(failed) > 0) return `the apply job recorded no outcome; see kubectl -n ${h.namespace} logs job/${name}`;
    if (Date.now() > deadline)
      return `the apply job recorded no outcome within ${h.timeout_seconds} s; see kubectl -n ${h.namespace} logs job/${name}`;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
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
