/**
 * Runs a regression check for a stall in a worker thread that is stopped after a generous limit, so that a
 * return of a super-linear path fails the test (`did not finish within …`) instead of hanging the whole run:
 * synchronous code cannot be interrupted by mocha's own timeout. The limit is thousands of times the expected
 * cost, so this is no timing assertion (those live in `bench/`); it only tells "finishes" from "stalls".
 */
import { Worker } from 'node:worker_threads';

/** Generous: the checks run in milliseconds; before their fixes they took minutes to hours. */
const LIMIT_MS = 15_000;

/**
 * Evaluates `body` (the body of a function returning a JSON value; `require` resolves from the repository root
 * and TypeScript sources load through ts-node) in a worker and resolves its result.
 */
export function runBounded(body: string, limitMs = LIMIT_MS): Promise<unknown> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    require('ts-node/register/transpile-only');
    const { createRequire } = require('node:module');
    const require_ = createRequire(${JSON.stringify(`${process.cwd()}/`)});
    const result = (function (require) { ${body} })(require_);
    parentPort.postMessage(JSON.stringify(result === undefined ? null : result));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`did not finish within ${limitMs} ms: a super-linear path is back`));
    }, limitMs);
    worker.once('message', (message: string) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(JSON.parse(message));
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
