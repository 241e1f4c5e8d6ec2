/**
 * A reload of a large config file reads, parses and checks it on a thread of its own: for thousands of tools that
 * is more work than a call may wait for. The checked config comes back as JSON text per tool, parsed here between
 * calls ({@link Slicer}). A small file is read in place, where a thread would only add its start.
 */
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ConfigError } from '../../config/config-error';
import type { GatewayConfig, ToolConfig } from '../../config/gateway-config';
import { readGatewayConfigFile } from '../../config/load-config';
import type { Logger } from '../log/logger';
import type { ConfigThreadAnswer } from './config-thread-worker';
import { runInSlices, Slicer } from './event-loop-slices';

/** Files at least this large are read on the thread. */
export const THREAD_MIN_BYTES = 256 * 1024;

/**
 * How long the thread may take. Reloads queue behind this one, so a read that never ends must not hold them for
 * good; reading in place instead would hold the event loop, so the reload is refused.
 */
export const THREAD_TIMEOUT_MS = 120_000;

/** The thread did not answer in time (it is stopped). */
class ThreadTimeout extends Error {}

// Runs the worker module from its compiled file, or from its TypeScript source under the tests.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.file.endsWith('.ts')) require('ts-node/register/transpile-only');
parentPort.postMessage(require(workerData.file).readConfigForThread(workerData.config));
`;

/** A checked config and the digest of the bytes it came from. */
export interface LoadedConfig {
  readonly config: GatewayConfig;
  readonly digest: string;
}

/**
 * Reads and checks a config file as `readGatewayConfigFile` does, holding the event loop a slice at a time; anything
 * but a regular file (a FIFO, a device) is refused unread.
 * @throws ConfigError as `readGatewayConfigFile` does
 */
export async function readConfigInSlices(
  file: string,
  log: Logger,
  slicer = new Slicer(),
  timeoutMs = THREAD_TIMEOUT_MS,
): Promise<LoadedConfig> {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // Unreadable: read in place, which names the reason.
  }
  if (size < THREAD_MIN_BYTES) return readGatewayConfigFile(file, true);
  let answer: ConfigThreadAnswer;
  try {
    answer = await onThread(file, timeoutMs);
  } catch (err) {
    if (err instanceof ThreadTimeout) {
      throw new Error(`reading ${file} took over ${timeoutMs} ms on the config thread; it was stopped`);
    }
    log('warn', 'config thread failed; the config is read in place', { error: String(err) });
    return readGatewayConfigFile(file, true);
  }
  if (!answer.ok) throw answer.configError ? new ConfigError(answer.message) : new Error(answer.message);
  const config = JSON.parse(answer.head) as GatewayConfig & { tools: ToolConfig[] };
  await runInSlices(parseEach(answer.tools, config.tools), slicer);
  return { config, digest: answer.digest };
}

/** Parses each tool's JSON text into `into`, one tool per step. */
function* parseEach(texts: readonly string[], into: ToolConfig[]): Generator<void, void, void> {
  for (const text of texts) {
    into.push(JSON.parse(text) as ToolConfig);
    yield;
  }
}

function onThread(config: string, timeoutMs: number): Promise<ConfigThreadAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { file: require.resolve('./config-thread-worker'), config },
    });
    const timer = setTimeout(() => {
      reject(new ThreadTimeout());
      void worker.terminate();
    }, timeoutMs);
    worker.once('message', (answer: ConfigThreadAnswer) => {
      resolve(answer);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`config thread exited with code ${code}`));
    });
  });
}
