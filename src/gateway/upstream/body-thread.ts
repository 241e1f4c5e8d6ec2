/**
 * Large 2xx bodies become tool results on a worker thread, so the gateway's own thread keeps serving other calls
 * meanwhile. `JSON.parse` and `JSON.stringify` cost V8 per value, not per byte: a body of empty objects or nested
 * empty arrays packs hundreds of thousands of values into a MiB, and every other call would wait while the thread
 * worked through it. A body under {@link OFFLOAD_BYTES} is worked out in place: a hostile one of that size holds
 * the thread briefly, and copying it to a thread and back would cost an ordinary one more than it saves
 * (bench/response-attacks.ts measures both sides); one packed with arrays and objects goes to the thread from
 * {@link OFFLOAD_PACKED_MIN_BYTES} up ({@link worksOffThread}).
 *
 * One thread per gateway (per `ServiceClient`), started at the first large body (it loads the validation and
 * shaping modules, so a gateway that never sees one never pays for it), unreferenced (it never keeps the process
 * alive). Bodies wait here, oldest first, and go to the thread one at a time: a body whose call is no longer
 * waiting for it (timed out) is dropped without being worked out, so the bodies held are those of calls still in
 * flight. The gateway's thread only hands the body over and writes the result's bytes out: both move between the
 * threads without a copy (a body is copied only to a thread still loading, which may yet fail to start).
 *
 * Failures (each logged): a thread that cannot start (worker threads not permitted) or never loads its module
 * leaves every body to be worked out in place, on the gateway's thread. A thread that dies on a body (out of
 * memory) answers that body {@link BODY_FAILED}: working it out in place could stall or kill the gateway's thread
 * the same way. Once closed, bodies still held are answered as failed requests, not worked out.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log/logger';
import type { ResponseShaper } from '../../response';
import { READY, WORKING, wholeMemory, type BodyAnswer, type BodyJob } from './body-thread-worker';
import { BODY_FAILED, bodyResult, REQUEST_FAILED, type ServiceOutcome } from '../../response';

/** Bodies of at least this many bytes are worked out on the thread. */
export const OFFLOAD_BYTES = 256 * 1024;

/**
 * A smaller body of at least {@link OFFLOAD_PACKED_MIN_BYTES} leaves the gateway's thread too when it holds more
 * than this many opening brackets: V8 parses and serializes per value, and a body packed with arrays and objects
 * costs many times an ordinary one of its size.
 */
export const OFFLOAD_BRACKETS = 16_384;

/** Below this size a body is worked out in place, however many values it packs. */
export const OFFLOAD_PACKED_MIN_BYTES = 16 * 1024;

/**
 * The same for a tool with `redactPatterns`: a costly pattern (`[A-Za-z0-9._%+-]{1,64}@…`) on RE2's slower matcher
 * costs far more per byte than parsing, so from 4 KiB up such a body leaves the gateway's thread.
 */
export const OFFLOAD_SEARCHED_BYTES = 4 * 1024;

/**
 * Whether a complete body of `size` bytes (in `chunks`) is worked out on the thread: a large one, or one of
 * {@link OFFLOAD_PACKED_MIN_BYTES} or more that packs more than {@link OFFLOAD_BRACKETS} arrays and objects.
 * @param searches the tool has `redactPatterns`
 */
export function worksOffThread(chunks: readonly Buffer[], size: number, searches: boolean): boolean {
  if (size >= (searches ? OFFLOAD_SEARCHED_BYTES : OFFLOAD_BYTES)) return true;
  return size >= OFFLOAD_PACKED_MIN_BYTES && bracketsOver(chunks, OFFLOAD_BRACKETS);
}

/** Whether `chunks` hold more than `limit` bytes `[` and `{` (in strings too): native searches, at most `limit`. */
function bracketsOver(chunks: readonly Buffer[], limit: number): boolean {
  let count = 0;
  for (const chunk of chunks) {
    for (const bracket of BRACKETS) {
      for (let i = chunk.indexOf(bracket); i !== -1; i = chunk.indexOf(bracket, i + 1)) {
        if (++count > limit) return true;
      }
    }
  }
  return false;
}

