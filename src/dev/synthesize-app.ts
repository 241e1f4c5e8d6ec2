/**
 * Synthesizes a cdktf app the way `cdktf synth` does, without cdktf-cli: runs the `app` command of
 * `DIR/cdktf.json` in DIR with `CDKTF_OUTDIR` pointing at a fresh temp dir; cdktf's `App` writes
 * `stacks/<stack>/cdk.tf.json` there.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { onLines, spawnManaged } from './child-processes';

/** A synthesis that failed; the message is one line, details in `output`. */
export class SynthError extends Error {
  /**
   * The error the app ended with, without Node's source excerpt and stack (see {@link appErrorOf}); only for an app
   * that exited with a failure (one that timed out, or exited 0 without stacks, ended with no error).
   */
  readonly appError: string | undefined;

  constructor(
    message: string,
    readonly output = '',
    options: { readonly failed?: boolean } = {},
  ) {
    super(message);
    this.appError = options.failed === true ? appErrorOf(output) : undefined;
  }
}

/** A synthesis stopped before its end because `dev` is stopping: nothing to report. */
export class SynthStoppedError extends SynthError {}

/** An uncaught error's first line as Node prints it: `Name: message` or `Name [CODE]: message`, at column 0. */
const ERROR_LINE = /^(?:[A-Z][A-Za-z]*)?Error(?: \[[A-Z_0-9]+\])?: /;
/** A report's first line right above its stack, an error's or Node's own (`UnhandledPromiseRejection: …`). */
const HEADER_LINE = /^[A-Z][A-Za-z]*(?:Error|Exception|Rejection)(?: \[[A-Z_0-9]+\])?: /;
/** What follows an error's message in Node's report: its stack (whose last line opens its own properties). */
const STACK_LINE = /^\s+at /;
/** What may follow that stack in Node's report: more frames, the error's properties, blank lines, Node's version. */
const REPORT_TAIL_LINE = /^(?:\s.*|\}|Node\.js v\d.*)?$/;

/**
 * The error an app ended with, from its output: the `Name: message` line and the lines of the message after it,
 * without the source excerpt Node prints before it or the stack and properties after (a manifest's
 * `FILE:LINE:COL: PATH: REASON`, a construct's refusal, TypeScript's compile errors). `undefined` when the output
 * does not end with such a report (an error the app logged and went on from, then was killed): the caller shows
 * the output's tail instead.
 */
export function appErrorOf(output: string): string | undefined {
  const lines = output.split('\n');
  // the stack of the report the output ends with: only frames, properties and Node's version come after it
  let tail = lines.length;
  while (tail > 0 && REPORT_TAIL_LINE.test(lines[tail - 1])) tail--;
  let stack = tail;
  while (stack < lines.length && !STACK_LINE.test(lines[stack])) stack++;
  if (stack === lines.length) return undefined;
  let last = stack - 1;
  if (last < 0 || !HEADER_LINE.test(lines[last])) {
    while (last >= 0 && !ERROR_LINE.test(lines[last])) last--;
    if (last === -1) return undefined;
  }
  // a message may hold a line that reads as an error's (`TypeError: fetch failed` under the app's own words): the
  // report starts at the first such line of those without a blank one above (Node leaves one after its excerpt)
  let first = last;
  for (let i = last - 1; i >= 0 && lines[i] !== ''; i--) if (ERROR_LINE.test(lines[i])) first = i;
  let end = stack;
  while (end > first + 1 && lines[end - 1] === '') end--;
  const at = locationOf(lines, first, stack);
  return [...lines.slice(first, end), ...(at === undefined ? [] : [`    at ${at}`])].join('\n');
}

/**
 * Where the app's own code threw: Node's excerpt header above the report (`FILE:LINE`, then the line, its caret and
 * a blank line), else the stack's first frame, skipping those in `node_modules` and Node's own.
 */
