import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { appErrorOf, SynthError, synthesizeApp, SynthStoppedError } from '../../src/dev/synthesize-app';
import { eventually } from '../helpers/eventually';
import { isAlive } from './process-helpers';

/** What `node -e SCRIPT` prints on both streams, as an app's synthesis output. */
function nodeOutput(script: string): string {
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  return run.stdout + run.stderr;
}

describe('appErrorOf', () => {
  it("keeps an uncaught error's name and whole message, not Node's excerpt, stack or the error's properties", () => {
    const output = nodeOutput(`
      class ManifestError extends Error {
        constructor(message) { super(message); this.name = 'ManifestError'; this.file = 'desk.yaml'; this.line = 5; }
      }
      console.log('synthesizing');
      throw new ManifestError('desk.yaml:5:3: gateways.agents.validate_inputs: unknown key\\ndesk.yaml:9:1: services: bad');
    `);
    assert.match(output, /^\s+at /m);
    assert.match(output, /file: 'desk\.yaml'/);
    assert.match(
      appErrorOf(output)!,
      /^ManifestError: desk\.yaml:5:3: gateways\.agents\.validate_inputs: unknown key\ndesk\.yaml:9:1: services: bad\n {4}at \[eval\]:\d+$/,
    );
  });

  it('takes the error that ended the app, after one it logged and went on from', () => {
    const output = nodeOutput(`
      console.error('Error: a warning the app printed');
      throw new TypeError("Gateway 'agents': unknown prop 'validateInputs'");
    `);
    assert.match(
      appErrorOf(output)!,
      /^TypeError: Gateway 'agents': unknown prop 'validateInputs'\n {4}at \[eval\]:\d+$/,
    );
  });

  it("keeps a compiler's lines up to the blank line before the stack, and a code in brackets", () => {
    const tsError = [
      'TSError: ⨯ Unable to compile TypeScript:',
      "main.ts(60,7): error TS2561: Object literal may only specify known properties, but 'validateInputs' does not exist",
      '',
      '    at createTSError (/app/node_modules/ts-node/src/index.ts:859:12)',
    ].join('\n');
    assert.equal(appErrorOf(tsError), tsError.split('\n').slice(0, 2).join('\n'));
    assert.equal(
      appErrorOf("Error [ERR_MODULE_NOT_FOUND]: Cannot find module 'x'\n    at f (y.js:1:1)"),
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module 'x'\n    at f (y.js:1:1)",
    );
  });

  it("keeps a message's line that reads as another error's, and its lines after a blank one", () => {
    const output = nodeOutput(`
      throw new Error("Gateway 'agents': backend check failed:\\nTypeError: fetch failed\\n\\nfix the backend's url");
    `);
    assert.match(
      appErrorOf(output)!,
      /^Error: Gateway 'agents': backend check failed:\nTypeError: fetch failed\n\nfix the backend's url\n {4}at \[eval\]:\d+$/,
    );
  });

  it('takes no logged error for the one the app ended with: a kill after it, or a rejected string', () => {
    // an app that logged an error and went on did not end with it: the tail says what did
    const killed = nodeOutput(`
      console.error(new Error('could not reach the cache, continuing'));
      process.kill(process.pid, 'SIGKILL');
    `);
    assert.match(killed, /^Error: could not reach the cache/m);
    assert.equal(appErrorOf(`${killed}Killed\n`), undefined);
    const rejected = nodeOutput(`
      console.error(new Error('optional overrides.json not found, using defaults'));
      Promise.reject('the registry said no');
    `);
    // the rejection's own report is the one the app ended with
    assert.match(appErrorOf(rejected)!, /^UnhandledPromiseRejection: .*"the registry said no"/);
  });

  it('is left out of a synthesis that did not fail by its exit code (a timeout, no stacks)', () => {
    const output = 'Error: retrying localhost:1234\n    at retry (main.js:3:9)\n';
    assert.equal(new SynthError('synthesis (node main.js) did not finish within 3000 ms', output).appError, undefined);
    assert.equal(
      new SynthError('synthesis (node main.js) failed with exit code 1', output, { failed: true }).appError,
      'Error: retrying localhost:1234\n    at retry (main.js:3:9)',
    );
  });

  it("says where the app's own code threw: past the libraries' frames, or at a syntax error's line", () => {
    const construct = [
      "Error: Gateway 'agents': unknown prop 'validateInputs'",
      '    at checkKnownProps (/app/node_modules/cdktf-mcp-gateway/dist/constructs/known-props.js:20:13)',
      '    at new Gateway (/app/node_modules/cdktf-mcp-gateway/dist/constructs/gateway.js:300:9)',
      '    at new SupportDesk (/app/main.ts:188:5)',
      '    at node:internal/main/run_main_module:28:49',
    ].join('\n');
    assert.equal(
      appErrorOf(construct),
      "Error: Gateway 'agents': unknown prop 'validateInputs'\n    at new SupportDesk (/app/main.ts:188:5)",
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'app-error-'));
    try {
      writeFileSync(path.join(dir, 'bad.js'), 'const a = 1;\nconst b = a c;\n');
      const output = nodeOutput(`require(${JSON.stringify(path.join(dir, 'bad.js'))})`);
      assert.equal(appErrorOf(output), `SyntaxError: Unexpected identifier 'c'\n    at ${path.join(dir, 'bad.js')}:2`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds nothing in output that holds no error report', () => {
    assert.equal(appErrorOf('boom: no stack\n'), undefined);
    assert.equal(appErrorOf(''), undefined);
  });
});

describe('synthesizeApp', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'synth-app-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stops the app and what it started when its signal aborts, and removes its output folder', async () => {
    // the app starts a process of its own, as `npx` or a shell does, and both outlive any test
    const started = path.join(dir, 'started.json');
    writeFileSync(
      path.join(dir, 'slow.js'),
      [
        "const { spawn } = require('node:child_process');",
        "const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });",
        `require('node:fs').writeFileSync(${JSON.stringify(started)}, JSON.stringify({ pids: [process.pid, child.pid], outdir: process.env.CDKTF_OUTDIR }));`,
        'setTimeout(() => {}, 600000);',
      ].join('\n'),
    );
    const stop = new AbortController();
    const synthesis = synthesizeApp({ dir, cdktf: { app: 'node slow.js' }, signal: stop.signal });
    const { pids, outdir } = await eventually(
      () => existsSync(started) && (JSON.parse(readFileSync(started, 'utf8')) as { pids: number[]; outdir: string }),
      { timeoutMs: 20_000, what: 'the app to start' },
    );
    stop.abort();
    await assert.rejects(synthesis, (err: unknown) => {
      assert.ok(err instanceof SynthStoppedError);
      assert.equal(err.message, 'synthesis (node slow.js) stopped');
      assert.equal(err.appError, undefined);
      return true;
    });
    assert.deepEqual(
      pids.map((pid) => isAlive(pid)),
      [false, false],
    );
    assert.equal(existsSync(outdir), false);
  });

  it('does not run to its end when its signal has aborted already', async () => {
    await assert.rejects(
      synthesizeApp({ dir, cdktf: { app: 'node -e "setTimeout(() => {}, 600000)"' }, signal: AbortSignal.abort() }),
      SynthStoppedError,
    );
  });
});
