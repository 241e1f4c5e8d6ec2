/**
 * `npm run demo`: starts the support-desk example locally (the `dev` command with its backend, as a child),
 * lets the scripted agent make a malformed `create_ticket` call and repair it from the refusals, shows the
 * same call through the unvalidated `legacy` gateway, shows the response controls of `get_customer` (its email
 * redacted) and the tool generated from the backend's OpenAPI document, stops everything and prints the audit log.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { formatStep, MALFORMED_CREATE_TICKET, runScriptedAgent } from './scripted-agent';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const START_TIMEOUT_MS = 90_000;

interface Served {
  readonly url: string;
  readonly token: string;
  readonly auditLog: string;
}

/** How often the outdated agent repeats its call: enough for the dashboard's flag rule (10 refusals, 50 %). */
const OUTDATED_CALLS = 12;

const say = (text: string): void => {
  process.stdout.write(`${text}\n`);
};
const rule = (title: string): void => say(`\n=== ${title} ${'='.repeat(Math.max(0, 70 - title.length))}\n`);

/** Starts `dev` on the example and resolves with each gateway's URL, token and audit log. */
function startExample(auditDir: string): {
  served: Promise<Record<string, Served>>;
  dashboard: () => string | undefined;
  stop: () => Promise<void>;
} {
  const child = spawn(
    process.execPath,
    [CLI, 'dev', path.join(ROOT, 'examples/support-desk'), '--port', '0', '--audit-dir', auditDir],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let dashboard: string | undefined;
  const served = new Promise<Record<string, Served>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the example did not start within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (!output.includes('Press Ctrl-C to stop.')) return;
      clearTimeout(timer);
      const gateways: Record<string, Served> = {};
      for (const m of output.matchAll(/^Gateway (\S+) .*\nMCP URL: (\S+)\nToken: (\S+)\nAudit log: (.+)$/gm)) {
        gateways[m[1]] = { url: m[2], token: m[3], auditLog: m[4] };
      }
      dashboard = /^Dashboard: (\S+)$/m.exec(output)?.[1];
      resolve(gateways);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the example exited:\n${output}`));
    });
  });
  return {
    served,
    dashboard: () => dashboard,
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
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), {
      requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
    }),
  );
  try {
    say(`legacy bot: call create_ticket with the same arguments (urgency, zip_code "10115", no body)`);
    const result = await client.callTool({ name: 'create_ticket', arguments: { ...MALFORMED_CREATE_TICKET } });
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
    say(
      `gateway (validate_input off): forwarded; the backend answered${result.isError === true ? ' with an error' : ''}:\n    ${text}`,
    );
    if (result.isError === true) say('legacy bot: nothing in that names the field to fix; an agent can only guess.');
  } finally {
    await client.close();
  }
}

/** What reaches an agent after the service ran: a declared output, checked, with the email redacted. */
async function responseControls(gateway: Served): Promise<void> {
  const client = new Client({ name: 'support-desk-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), {
      requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    const declared = tools.find((t) => t.name === 'get_customer')?.outputSchema;
    say(`agent: get_customer declares its output (${Object.keys(declared?.properties ?? {}).join(', ')})`);
    const customer = await client.callTool({ name: 'get_customer', arguments: { customer_id: 'C-0001' } });
    say(`agent: call get_customer {"customer_id":"C-0001"}`);
    say(
      `gateway: checked against the declared output, email redacted:\n    ${JSON.stringify(customer.structuredContent)}`,
    );
    const ticket = await client.callTool({ name: 'get_ticket', arguments: { id: 'T-1001' } });
    say(`agent: call get_ticket {"id":"T-1001"} (a tool generated from openapi/support-desk-api.yaml)`);
    const { id, subject, status } = (ticket.structuredContent ?? {}) as {
      id?: string;
      subject?: string;
      status?: string;
    };
    say(`gateway: ok, checked against the document's 200 schema: ${id} "${subject}" (${status})`);
  } finally {
    await client.close();
  }
}

/**
 * An agent built against last year's tool schema: it repeats the same malformed call and never reads the
 * refusals. The audit dashboard flags it as failing systematically.
 */
