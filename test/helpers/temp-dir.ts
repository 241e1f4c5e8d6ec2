/**
 * Temporary directories for tests, removed when the whole run ends: a root hook, so that a directory handed to a
 * process or kept across a suite's cases outlives every test that uses it, and none is left behind on the machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new directory `<os temp dir>/<prefix>XXXXXX`, removed after the run. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Mocha's root hooks: `.mocharc.json` requires this file. */
export const mochaHooks = {
  afterAll(): void {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  },
};
