import { parseArgs } from 'node:util';
import { UsageError } from '../config/package-error';
import { usageFailure } from './usage-failure';
import { applyConfig } from './apply-config';
import { DOCKER_USAGE, runDocker } from './apply-config-docker';
import { KUBECTL_USAGE, runKubectl } from './apply-config-kubectl';
import { KUBERNETES_USAGE, runKubernetes } from './apply-config-kubernetes';
import { runSwarm, SWARM_USAGE } from './apply-config-swarm';

const USAGE = `Usage: cdktf-mcp-gateway apply-config --config FILE --state-dir DIR [--timeout-ms N] [--quiet]

Hands the config FILE to the gateway serving from DIR (\`serve --config DIR/gateway.json --watch
--status-file DIR/status.json\`) without restarting it: checks FILE as \`serve --check\` does, writes the
secrets it names into DIR/secrets, replaces DIR/gateway.json atomically, and waits until the gateway reports
that it serves the new config. A config the gateway cannot run changes nothing in DIR.

Options:
  --config FILE      the new config (required)
  --state-dir DIR    the gateway's state directory (required)
  --timeout-ms N     how long to wait for the gateway to report the new config, default 30000
  --quiet            print nothing when the config is serving or stored, only a refusal's reason
  -h, --help         show this help

Prints one line: "config DIGEST serving" (exit 0), "config DIGEST stored" when no gateway of this build
serves from DIR (it loads the config when it starts; exit 0), or the reason it was refused (exit 1).

${DOCKER_USAGE}

${SWARM_USAGE}

${KUBECTL_USAGE}

${KUBERNETES_USAGE}`;

const DEFAULT_TIMEOUT_MS = 30_000;

/** `cdktf-mcp-gateway apply-config`: what a single-container gateway's deploy runs for a new config. */
export async function run(argv: string[]): Promise<number> {
  if (argv.some((a) => a === '--kubernetes' || a.startsWith('--kubernetes='))) return runKubernetes(argv);
  if (argv.some((a) => a === '--kubectl' || a.startsWith('--kubectl='))) return runKubectl(argv);
  if (argv.some((a) => a === '--docker' || a.startsWith('--docker='))) return runDocker(argv);
  if (argv.some((a) => a === '--swarm' || a.startsWith('--swarm='))) return runSwarm(argv);
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        'state-dir': { type: 'string' },
        'timeout-ms': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help === true) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (values.config === undefined || values.config === '') throw new UsageError('--config FILE is required');
    if (values['state-dir'] === undefined || values['state-dir'] === '')
      throw new UsageError('--state-dir DIR is required');
    const timeout = values['timeout-ms'] ?? String(DEFAULT_TIMEOUT_MS);
    if (!/^[1-9]\d{0,6}$/.test(timeout))
      throw new UsageError(`--timeout-ms: must be an integer 1-9999999, got ${JSON.stringify(timeout)}`);
  } catch (err) {
    return usageFailure('apply-config', err);
  }
  const result = await applyConfig({
    configPath: values.config,
    stateDir: values['state-dir']!,
    timeoutMs: Number(values['timeout-ms'] ?? DEFAULT_TIMEOUT_MS),
  });
  const short = (digest: string): string => digest.slice(0, 12);
  const say = (line: string): void => {
    if (values.quiet !== true) process.stdout.write(`cdktf-mcp-gateway: ${line}\n`);
  };
  switch (result.outcome) {
    case 'serving':
      say(`config ${short(result.digest)} serving (reloaded in ${result.ms} ms)`);
      return 0;
    case 'stored':
      say(`config ${short(result.digest)} stored (${result.why})`);
      return 0;
    case 'refused':
      process.stderr.write(`cdktf-mcp-gateway: ${result.reason}\n`);
      return 1;
  }
}
