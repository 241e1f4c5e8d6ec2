/**
 * Where the runtime relies on a dependency's private parts (a file path outside its entry point, an object its
 * typed API does not describe), the dependency is pinned to one version in package.json, and a test here checks
 * exactly what is relied on, so an upgrade that changes it fails here, naming the reach-in, instead of somewhere
 * far from it. A new private path in src/ without a guard fails the first test.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Histogram, Registry } from 'prom-client';
import { patternAlphabet } from '../../src/response/redact-pattern';
import { TallyHistogram } from '../../src/gateway/metrics/tally-histogram';
import { ucs2length } from '../../src/validation/subset-compiler';

const ROOT = path.join(__dirname, '..', '..');
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** Private paths src/ may import, each with the dependency it pins (guarded below). */
const GUARDED_PATHS: Record<string, string> = {
  'undici/lib/dispatcher/agent': 'undici',
  'undici/lib/dispatcher/client': 'undici',
  'ajv-formats/dist/formats': 'ajv-formats',
};
/** Subpaths that are the dependency's documented API, not reach-ins. */
const PUBLIC_SUBPATHS = new Set(['ajv/dist/2020', 'ajv/dist/standalone']);
/** Dependencies whose private objects (not paths) the runtime reads, guarded below. */
const PRIVATE_OBJECTS = ['re2js', 'prom-client'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(file);
    return e.name.endsWith('.ts') ? [file] : [];
  });
}

function installedVersion(name: string): string {
  const file = path.join(ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

describe('reach-ins into dependencies: pinned and guarded', () => {
  it('src/ and constructs/ import no private path of a dependency but the guarded ones', () => {
    const deps = Object.keys(MANIFEST.dependencies);
    const found = new Set<string>();
    for (const file of [...sourceFiles(path.join(ROOT, 'src')), ...sourceFiles(path.join(ROOT, 'constructs'))]) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:require\(|from |import\()\s*'([^'.][^']*)'/g)) {
        const spec = m[1].replace(/\/$/, ''); // 'pkg/' is the package itself (not a built-in of that name)
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (spec !== pkg && deps.includes(pkg) && !PUBLIC_SUBPATHS.has(spec)) found.add(spec);
      }
    }
    assert.deepEqual([...found].sort(), Object.keys(GUARDED_PATHS).sort());
  });

  for (const name of [...new Set([...Object.values(GUARDED_PATHS), ...PRIVATE_OBJECTS])]) {
    it(`pins ${name} to the one version installed, since the runtime relies on its private parts`, () => {
      assert.match(MANIFEST.dependencies[name], /^\d+\.\d+\.\d+$/, `package.json: ${name} must be an exact version`);
      assert.equal(MANIFEST.dependencies[name], installedVersion(name));
    });
  }

  it("undici/lib/dispatcher/agent and …/client are undici's own Agent and Client (the service client's pools)", () => {
    const undici = require('undici') as { Agent: unknown; Client: unknown };
    assert.equal(require('undici/lib/dispatcher/agent'), undici.Agent);
    assert.equal(require('undici/lib/dispatcher/client'), undici.Client);
  });

  it("ajv-formats/dist/formats holds the full-mode formats that ajv-formats' plugin registers", () => {
    const { fullFormats } = require('ajv-formats/dist/formats') as { fullFormats: Record<string, unknown> };
    const plugin = require('ajv-formats') as { default: { get: (name: string, mode: string) => unknown } };
    for (const name of ['date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'ipv4', 'ipv6', 'uri', 'regex']) {
      assert.equal(fullFormats[name], plugin.default.get(name, 'full'), name);
    }
  });

  it("re2js: a compiled pattern's program is readable (the redact analysis reads RE2JS#re2().prog)", () => {
    // undefined here means the program's shape changed: the analysis then assumes nothing, and redaction slows down
    assert.deepEqual(patternAlphabet('\\b[0-9]{13,16}\\b'), { ranges: [[0x30, 0x39]], minLength: 13 });
  });

  it('prom-client: its registry exposes a TallyHistogram (it reads name, help, type, aggregator and get())', async () => {
    const registry = new Registry();
    const ours = new TallyHistogram<'tool'>('h', 'help', [1], registry);
    ours.observe(ours.series({ tool: 't' }), 0.5);
    const theirs = new Registry();
    new Histogram({ name: 'h', help: 'help', labelNames: ['tool'], buckets: [1], registers: [theirs] }).observe(
      { tool: 't' },
      0.5,
    );
    assert.equal(await registry.metrics(), await theirs.metrics());
  });

  it("ucs2length counts code points as ajv's runtime does (the subset compiler must agree with ajv)", () => {
    const ajvs = (require('ajv/dist/runtime/ucs2length') as { default: (s: string) => number }).default;
    for (const s of [
      '',
      'ab',
      '😀',
      'a😀b',
      '\ud83d',
      '\ude00',
      '\ud83d\ud83d\ude00',
      'x\ude00\ud83d',
      '\ud83d'.repeat(3),
    ]) {
      assert.equal(ucs2length(s), ajvs(s), JSON.stringify(s));
    }
  });
});
