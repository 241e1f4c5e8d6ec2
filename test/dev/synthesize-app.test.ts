import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appErrorOf } from '../../src/dev/synthesize-app';

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
    assert.equal(
      appErrorOf(output),
      'ManifestError: desk.yaml:5:3: gateways.agents.validate_inputs: unknown key\ndesk.yaml:9:1: services: bad',
    );
  });

  it('takes the error that ended the app, after one it logged and went on from', () => {
    const output = nodeOutput(`
      console.error('Error: a warning the app printed');
      throw new TypeError("Gateway 'agents': unknown prop 'validateInputs'");
    `);
    assert.equal(appErrorOf(output), "TypeError: Gateway 'agents': unknown prop 'validateInputs'");
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
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module 'x'",
    );
  });

  it('finds nothing in output that holds no error report', () => {
    assert.equal(appErrorOf('boom: no stack\n'), undefined);
    assert.equal(appErrorOf(''), undefined);
  });
});
