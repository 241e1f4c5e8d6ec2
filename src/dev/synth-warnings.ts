/**
 * Reads the warnings the constructs add (`Annotations.of(this).addWarning(…)`) from a cdktf output directory:
 * cdktf's `App` writes them to `manifest.json` as `stacks.<stack>.annotations`, which `cdktf synth` prints.
 *
 * @example
 * for (const message of readSynthWarnings(outdir, options.stacks)) log(`Warning: ${message}`);
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isObject } from '../validation/json-object';

/** The manifest cdktf's `App` writes next to `stacks/`. */
const MANIFEST_FILE = 'manifest.json';

/** The annotation level of `Annotations.addWarning` (cdktf's `AnnotationMetadataEntryType.WARN`). */
const WARNING_LEVEL = '@cdktf/warn';

/**
 * The warning messages of the stacks in a cdktf output (of `stacks` only, when given), in stack-name order, each
 * stack's in the order the app added them.
 *
 * @returns none when the manifest is missing or unreadable: the warnings are advice, the stacks are what serves
 */
export function readSynthWarnings(outdir: string, stacks: readonly string[] = []): string[] {
  let manifest: unknown;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(outdir, MANIFEST_FILE), 'utf8'));
  } catch {
    return [];
  }
  if (!isObject(manifest) || !isObject(manifest.stacks)) return [];
  const all = manifest.stacks;
  const chosen = Object.keys(all)
    .sort()
    .filter((stack) => stacks.length === 0 || stacks.includes(stack));
  return chosen.flatMap((stack) => {
    const entry = all[stack];
    const annotations = isObject(entry) && Array.isArray(entry.annotations) ? (entry.annotations as unknown[]) : [];
    return annotations
      .filter(isObject)
      .filter((a) => a.level === WARNING_LEVEL && typeof a.message === 'string')
      .map((a) => a.message as string);
  });
}