const BRACKETS = [0x5b, 0x7b];

/** Threads in a row that die before loading their module, after which bodies are worked out in place for good. */
const MAX_LOAD_FAILURES = 3;

/** A body sent to this many threads that each died before starting on it is answered as failed. */
const MAX_ATTEMPTS = 2;

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
  /** Whether the call still waits for this body's result. */
  readonly wanted: () => boolean;
  readonly resolve: (outcome: ServiceOutcome) => void;
  /** Threads it was sent to. */
  attempts: number;
}

/** A started thread and what it works on. */
interface Running {
  readonly worker: Worker;
  /** Shared with the thread: {@link READY} and {@link WORKING}. */
  readonly state: Int32Array;
  /** The body sent to it, not answered yet. */
  current: { readonly id: number; readonly held: Held } | undefined;
}

/** The thread that works out large bodies, and the bodies waiting for it. */
export class BodyThread {
  private running: Running | undefined;
  /** Bodies waiting for the thread, oldest first. */
  private queue: Held[] = [];
  /** Set once threads cannot work here: every body is then worked out in place. */
  private unavailable = false;
  private loadFailures = 0;
  private closed = false;
  /**
   * The memory of bodies moved to a thread: no longer here, such a body cannot be sent again or worked out here
   * (it would read as empty).
   */
  private readonly movedAway = new WeakSet<ArrayBufferLike>();
  private nextId = 0;
  /** Each shaper's settings as JSON text: the key under which the thread keeps them compiled. */
  private readonly keys = new WeakMap<ResponseShaper, string>();

  /** @param log where thread failures are reported */
  constructor(private readonly log: Logger = () => undefined) {}

  /**
   * The tool result of a 2xx body: the same as {@link bodyResult}, worked out on the thread. Never rejects.
   * @param body its memory may move to the thread: not to be read or sent again after this call
   * @param maxBytes the response limit
   * @param shaper the tool's response controls
   * @param wanted whether the call still waits for it: a body no longer wanted is dropped unworked (its promise
   *   then resolves to an outcome nobody reads)
   */
  result(
    body: Buffer,
    contentType: string,
    maxBytes: number,
    shaper: ResponseShaper | undefined,
    wanted: () => boolean = () => true,
  ): Promise<ServiceOutcome> {
    return new Promise((resolve) => {
      const held: Held = { body, contentType, maxBytes, shaper, wanted, resolve, attempts: 0 };
      if (this.closed) resolve(REQUEST_FAILED);
      else if (this.movedAway.has(body.buffer)) resolve(BODY_FAILED);
      else if (this.unavailable) resolve(inPlace(held));
      else {
        this.drop();
        this.queue.push(held);
        this.next();
      }
    });
  }

  /**
   * Drops the bodies no longer wanted (a call times out: call this), so that they hold no memory: the waiting ones,
   * and the one the thread works on, whose thread is ended and replaced, so that one hostile body's cost never falls
   * on other calls beyond its own call's deadline.
   */
  drop(): void {
    const running = this.running;
    if (running?.current !== undefined && !running.current.held.wanted()) {
      this.running = undefined; // its exit is then no failure to report
      running.current.held.resolve(BODY_FAILED);
      running.current = undefined;
      void running.worker.terminate();
      this.log('info', 'body thread: the body of a call that timed out was abandoned; a fresh thread takes the rest');
    }
    if (this.queue.some((held) => !held.wanted())) this.queue = this.queue.filter((held) => dropUnwanted(held));
    this.next();
  }

  /** Stops the thread; the bodies it still held are answered as failed requests. */
  async close(): Promise<void> {
    this.closed = true;
    const running = this.running;
    this.running = undefined;
    const held = [...(running?.current !== undefined ? [running.current.held] : []), ...this.queue];
    this.queue = [];
    for (const h of held) h.resolve(REQUEST_FAILED);
    await running?.worker.terminate();
  }

