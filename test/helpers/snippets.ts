/**
 * Runs the code blocks of a markdown file as their readers would: each block is saved as an ES module in a temp
 * folder whose `node_modules` is a link to the packages it needs (this repository's, or the clients' cache), and
 * run with `node` (a Python block with the interpreter of the Python clients' virtual environment). A block shows its output as comment lines right after each `console.log(…)` line; the test
 * compares them with what the run printed. Only the gateway URL the block names is replaced, by the served one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The URL the docs' snippets connect to (what `npm start` serves `agents` on). */
export const SNIPPET_URL = 'http://127.0.0.1:8080/mcp';

/** A fenced code block of a markdown file. */
export interface CodeBlock {
  /** The nearest heading above it (`##` or `###`), without the hashes. */
  readonly section: string;
  /** 1-based line of its opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
}

/** Every fenced code block of a markdown file, in order. */
export function codeBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{2,3} (.+)$/.exec(lines[i]);
    if (heading !== null) section = heading[1];
    const fence = /^```(\w*)$/.exec(lines[i]);
    if (fence === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]);
    blocks.push({ section, line: start + 1, lang: fence[1], code: `${body.join('\n')}\n` });
  }
  return blocks;
}

/**
 * The output a snippet shows: after each line that calls `console.log(` (`print(` in Python), the comment lines
 * that follow it directly (`// text`, `# text`; the text trimmed at its end).
 */
export function expectedOutput(code: string, lang: 'js' | 'python' = 'js'): string[] {
  const [call, comment] = lang === 'python' ? ['print(', /^\s*# /] : ['console.log(', /^\s*\/\/ /];
  const lines = code.split('\n');
  const expected: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].includes(call)) continue;
    for (let j = i + 1; j < lines.length && comment.test(lines[j]); j++) {
      expected.push(lines[j].replace(comment, '').trimEnd());
    }
  }
  return expected;
}

/** A snippet running as its own process. */
export interface RunningSnippet {
  readonly child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout has a line matching `pattern`, rejects after `timeoutMs` or when the process ends first. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves with the exit code; kills the process (and rejects) after `timeoutMs`. */
  exited(timeoutMs: number): Promise<number>;
  /** Kills the process if it still runs, then removes its temp folder. */
  dispose(): void;
}

/** Options of {@link startSnippet}. */
export interface SnippetOptions {
  /** The `node_modules` folder a JavaScript snippet imports from. */
  readonly nodeModules?: string;
  /** The Python interpreter (of a virtual environment) that runs a Python snippet instead. */
  readonly python?: string;
  /** The gateway URL to use instead of {@link SNIPPET_URL}. */
  readonly url: string;
  /** Extra environment (e.g. `MCP_TOKEN`). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Saves `code` in a temp folder and runs it: as `snippet.mjs` with this `node` (its `node_modules` a link to
 * `nodeModules`), or as `snippet.py` with `python`.
 */
export function startSnippet(code: string, options: SnippetOptions): RunningSnippet {
  const dir = mkdtempSync(path.join(tmpdir(), 'snippet-'));
  const source = code.split(SNIPPET_URL).join(options.url);
  let command: [string, string];
  let env: NodeJS.ProcessEnv;
  if (options.python !== undefined) {
    writeFileSync(path.join(dir, 'snippet.py'), source);
    command = [options.python, 'snippet.py'];
    env = { ...process.env, PYTHONUNBUFFERED: '1', ...options.env };
  } else {
    symlinkSync(options.nodeModules ?? '', path.join(dir, 'node_modules'), 'dir');
    writeFileSync(path.join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
    writeFileSync(path.join(dir, 'snippet.mjs'), source);
    const bin = path.join(dir, 'node_modules', '.bin');
    env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, ...options.env };
    command = [process.execPath, 'snippet.mjs'];
  }
  const child = spawn(command[0], [command[1]], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))),
  );
  const describe = (): string => `stdout:\n${out}\nstderr:\n${err}`;
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitForLine(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let ended = false;
      void exit.then(() => (ended = true));
      for (;;) {
        const line = out.split('\n').find((l) => pattern.test(l));
        if (line !== undefined) return line;
        if (ended) throw new Error(`the snippet exited before printing ${pattern}\n${describe()}`);
        if (Date.now() > deadline) throw new Error(`no line ${pattern} within ${timeoutMs} ms\n${describe()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async exited(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the snippet did not exit within ${timeoutMs} ms\n${describe()}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exit, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    dispose() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs a snippet to its end: its exit code and output, or a rejection if it does not exit within `timeoutMs`. */
export async function runSnippet(
  code: string,
  options: SnippetOptions,
  timeoutMs = 30_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const running = startSnippet(code, options);
  try {
    const exitCode = await running.exited(timeoutMs);
    return { code: exitCode, stdout: running.stdout(), stderr: running.stderr() };
  } finally {
    running.dispose();
  }
}