async function outdatedAgent(gateway: Served, dashboard: string | undefined): Promise<void> {
  const client = new Client({ name: 'support-desk-outdated-bot', version: '0.1.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), {
      requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } },
    }),
  );
  try {
    for (let i = 0; i < OUTDATED_CALLS; i++) {
      await client
        .callTool({ name: 'create_ticket', arguments: { ...MALFORMED_CREATE_TICKET } })
        .catch(() => undefined);
    }
    say(`outdated bot: ${OUTDATED_CALLS} identical malformed create_ticket calls, each refused, none repaired`);
  } finally {
    await client.close();
  }
  if (dashboard === undefined) return;
  // the dashboard follows the audit files (written off the hot path, polled each second): give it a moment
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const summary = (await (await fetch(`${dashboard}api/summary?window=1h`)).json()) as {
      agents: { principal: string; calls: number; refusals: number; flagged: boolean }[];
    };
    const flagged = summary.agents.filter((a) => a.flagged);
    if (flagged.length === 0) continue;
    for (const a of flagged) {
      say(
        `dashboard ${dashboard}: ${a.principal} flagged as failing systematically (${a.refusals} of ${a.calls} calls refused)`,
      );
    }
    return;
  }
}

/** The size of each audit file already in `dir`, by path. */
function auditSizes(dir: string): Map<string, number> {
  const sizes = new Map<string, number>();
  if (!fs.existsSync(dir)) return sizes;
  for (const name of fs.readdirSync(dir)) sizes.set(path.join(dir, name), fs.statSync(path.join(dir, name)).size);
  return sizes;
}

async function main(): Promise<number> {
  if (!fs.existsSync(CLI)) {
    process.stderr.write(`demo: ${CLI} is missing; run npm run build first\n`);
    return 1;
  }
  // the example's own audit directory, which `npm start` serves too: its dashboard keeps showing the failing agent
  const auditDir = path.join(ROOT, 'examples/support-desk/.dev');
  const earlier = auditSizes(auditDir);
  rule('Starting the support-desk example (dev: no Docker, no Terraform)');
  const example = startExample(auditDir);
  const onSignal = (): void => {
    void example.stop().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const gateways = await example.served;
    const agents = gateways.agents;
    if (agents === undefined) throw new Error('the example serves no gateway named agents');
    say(`agents gateway: ${agents.url}`);

    rule('Scripted agent on the agents gateway (validate_input on)');
    const run = await runScriptedAgent({
      url: agents.url,
      token: agents.token,
      onStep: (s) => say(`${formatStep(s)}\n`),
    });

    if (gateways.legacy !== undefined) {
      rule('The same mistake on the legacy gateway (validate_input off)');
      await legacyContrast(gateways.legacy);
    }

    rule('Response controls and an OpenAPI tool on the agents gateway');
    await responseControls(agents);

    rule('An outdated agent that never reads refusals, on the audit dashboard');
    await outdatedAgent(agents, example.dashboard());

    // the audit log is written off the hot path; a graceful stop flushes it, so read it after stopping
    await example.stop();
    rule('Audit log of the agents gateway (one JSON line per call; summarized)');
    // this run's records only: the directory keeps earlier runs' too
    const text = fs.existsSync(agents.auditLog)
      ? fs.readFileSync(agents.auditLog).subarray(earlier.get(agents.auditLog) ?? 0)
      : '';
    const lines = text.toString().trim().split('\n').filter(Boolean);
    for (const line of lines) {
      const r = JSON.parse(line) as {
        principal: string;
        tool: string;
        outcome: string;
        error: { message: string } | null;
        duration_ms: number;
      };
      say(
        `${r.outcome.padEnd(8)} ${r.tool} by ${r.principal} in ${r.duration_ms} ms${r.error !== null ? `: ${r.error.message}` : ''}`,
      );
    }

    rule(
      run.succeeded
        ? `Done: the agent succeeded after ${run.retries} ${run.retries === 1 ? 'retry' : 'retries'}`
        : 'Done: the agent did not succeed',
    );
    say(`The audit logs stay in ${auditDir}: npm start serves them, with the flagged agent, on its dashboard.`);
    return run.succeeded ? 0 : 1;
  } finally {
    await example.stop();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
