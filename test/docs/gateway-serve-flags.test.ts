/**
 * docs/gateway.md's `serve` flags table lists every flag `serve --help` prints, so a reader of the page finds
 * `--check` and `--workers` as the help shows them.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SERVE_USAGE } from '../../src/cli/serve-command';

const PAGE = readFileSync(path.resolve(__dirname, '../../docs/gateway.md'), 'utf8');

/** What the first cell of each row of the table under `## \`serve\` flags` quotes (`-h`, `--help`, …). */
function documentedFlags(): string[] {
  const section = PAGE.slice(PAGE.indexOf('## `serve` flags'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('|')));
  return [...table.matchAll(/^\| ([^|]+)\|/gm)].flatMap((m) => [...m[1].matchAll(/`([^`]+)`/g)].map((c) => c[1]));
}

describe('docs/gateway.md: the serve flags table', () => {
  it('has a row for every flag of serve --help', () => {
    const help = [...SERVE_USAGE.matchAll(/^ {2}(-[-\w]+(?:, --[-\w]+)?)/gm)].map((m) => m[1].split(', ').pop()!);
    assert.ok(help.includes('--check'), `no flags read from the help: ${SERVE_USAGE}`);
    const rows = documentedFlags().join(' ');
    const missing = help.filter((flag) => !new RegExp(`(^|[ ,])${flag}( |$|,)`).test(rows));
    assert.deepEqual(missing, [], `flags of serve --help missing from docs/gateway.md: ${missing.join(', ')}`);
  });
});
