/**
 * Large 2xx bodies become tool results on a worker thread, so the gateway's own thread keeps serving other calls
 * meanwhile. `JSON.parse` and `JSON.stringify` cost V8 per value, not per byte: a body of empty objects or nested
 * empty arrays (up to 350,000 values in a MiB) held the gateway's thread for 100–180 ms per MiB, more than half a
 * second at the default 4 MiB response limit, and every other call waited that long. A body under
 * {@link OFFLOAD_BYTES} is worked out in place: a hostile one of that size holds the thread for under 50 ms, and
 * copying it to a thread and back would cost an ordinary one more than it saves.
 *
 * One thread per gateway (per `ServiceClient`), started at the first large body (it loads the validation and
 * shaping modules: about 27 MB), unreferenced (it never keeps the process alive). It works out one body at a time,
 * in the order they came. For an ordinary 1 MiB body the gateway's thread spends about 2 ms copying the body there
 * and the result back, and the call is answered about 3 ms later.
 *
 * Failures: a thread that cannot start (worker threads not permitted, its module missing) leaves every body to be
 * worked out in place, as before threads existed. A thread that dies on a body (out of memory) answers that body
 * {@link BODY_FAILED} — working it out in place could stall or kill the gateway's thread the same way — and hands
 * the bodies queued behind it to a fresh thread. Once closed, bodies still held are answered as failed requests,
 * not worked out: the calls that sent them are being cut off.
 */
import { Worker } from 'node:worker_threads';
import type { ResponseShaper } from '../../response';
import { READY, WORKING, type BodyAnswer, type BodyJob } from './body-thread-worker';
import { BODY_FAILED, bodyResult, failure, type ServiceOutcome } from './service-outcome';

/** Bodies of at least this many bytes are worked out on the thread. */
export const OFFLOAD_BYTES = 256 * 1024;

/** What a body still held when the thread is closed gets: what a request cut off by the closing pool gets. */
const CLOSED = failure('SERVICE_UNAVAILABLE', 'Service unavailable: request failed');

/** The worker's code: the compiled module (or, under ts-node in the tests, its source) serves the bodies. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.file.endsWith('.ts')) require('ts-node/register/transpile-only');
require(workerData.file).serveBodies(parentPort, workerData.state);
`;

interface Held {
  readonly body: Buffer;
  readonly contentType: string;
  readonly maxBytes: number;
  readonly shaper: ResponseShaper | undefined;
  readonly resolve: (outcome: ServiceOutcome) => void;
}

/** The thread that works out large bodies, and the bodies it holds. */
export class BodyThread {
  private worker: Worker | undefined;
  /** Set once a thread could not start: every body is then worked out in place. */
  private unavailable = false;
  private closed = false;
  /** The bodies sent to the thread and not answered yet, oldest first (the thread answers in that order). */
  private readonly held = new Map<number, Held>();
  private nextId = 0;
  /** Each shaper's settings as JSON text: the key under which the thread keeps them compiled. */
  private readonly keys = new WeakMap<ResponseShaper, string>();

  /**
   * The tool result of a 2xx body: the same as {@link bodyResult} of its text, worked out on the thread. Never
   * rejects.
   * @param maxBytes the response limit
   * @param shaper the tool's response controls
   */
  result(
    body: Buffer,
    contentType: string,
    maxBytes: number,
    shaper: ResponseShaper | undefined,
  ): Promise<ServiceOutcome> {
    return new Promise((resolve) => {
      const held: Held = { body, contentType, maxBytes, shaper, resolve };
      if (this.closed) resolve(CLOSED);
      else if (this.unavailable || !this.send(held)) resolve(inPlace(held));
    });
  }

  /** Stops the thread; the bodies it still held are answered as failed requests. */
  async close(): Promise<void> {
    this.closed = true;
    const held = [...this.held.values()];
    this.held.clear();
    for (const h of held) h.resolve(CLOSED);
    await this.worker?.terminate();
  }

  /** Sends a body to the thread; false when it could not be sent (it is then worked out in place). */
  private send(held: Held): boolean {
    try {
      let controls: BodyJob['controls'];
      if (held.shaper !== undefined) {
        let key = this.keys.get(held.shaper);
        if (key === undefined) {
          key = JSON.stringify(held.shaper.source);
          this.keys.set(held.shaper, key);
        }
        controls = { key, source: held.shaper.source };
      }
      this.nextId = (this.nextId % 0x7fffffff) + 1; // an id fits the shared Int32Array, and is never 0
      const id = this.nextId;
      const { body, contentType, maxBytes } = held;
      // The bytes are copied, not transferred: they stay here in case the thread fails.
      this.thread().postMessage({ id, body, contentType, maxBytes, controls } satisfies BodyJob);
      this.held.set(id, held);
      return true;
    } catch {
      return false;
    }
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const state = new Int32Array(new SharedArrayBuffer(8));
    const file = require.resolve('./body-thread-worker');
    let worker: Worker;
    try {
      worker = new Worker(WORKER, { eval: true, workerData: { file, state } });
    } catch (err) {
      this.unavailable = true;
      throw err;
    }
    worker.unref();
    this.worker = worker;
    worker.on('message', ({ id, outcome }: BodyAnswer) => {
      const held = this.held.get(id);
      this.held.delete(id);
      held?.resolve(outcome);
    });
    const failed = (): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const held = [...this.held];
      this.held.clear();
      if (this.closed) return;
      if (Atomics.load(state, READY) === 0) {
        // It never listened: threads cannot work here.
        this.unavailable = true;
        for (const [, h] of held) h.resolve(inPlace(h));
        return;
      }
      // The body it was working on is answered as failed; the others go to a fresh thread (an answer the dead one
      // sent before it died may still arrive, under an id no longer held, and is dropped).
      const working = Atomics.load(state, WORKING);
      for (const [id, h] of held) {
        if (id === working) h.resolve(BODY_FAILED);
        else if (!this.send(h)) h.resolve(inPlace(h));
      }
    };
    worker.on('error', failed);
    worker.on('exit', failed);
    return worker;
  }
}

function inPlace({ body, contentType, maxBytes, shaper }: Held): ServiceOutcome {
  return bodyResult(body.toString('utf8'), contentType, maxBytes, shaper);
}