  /** Sends the oldest wanted body to the thread, if it is free. */
  private next(): void {
    while (this.running?.current === undefined && this.queue.length > 0) {
      const held = this.queue.shift() as Held;
      if (!dropUnwanted(held)) continue;
      if (this.unavailable || !this.send(held)) held.resolve(inPlace(held));
    }
  }

  /** Sends a body to the thread (started if need be); false when it could not be sent. */
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
      const running = this.thread();
      this.nextId = (this.nextId % 0x7fffffff) + 1; // an id fits the shared Int32Array, and is never 0
      const id = this.nextId;
      const { body, contentType, maxBytes } = held;
      // Moved to a thread that has loaded; copied to one still loading, so that they stay here should it fail.
      const move = Atomics.load(running.state, READY) === 1 ? wholeMemory(body) : undefined;
      running.worker.postMessage({ id, body, contentType, maxBytes, controls } satisfies BodyJob, move ? [move] : []);
      if (move !== undefined) this.movedAway.add(move);
      held.attempts++;
      running.current = { id, held };
      return true;
    } catch (err) {
      this.log('warn', 'body thread: a body could not be sent; it is worked out in place', { error: String(err) });
      return false;
    }
  }

  private thread(): Running {
    if (this.running !== undefined) return this.running;
    const state = new Int32Array(new SharedArrayBuffer(8));
    let worker: Worker;
    try {
      const file = require.resolve('./body-thread-worker');
      worker = new Worker(WORKER, { eval: true, workerData: { file, state } });
    } catch (err) {
      this.unavailable = true;
      this.log('warn', 'body thread cannot start; large bodies are worked out in place', { error: String(err) });
      throw err;
    }
    worker.unref();
    const running: Running = { worker, state, current: undefined };
    this.running = running;
    worker.on('message', ({ id, outcome }: BodyAnswer) => {
      const current = running.current;
      if (this.running !== running || current?.id !== id) return; // a late answer of a thread given up on
      this.loadFailures = 0;
      running.current = undefined;
      current.held.resolve(outcomeOf(outcome));
      this.next();
    });
    let reported = false;
    const failed = (err?: Error): void => {
      if (this.running !== running) return;
      this.running = undefined;
      const loaded = Atomics.load(state, READY) === 1;
      const current = running.current;
      if (!reported) {
        reported = true;
        this.log('warn', 'body thread stopped', { loaded, ...(err !== undefined ? { error: String(err) } : {}) });
      }
      if (!loaded && ++this.loadFailures >= MAX_LOAD_FAILURES) {
        this.unavailable = true;
        this.log('warn', 'body thread does not load; large bodies are worked out in place');
      }
      if (current !== undefined) {
        // Working on it when it died, or holding its bytes: answered as failed. Else sent again (or worked out here).
        const killedBy = loaded && Atomics.load(state, WORKING) === current.id;
        const moved = this.movedAway.has(current.held.body.buffer);
        if (killedBy || moved || current.held.attempts >= MAX_ATTEMPTS) current.held.resolve(BODY_FAILED);
        else this.queue.unshift(current.held);
      }
      this.next();
    };
    worker.on('error', failed);
    worker.on('exit', () => failed());
    return running;
  }
}

/** An answer of the thread as an outcome: its bytes as a `Buffer` over the same memory. */
function outcomeOf(answer: BodyAnswer['outcome']): ServiceOutcome {
  if (!answer.ok) return answer;
  const { bytes, counts } = answer;
  const resultJson = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return counts === undefined ? { ok: true, resultJson } : { ok: true, resultJson, counts };
}

/** The body's result, worked out on the gateway's own thread. */
function inPlace({ body, contentType, maxBytes, shaper }: Held): ServiceOutcome {
  return bodyResult(body, contentType, maxBytes, shaper);
}

/** Answers a body no longer wanted (nobody reads it) and says whether it is still wanted. */
function dropUnwanted(held: Held): boolean {
  if (held.wanted()) return true;
  held.resolve(BODY_FAILED);
  return false;
}
