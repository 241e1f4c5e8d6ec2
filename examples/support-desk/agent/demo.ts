/**
 * `npm run demo`: starts the support-desk example locally (the `dev` command with its backend, as a child),
 * lets the scripted agent make a malformed `create_ticket` call and repair it from the refusals, shows the
 * same call through the unvalidated `legacy` gateway, stops everything and prints the audit log.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { formatStep, MALFORMED_CREATE_TICKET, runScriptedAgent } from './scripted-agent';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const START_TIMEOUT_MS = 90_000;

interface Served { readonly url: string; readonly token: string; readonly auditLog: string }

const say = (text: string): void => { process.stdout.write(`${text}\n`); };
const rule = (title: string): void => say(`\n=== ${title} ${'='.repeat(Math.max(0, 70 - title.length))}\n`);

/** Starts `dev` on the example and resolves with each gateway's URL, token and audit log. */
function startExample(auditDir: string): { served: Promise<Record<string, Served>>; stop: () => Promise<void> } {
  const child = spawn(process.execPath, [CLI, 'dev', path.join(ROOT, 'examples/support-desk'), '--port', '0', '--audit-dir', auditDir], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const served = new Promise<Record<string, Served>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example did not start within ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (!output.includes('Press Ctrl-C to stop.')) return;
      clearTimeout(timer);
      const gateways: Record<string, Served> = {};
      for (const m of output.matchAll(/^Gateway (\S+) .*\nMCP URL: (\S+)\nToken: (\S+)\nAudit log: (.+)$/gm)) {
        gateways[m[1]] = { url: m[2], token: m[3], auditLog: m[4] };
      }
      resolve(gateways);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => { clearTimeout(timer); reject(new Error(`the example exited:\n${output}`)); });
  });
  return {
    served,
    /** SIGTERM (the gateways drain and flush their audit logs, the backend stops); idempotent. */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The malformed call once more, through the gateway that forwards unchecked. */
async function legacyContrast(gateway: Served): Promise<void> {
  const client = new Client({ name: 'support-desk-legacy-bot', version: '0.9.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), {
    requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
  }));
  try {
    say(`legacy bot: call create_ticket with the same arguments (urgency, zip_code "10115", no body)`);
    const result = await client.callTool({ name: 'create_ticket', arguments: { ...MALFORMED_CREATE_TICKET } });
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
    say(`gateway (validate_input off): forwarded; the backend answered${result.isError === true ? ' with an error' : ''}:\n    ${text}`);
    if (result.isError === true) say('legacy bot: nothing in that names the field to fix; an agent can only guess.');
  } finally {
    await client.close();
  }
}

async function main(): Promise<number> {
  if (!fs.existsSync(CLI)) {
    process.stderr.write(`demo: ${CLI} is missing; run npm run build first\n`);
    return 1;
  }
  const auditDir = fs.mkdtempSync(path.join(os.tmpdir(), 'support-desk-demo-'));
  rule('Starting the support-desk example (dev: no Docker, no Terraform)');
  const example = startExample(auditDir);
  const onSignal = (): void => { void example.stop().then(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const gateways = await example.served;
    const agents = gateways.agents;
    if (agents === undefined) throw new Error('the example serves no gateway named agents');
    say(`agents gateway: ${agents.url}`);

    rule('Scripted agent on the agents gateway (validate_input on)');
    const run = await runScriptedAgent({ url: agents.url, token: agents.token, onStep: (s) => say(`${formatStep(s)}\n`) });

    if (gateways.legacy !== undefined) {
      rule('The same mistake on the legacy gateway (validate_input off)');
      await legacyContrast(gateways.legacy);
    }

    // the audit log is written off the hot path; a graceful stop flushes it, so read it after stopping
    await example.stop();
    rule('Audit log of the agents gateway (one JSON line per call; summarized)');
    const lines = fs.existsSync(agents.auditLog) ? fs.readFileSync(agents.auditLog, 'utf8').trim().split('\n').filter(Boolean) : [];
    for (const line of lines) {
      const r = JSON.parse(line) as { principal: string; tool: string; outcome: string; error: { message: string } | null; duration_ms: number };
      say(`${r.outcome.padEnd(8)} ${r.tool} by ${r.principal} in ${r.duration_ms} ms${r.error !== null ? `: ${r.error.message}` : ''}`);
    }

    rule(run.succeeded ? `Done: the agent succeeded after ${run.retries} ${run.retries === 1 ? 'retry' : 'retries'}` : 'Done: the agent did not succeed');
    return run.succeeded ? 0 : 1;
  } finally {
    await example.stop();
    fs.rmSync(auditDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
