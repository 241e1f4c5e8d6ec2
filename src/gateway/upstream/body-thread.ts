/**
 * Large 2xx bodies become tool results on a worker thread, so the gateway's own thread keeps serving other calls
 * meanwhile. `JSON.parse` and `JSON.stringify` cost V8 per value, not per byte: a body of empty objects or nested
 * empty arrays (up to 350,000 values in a MiB) held the gateway's thread for 100–180 ms per MiB, more than half a
 * second at the default 4 MiB response limit, and every other call waited that long. A body under
 * {@link OFFLOAD_BYTES} is worked out in place: a hostile one of that size holds the thread for under 50 ms, and
 * copying it to a thread and back would cost an ordinary one more than it saves.
 *
 * One thread per gateway process, started at the first large body (it loads the validation and shaping modules:
 * about 27 MB), unreferenced (it never keeps the process alive). For an ordinary 1 MiB body the gateway's thread
 * spends about 2 ms copying the body there and the result back, and the call is answered about 3 ms later. Should the thread fail, the bodies it held are
 * worked out in place, as they were before it existed, and the next large body starts a fresh thread.
 */
import { Worker } from 'node:worker_threads';
import type { ResponseShaper } from '../../response';
import type { BodyAnswer, BodyJob } from './body-thread-worker';
import { bodyResult, type ServiceOutcome } from './service-outcome';

/** Bodies of at least this many bytes are worked out on the thread. */
export const OFFLOAD_BYTES = 256 * 1024;

/** The worker's code: the compiled module (or, under ts-node in the tests, its source) serves the bodies. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.file.endsWith('.ts')) require('ts-node/register/transpile-only');
require(workerData.file).serveBodies(parentPort);
`;

interface Pending {
  readonly body: Buffer;
  readonly contentType: string;
  readonly maxBytes: number;
  readonly shaper: ResponseShaper | undefined;
  readonly resolve: (outcome: ServiceOutcome) => void;
}

/** The thread that works out large bodies, and the bodies it holds. */
export class BodyThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  /** Each shaper's settings as JSON text: the key under which the thread keeps them compiled. */
  private readonly keys = new WeakMap<ResponseShaper, string>();

  /**
   * The tool result of a 2xx body: the same as {@link bodyResult} of its text, worked out on the thread.
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
      const pending = { body, contentType, maxBytes, shaper, resolve };
      if (this.closed) {
        resolveInPlace(pending);
        return;
      }
      const id = ++this.nextId;
      this.pending.set(id, pending);
      let controls: BodyJob['controls'];
      if (shaper !== undefined) {
        let key = this.keys.get(shaper);
        if (key === undefined) {
          key = JSON.stringify(shaper.source);
          this.keys.set(shaper, key);
        }
        controls = { key, source: shaper.source };
      }
      // The bytes are copied, not transferred: they stay here for working out in place should the thread fail.
      this.thread().postMessage({ id, body, contentType, maxBytes, controls } satisfies BodyJob);
    });
  }

  /** Stops the thread; a body it still held is worked out in place. */
  async close(): Promise<void> {
    this.closed = true;
    await this.worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(WORKER, { eval: true, workerData: { file: require.resolve('./body-thread-worker') } });
    worker.unref();
    worker.on('message', ({ id, outcome }: BodyAnswer) => {
      const pending = this.pending.get(id);
      this.pending.delete(id);
      pending?.resolve(outcome);
    });
    const failed = (): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const held = [...this.pending.values()];
      this.pending.clear();
      for (const pending of held) resolveInPlace(pending);
    };
    worker.on('error', failed);
    worker.on('exit', failed);
    this.worker = worker;
    return worker;
  }
}

function resolveInPlace({ body, contentType, maxBytes, shaper, resolve }: Pending): void {
  resolve(bodyResult(body.toString('utf8'), contentType, maxBytes, shaper));
}