function locationOf(lines: readonly string[], first: number, stack: number): string | undefined {
  const candidates: string[] = [];
  if (first >= 4 && lines[first - 1] === '' && /^\s*\^/.test(lines[first - 2])) candidates.push(lines[first - 4]);
  for (let i = stack; i < lines.length && STACK_LINE.test(lines[i]); i++)
    candidates.push(lines[i].replace(STACK_LINE, ''));
  return candidates.find((c) => !/[/\\]node_modules[/\\]|\bnode:/.test(c) && c.trim() !== '');
}

/** How long a synthesis may take by default. */
export const DEFAULT_SYNTH_TIMEOUT_MS = 120_000;

/** Options of {@link synthesizeApp}. */
export interface SynthesizeAppOptions {
  /** The app directory, holding `cdktf.json`. */
  readonly dir: string;
  /** Its `cdktf.json`, as {@link readCdktfJson} read it. */
  readonly cdktf: CdktfJson;
  /** @default 120000 */
  readonly timeoutMs?: number;
  /** Stops the app (its whole process group) when aborted: `dev` is stopping. @default - runs to its end */
  readonly signal?: AbortSignal;
}

/** What dev uses of a `cdktf.json`: the command that runs the app and the context it passes. */
export interface CdktfJson {
  readonly app: string;
  readonly context?: Record<string, unknown>;
}

/** The result of a synthesis: the output directory (the caller removes it) and how long it took. */
export interface SynthesizedApp {
  readonly outdir: string;
  readonly durationMs: number;
}

/** Keeps only the end of a child's output for error messages. */
const OUTPUT_TAIL_CHARS = 4000;

/** Reads `DIR/cdktf.json` and returns its `app` command and optional `context`. */
export function readCdktfJson(dir: string): CdktfJson {
  const file = path.join(dir, 'cdktf.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new SynthError(`${file}: not found (dev needs a cdktf app directory)`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new SynthError(`${file}: invalid JSON (${(err as Error).message})`);
  }
  const app = (doc as { app?: unknown }).app;
  if (typeof app !== 'string' || app.trim() === '')
    throw new SynthError(`${file}: "app" must be the command that runs the app`);
  const context = (doc as { context?: unknown }).context;
  return typeof context === 'object' && context !== null
    ? { app, context: context as Record<string, unknown> }
    : { app };
}

/** Runs the app command and resolves with the output directory once it exits 0. */
export async function synthesizeApp(options: SynthesizeAppOptions): Promise<SynthesizedApp> {
  const { app, context } = options.cdktf;
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdktf-mcp-gateway-dev-'));
  const started = Date.now();
  const child = spawnManaged(app, {
    cwd: options.dir,
    env: {
      ...process.env,
      CDKTF_OUTDIR: outdir,
      CHECKPOINT_DISABLE: '1',
      ...(context !== undefined ? { CDKTF_CONTEXT_JSON: JSON.stringify(context) } : {}),
    },
  });
  let output = '';
  const keep = (line: string): void => {
    output = `${output}${line}\n`.slice(-OUTPUT_TAIL_CHARS);
  };
  onLines(child.process.stdout, keep);
  onLines(child.process.stderr, keep);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SYNTH_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<'timeout' | 'stopped'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    onAbort = () => resolve('stopped');
    if (options.signal?.aborted === true) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const result = await Promise.race([child.exited, ended]);
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort!);
  try {
    if (result === 'timeout') {
      await child.stop(1000);
      throw new SynthError(`synthesis (${app}) did not finish within ${timeoutMs} ms`, output);
    }
    if (result === 'stopped') {
      await child.stop(1000);
      throw new SynthStoppedError(`synthesis (${app}) stopped`, output);
    }
    if (result !== 0) {
      throw new SynthError(`synthesis (${app}) failed with exit code ${result}`, output, { failed: true });
    }
    if (!fs.existsSync(path.join(outdir, 'stacks'))) {
      throw new SynthError(
        `synthesis (${app}) wrote no stacks to CDKTF_OUTDIR (does the app pass its own outdir to App?)`,
        output,
      );
    }
  } catch (err) {
    fs.rmSync(outdir, { recursive: true, force: true });
    throw err;
  }
  return { outdir, durationMs: Date.now() - started };
}
