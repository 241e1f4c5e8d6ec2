import { parseArgs } from 'node:util';
import * as path from 'node:path';
import {
  K8S_OUTCOME_ANNOTATION,
  K8S_SECRETS_SUBDIR,
  readGatewayConfigFile,
  SECRETS_DIR_ENV,
  type GatewayConfig,
} from '../config';
import { UsageError } from '../config/package-error';
import { usageFailure } from './usage-failure';
import { inClusterApi, type ClusterApi } from '../kubernetes/cluster-api';
import { applyInCluster, type InClusterResult } from '../kubernetes/apply-in-cluster';
import { checkConfig } from './serve-command';

export const KUBERNETES_USAGE = `Usage: cdktf-mcp-gateway apply-config --kubernetes NAMESPACE/GATEWAY --job NAME --next-dir DIR
                                      [--expect-digest HEX] [--port N] [--timeout-ms N]

Run by a Kubernetes gateway's deploy as a Job in the gateway's namespace: checks the config Terraform wrote
(DIR/gateway.json and DIR/secrets, mounted from the gateway's ConfigMap and Secret) as \`serve --check\` does,
copies it into the live ConfigMap and Secret the pods mount, and waits until every ready pod reports serving it.
A config the gateway refuses changes nothing the pods mount. The outcome is recorded on the Job (annotation
${K8S_OUTCOME_ANNOTATION}), where the deploy reads it.

Options:
  --kubernetes NS/GATEWAY  the gateway's namespace and name (required)
  --job NAME               this Job's name, to record the outcome on (required)
  --next-dir DIR           where the config Terraform wrote is mounted (required)
  --expect-digest HEX      the config digest synthesis computed; waits until the mount holds it
  --port N                 the gateway's port in its pods, default 8080
  --timeout-ms N           how long to wait for the pods, default 90000
  -h, --help               show this help`;

const DEFAULT_TIMEOUT_MS = 90_000;
/** How long a job that refused a config stays for the deploy to read its outcome. */
const REFUSED_JOB_TTL_SECONDS = 20;

/** `apply-config --kubernetes`: the in-cluster job of a Kubernetes gateway's deploy. */
export async function runKubernetes(argv: string[], api?: ClusterApi): Promise<number> {
  let values;
  let target: { namespace: string; gateway: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        kubernetes: { type: 'string' },
        job: { type: 'string' },
        'next-dir': { type: 'string' },
        'expect-digest': { type: 'string' },
        port: { type: 'string' },
        'timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help === true) {
      process.stdout.write(`${KUBERNETES_USAGE}\n`);
      return 0;
    }
    const match = /^([a-z0-9-]{1,63})\/([A-Za-z0-9_.-]{1,64})$/.exec(values.kubernetes ?? '');
    if (match === null) throw new UsageError('--kubernetes NAMESPACE/GATEWAY is required');
    target = { namespace: match[1], gateway: match[2] };
    if ((values.job ?? '') === '') throw new UsageError('--job NAME is required');
    if ((values['next-dir'] ?? '') === '') throw new UsageError('--next-dir DIR is required');
    if (values.port !== undefined && !/^[1-9]\d{0,4}$/.test(values.port))
      throw new UsageError(`--port: must be a port number, got ${JSON.stringify(values.port)}`);
    if (values['timeout-ms'] !== undefined && !/^[1-9]\d{0,6}$/.test(values['timeout-ms']))
      throw new UsageError(`--timeout-ms: must be an integer 1-9999999, got ${JSON.stringify(values['timeout-ms'])}`);
    if (values['expect-digest'] !== undefined && !/^[0-9a-f]{64}$/.test(values['expect-digest']))
      throw new UsageError('--expect-digest: must be 64 hex digits');
  } catch (err) {
    return usageFailure('apply-config', err);
  }
  const client = api ?? inClusterApi();
  // the check reads the secrets the job mounted beside the config, as the pods will read theirs
  process.env[SECRETS_DIR_ENV] = path.join(values['next-dir']!, K8S_SECRETS_SUBDIR);
  let result: InClusterResult;
  try {
    result = await applyInCluster({
      api: client,
      ...target,
      nextDir: values['next-dir']!,
      expectDigest: values['expect-digest'],
      podPort: Number(values.port ?? 8080),
      timeoutMs: Number(values['timeout-ms'] ?? DEFAULT_TIMEOUT_MS),
      check: (file) => checkConfig(file, (f) => withoutSessionKey(readGatewayConfigFile(f).config)),
    });
  } catch (err) {
    result = { outcome: 'refused', reason: `the config could not be handed over: ${(err as Error).message}` };
  }
  const outcome = describe(result);
  (result.outcome === 'refused' ? process.stderr : process.stdout).write(`cdktf-mcp-gateway: ${outcome}\n`);
  try {
    const job = `/apis/batch/v1/namespaces/${target.namespace}/jobs/${encodeURIComponent(values.job!)}`;
    await client.patch(job, {
      metadata: { annotations: { [K8S_OUTCOME_ANNOTATION]: outcome } },
      // a refusing job goes soon after the deploy read its reason, so that the next deploy of the same config
      // runs the check again (a passing job stays: its name says which config serves)
      ...(result.outcome === 'refused' ? { spec: { ttlSecondsAfterFinished: REFUSED_JOB_TTL_SECONDS } } : {}),
    });
  } catch (err) {
    process.stderr.write(
      `cdktf-mcp-gateway: the outcome could not be recorded on the job: ${(err as Error).message}\n`,
    );
    return 1;
  }
  // the deploy reads the outcome from the annotation: the job itself succeeds once it has decided
  return 0;
}

/** The annotation's text: `serving DIGEST …`, `stored DIGEST …` or `refused: REASON` (one line, bounded). */
function describe(result: InClusterResult): string {
  switch (result.outcome) {
    case 'serving':
      return `serving ${result.digest.slice(0, 12)} (${result.pods} pods, reloaded in ${result.ms} ms)`;
    case 'stored':
      return `stored ${result.digest.slice(0, 12)} (${result.why})`;
    case 'refused':
      return `refused: ${result.reason.replace(/\s+/g, ' ').slice(0, 2000)}`;
  }
}

/**
 * The config as the check runs it: the session key lives in the pods' mount, not the job's, and a check serves no
 * session, so any key will do.
 */
function withoutSessionKey(config: GatewayConfig): GatewayConfig {
  const { session_key_file: _file, ...gateway } = config.gateway;
  return { ...config, gateway };
}
