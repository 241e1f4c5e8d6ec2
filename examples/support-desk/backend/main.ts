/**
 * Runs the support desk backend: `node main.ts [--port N] [--host H]` (or env `PORT`, `HOST`) on Node 22.18 or
 * later, which runs TypeScript by stripping its types, as its image does (on older Node:
 * `node -r ts-node/register/transpile-only main.ts`). Prints `Backend: http://HOST:PORT` once listening (the line
 * `dev` waits for), and stops on SIGINT/SIGTERM.
 */
import { startSupportDeskBackend } from './support-desk-backend.ts';

function flag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const inline = argv.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

async function main(argv: readonly string[]): Promise<void> {
  const rawPort = flag(argv, '--port') ?? process.env.PORT ?? '8080';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port: must be an integer 0-65535, got '${rawPort}'`);
  }
  const backend = await startSupportDeskBackend({
    port,
    host: flag(argv, '--host') ?? process.env.HOST ?? '127.0.0.1',
  });
  process.stdout.write(`Backend: ${backend.url}\n`);
  const stop = (): void => {
    void backend.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`support-desk backend: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
