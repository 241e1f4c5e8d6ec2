/**
 * The worker side of {@link BodyThread}: turns each body it is sent into a tool result with the same function the
 * gateway's own thread uses ({@link bodyResult}), compiling each tool's response controls once from the settings
 * sent with the body.
 */
import type { MessagePort } from 'node:worker_threads';
import { compileResponseControls, type ResponseControlsSource, type ResponseShaper } from '../../response';
import { bodyResult, type JsonText, type ServiceOutcome, type ShapeCounts } from '../../response';

/** One body to turn into a result. */
export interface BodyJob {
  readonly id: number;
  /** The body's bytes (UTF-8). */
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly maxBytes: number;
  /** The tool's response controls: `key` names the settings (their JSON text), compiled here once per key. */
  readonly controls: { readonly key: string; readonly source: ResponseControlsSource } | undefined;
}

/**
 * The answer to a {@link BodyJob}: a result as its UTF-8 bytes, moved to the gateway's thread (not copied), which
 * writes them to the agent as they are; or a failure.
 */
export interface BodyAnswer {
  readonly id: number;
  readonly outcome: Exclude<ServiceOutcome, { ok: true }> | BodyResultBytes;
}

/** A result as it crosses from the thread: a `Buffer` arrives as a plain `Uint8Array`. */
export interface BodyResultBytes {
  readonly ok: true;
  readonly bytes: Uint8Array;
  readonly counts?: ShapeCounts;
}

/** Compiled controls kept, most recently used last; the oldest goes past this many (a reload compiles anew). */
const MAX_COMPILED = 256;

/*
 * The thread tells what it is doing through shared memory, which the gateway's thread reads at once, whatever
 * messages are still in flight when the thread dies (its answers may arrive after its `error` event).
 */
/** Index of the shared state: 1 once the thread has loaded its modules and listens for bodies. */
export const READY = 0;
/** Index of the shared state: the id of the body being worked out (0: none). */
export const WORKING = 1;

/**
 * Answers every job that arrives on `port`.
 * @param state an `Int32Array` of two on shared memory: {@link READY} and {@link WORKING}
 */
export function serveBodies(port: MessagePort, state: Int32Array): void {
  const compiled = new Map<string, ResponseShaper | undefined>();
  const shaperFor = (controls: NonNullable<BodyJob['controls']>): ResponseShaper | undefined => {
    if (compiled.has(controls.key)) {
      const shaper = compiled.get(controls.key);
      compiled.delete(controls.key);
      compiled.set(controls.key, shaper);
      return shaper;
    }
    const result = compileResponseControls(controls.source.config, controls.source.validateOutput);
    // The gateway's thread compiled the same settings without error, so only a bug gets here: the thread exits,
    // and this body is answered as failed.
    if ('error' in result) throw new Error(result.error);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(controls.key, result.shaper);
    return result.shaper;
  };
  port.on('message', (job: BodyJob) => {
    Atomics.store(state, WORKING, job.id);
    const shaper = job.controls === undefined ? undefined : shaperFor(job.controls);
    const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
    const outcome = bodyResult(body, job.contentType, job.maxBytes, shaper);
    if (outcome.ok) {
      const bytes = ownBytes(outcome.resultJson);
      port.postMessage({ id: job.id, outcome: { ok: true, bytes, counts: outcome.counts } } satisfies BodyAnswer, [
        bytes.buffer,
      ]);
    } else port.postMessage({ id: job.id, outcome } satisfies BodyAnswer);
    Atomics.store(state, WORKING, 0);
  });
  // a message the thread cannot read (its memory could not be allocated here): the thread ends, which answers the
  // body it carried as failed
  port.on('messageerror', () => process.exit(1));
  Atomics.store(state, READY, 1);
}

/** JSON text as bytes that own their whole memory, which can then be moved to another thread. */
function ownBytes(text: JsonText): Uint8Array<ArrayBuffer> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const whole = wholeMemory(bytes);
  // a short one lives in Node's shared pool: copied out of it
  return whole !== undefined ? new Uint8Array(whole) : new Uint8Array(bytes);
}

/**
 * The memory of bytes that span all of it, which can move to another thread; `undefined` for a slice of a larger
 * buffer (Node's shared pool) or shared memory, which must be copied.
 */
export function wholeMemory(bytes: Uint8Array): ArrayBuffer | undefined {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : undefined;
}
