/**
 * A stand-in for a CLI the deploy runs (`docker`, `kubectl`): a script on a PATH of its own that logs each call's
 * arguments to `calls.jsonl` in `dir`, so a test sees exactly what reached the tool.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** Installs `script` as `name` in `dir/bin`; returns a PATH that finds it first. */
export function installStandIn(dir: string, name: string, script: string): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, name), script);
  chmodSync(path.join(bin, name), 0o755);
  return `${bin}${path.delimiter}${process.env.PATH}`;
}

/** The arguments of every call the stand-in logged to `dir/calls.jsonl`, in order; none when it was not called. */
export function standInCalls(dir: string): string[][] {
  let text: string;
  try {
    text = readFileSync(path.join(dir, 'calls.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string[]);
}
