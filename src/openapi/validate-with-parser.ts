import { MessageChannel, MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

/**
 * Runs in a worker thread: validates each document it is sent with `@readme/openapi-parser` (external references
 * off: nothing is read or fetched), answers `{ errors: [message, …] }` on the port, then wakes the waiting thread.
 */
const WORKER = `
const { workerData } = require('node:worker_threads');
const { validate } = require(workerData.parser);
const { port, signal } = workerData;
port.on('message', async (document) => {
  let errors;
  try {
    const result = await validate(document, {
      resolve: { external: false, file: false, http: false },
      validate: { errors: { colorize: false } },
    });
    errors = result.valid ? [] : result.errors.map((e) => String(e.message));
  } catch (err) {
    errors = [String((err && err.message) || err)];
  }
  port.postMessage({ errors });
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;

/** Generous: the parser takes well under a second for large real documents. */
const VALIDATE_TIMEOUT_MS = 120_000;

interface Bridge {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
}

let bridge: Bridge | undefined;

/** The worker, started on first use and kept (unreferenced: it never keeps the process alive) for later documents. */
function startBridge(): Bridge {
  if (bridge !== undefined) return bridge;
  const { port1, port2 } = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { parser: require.resolve('@readme/openapi-parser'), port: port2, signal },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  worker.on('error', () => {
    bridge = undefined; // the next document starts a fresh worker
  });
  bridge = { worker, port: port1, signal };
  return bridge;
}

/**
 * What `@readme/openapi-parser` finds wrong with a document (empty: valid). The parser is asynchronous and a
 * construct is built synchronously, so it runs in a worker thread that this call waits for (`Atomics.wait`); the
 * worker is reused, so only the first document pays for loading the parser and its meta-schemas.
 *
 * @throws Error when the worker does not answer in time
 */
export function validateWithParser(document: unknown): string[] {
  const { port, signal, worker } = startBridge();
  Atomics.store(signal, 0, 0);
  port.postMessage(document);
  if (Atomics.wait(signal, 0, 0, VALIDATE_TIMEOUT_MS) === 'timed-out') {
    bridge = undefined;
    void worker.terminate();
    throw new Error(`@readme/openapi-parser did not answer within ${VALIDATE_TIMEOUT_MS / 1000} s`);
  }
  const answer = receiveMessageOnPort(port);
  if (answer === undefined) throw new Error('@readme/openapi-parser gave no answer');
  const { errors } = answer.message as { errors: string[] };
  return errors.map((e) => e.replace(/\s+/g, ' ').trim());
}
