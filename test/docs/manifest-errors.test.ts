/**
 * The refusals docs/constructs.md quotes for a bad manifest, made from the page's own example manifest: each
 * mistake the page's list stands for is written into that YAML, and the `Manifest` must refuse it with the line
 * the page quotes, word for word, at the line and column the page gives. So a new service key (which lengthens
 * the `unknown key` list) or a moved check shows up here, not in a newcomer's terminal. The YAML syntax mistakes
 * the page quotes after it are made in small manifests of their own, at the lines and columns the page gives.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Manifest, ManifestError } from '../../constructs';
import { hashOf, newStack, thrown } from '../constructs/synth';

const PAGE = fs.readFileSync(path.resolve(__dirname, '../../docs/constructs.md'), 'utf8');
const SECTION = PAGE.slice(PAGE.indexOf('## `Manifest`: the same in YAML'));

/** The section's first YAML block (its example manifest), with a real token hash for the `<hex>` placeholder. */
const EXAMPLE = /^```yaml\n([^]*?)^```$/m.exec(SECTION)![1].replace('"<hex>"', `"${hashOf('docs-token')}"`);

/** The quoted refusals after "Every mistake is reported", one a line. */
const QUOTED = /Every mistake is reported[^]*?^```\n([^]*?)^```$/m.exec(SECTION)![1].trim().split('\n');

/** The mistake each quoted line stands for, in the page's order, as an edit of the example. */
const MISTAKES: [string, (yaml: string) => string][] = [
  ['a boolean written as yes', (y) => y.replace('validate_input: true', 'validate_input: yes')],
  ['a misspelt key', (y) => y.replace('timeout_ms:', 'timeout:')],
  ['an unknown service', (y) => y.replace('[get_customer]', '[get_customer, get_ticket]')],
  [
    'a service declared twice',
    (y) =>
      y.replace('gateways:\n', '  get_customer:\n    endpoint: { url: "http://crm:8080/c", method: GET }\ngateways:\n'),
  ],
  [
    'a tool name with a space',
    (y) => y.replace('  get_customer:  ', '  get customer:  ').replace('[get_customer]', '["get customer"]'),
  ],
];

/** The quoted YAML syntax mistakes after "A YAML syntax mistake is reported once", one a line. */
const SYNTAX_QUOTED = /A YAML syntax mistake is reported once[^]*?^```\n([^]*?)^```$/m
  .exec(SECTION)![1]
  .trim()
  .split('\n');

/** The manifests the quoted syntax mistakes are made in: a key less deep than its siblings, one deeper. */
const SYNTAX_MISTAKES: [string, string][] = [
  [
    'a key between two maps',
    'services:\n  get_customer:\n    description: Look up a customer\n   endpoint: { url: "http://crm:8080/c", method: GET }\n',
  ],
  [
    'a key under a key that has a value',
    'gateways:\n  support:\n    services: [get_customer]\n    port: 8080\n      auth: none\n',
  ],
];

describe('docs/constructs.md: the refusals of a bad manifest', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-docs-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function refusal(yaml: string): string {
    const file = path.join(dir, 'support-desk.yaml');
    fs.writeFileSync(file, yaml);
    const err = thrown(() => new Manifest(newStack(), 'm', { path: file }));
    assert.ok(err instanceof ManifestError, `expected a ManifestError, got ${err.message}`);
    return err.message.split(`${dir}${path.sep}`).join('');
  }

  it('the example manifest itself is accepted', () => {
    const file = path.join(dir, 'ok.yaml');
    fs.writeFileSync(file, EXAMPLE);
    assert.deepEqual([...new Manifest(newStack(), 'm', { path: file }).services.keys()], ['get_customer']);
  });

  it('quotes one line per mistake', () => assert.equal(QUOTED.length, MISTAKES.length));

  SYNTAX_MISTAKES.forEach(([mistake, yaml], i) => {
    it(`quotes ${mistake} as the Manifest says it`, () => assert.equal(refusal(yaml), SYNTAX_QUOTED[i]));
  });

  it('quotes one line per YAML syntax mistake', () => assert.equal(SYNTAX_QUOTED.length, SYNTAX_MISTAKES.length));

  MISTAKES.forEach(([mistake, edit], i) => {
    it(`quotes ${mistake} as the Manifest says it`, () => {
      const edited = edit(EXAMPLE);
      assert.notEqual(edited, EXAMPLE, 'the edit changed nothing: the page example moved');
      assert.equal(refusal(edited), QUOTED[i]);
    });
  });
});
