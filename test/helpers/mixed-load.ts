/**
 * The steady load of the several-machine tests (test/multinode/mixed-load.js) run inside a cluster's client
 * namespace: valid and invalid calls from one 2025 session and as 2026-07-28 requests, counted until stopped.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

const SCRIPT = path.resolve(__dirname, '..', 'multinode', 'mixed-load.js');

/** What mixed-load.js prints when it stops. */
export interface LoadCounts {
  calls: number;
  failed: number;
  session_404: number;
  by_outcome: Record<string, number>;
  by_node: Record<string, number>;
  /** When each failed call was sent (ISO time) and how it failed, the first 20. */
  failures: string[];
}

/** A running load. */
export interface MixedLoad {
  readonly child: ChildProcess;
  /** The 2025 session it uses: the one it was given, or the one it opened. */
  readonly session: Promise<string>;
  /** Ends the load and returns its counts. */
  stop(): Promise<LoadCounts>;
}

/**
 * Starts mixed-load.js in network namespace `ns` against `url`, with `pauseMs` between a loop's calls and `loops`
 * loops; `session` (a 2025 session id) is kept when given. `env` adds to this process's environment
 * (e.g. `MIXED_TOOL`).
 */
export function startMixedLoad(
  ns: string,
  load: { url: string; token: string; pauseMs: number; loops: number; session: string },
  env: Record<string, string> = {},
): MixedLoad {
  const args = [SCRIPT, load.url, load.token, String(load.pauseMs), String(load.loops), load.session];
  const child = spawn('nsenter', [`--net=/var/run/netns/${ns}`, process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let resolveSession!: (s: string) => void;
  const session = new Promise<string>((resolve) => (resolveSession = resolve));
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    const first = /^\{"started":true,"session":"([^"]+)"\}$/m.exec(out);
    if (first !== null) resolveSession(first[1]);
  });
  return {
    child,
    session,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      const last = out.trim().split('\n').pop() ?? '{}';
      const counts = JSON.parse(last) as LoadCounts;
      assert.ok(typeof counts.calls === 'number', `the load printed ${out.slice(-500)}`);
      return counts;
    },
  };
}
