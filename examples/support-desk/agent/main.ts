/**
 * Runs the scripted agent against a gateway:
 * `node -r ts-node/register/transpile-only main.ts --url http://127.0.0.1:8080/mcp --token TOKEN`
 * (or env `MCP_URL`, `MCP_TOKEN`). Exits 0 when the call succeeded within two retries.
 */
import { formatStep, runScriptedAgent } from './scripted-agent';

function flag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

async function main(argv: readonly string[]): Promise<number> {
  const url = flag(argv, '--url') ?? process.env.MCP_URL;
  const token = flag(argv, '--token') ?? process.env.MCP_TOKEN;
  if (url === undefined) {
    process.stderr.write(
      'usage: agent --url http://127.0.0.1:PORT/mcp [--token TOKEN]   (or env MCP_URL, MCP_TOKEN)\n',
    );
    return 2;
  }
  const run = await runScriptedAgent({
    url,
    ...(token !== undefined ? { token } : {}),
    onStep: (s) => process.stdout.write(`${formatStep(s)}\n\n`),
  });
  return run.succeeded ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`agent: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
