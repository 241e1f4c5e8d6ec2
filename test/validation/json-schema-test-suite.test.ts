/**
 * Runs the official JSON Schema Test Suite (draft 2020-12) through compileToolSchema for the keywords a gateway
 * maps to the documented messages. The suite lives beside the repo (`<repo>/../shared/json-schema-test-suite`, as CI
 * clones it, or where `JSON_SCHEMA_TEST_SUITE` points). The gateway validates only objects, so each case runs wrapped as the required property `v` of an
 * object (its data as `{"v": data}`); cases whose data is an object also run unwrapped.
 *
 * Outside CI a plain clone has no `../shared`: the suite's tests are then pending with a title saying how to get it;
 * under `CI=true` it is required and its absence fails.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileToolSchema, CONSTRAINT_ORDER, ValidationResult } from '../../src/validation';

// Beside the repo, as CI clones it, or where JSON_SCHEMA_TEST_SUITE says (a checkout in a git worktree).
const SUITE = process.env.JSON_SCHEMA_TEST_SUITE ?? path.resolve(__dirname, '../../../shared/json-schema-test-suite');
const DIR = path.join(SUITE, 'tests', 'draft2020-12');

// every constraint of the generator's table (formats have their own files below), and the keywords a raw schema adds
const KEYWORD_FILES = [
  ...new Set([
    'type',
    'required',
    ...CONSTRAINT_ORDER.filter((keyword) => keyword !== 'format'),
    'const',
    'patternProperties',
  ]),
];
const FORMAT_FILES = [
  'date-time',
  'date',
  'time',
  'email',
  'uri',
  'uri-reference',
  'uuid',
  'hostname',
  'ipv4',
  'ipv6',
].map((f) => `optional/format/${f}`);
/** Optional files that say how patterns (run on the linear-time engine) and large numbers are read. */
const OPTIONAL_FILES = [
  'optional/ecmascript-regex',
  'optional/non-bmp-regex',
  'optional/bignum',
  'optional/float-overflow',
];

const P = '`[^`]*`'; // a path: escaped, so never holding a backtick
const TARGET = `(Invalid (value|type) for ${P}:|Invalid arguments:)`;
/** Every documented message form (docs/input-and-validation.md), plus the documented extras for const and false schemas. */
const MESSAGE_FORMS: RegExp[] = [
  new RegExp(`^Missing required parameter: ${P}$`),
  new RegExp(`^Unknown parameter: ${P}$`),
  new RegExp(
    `^${TARGET} expected (string|integer|number|boolean|array|object|null)( or (string|integer|number|boolean|array|object|null))*$`,
  ),
  new RegExp(`^${TARGET} expected one of .+$`),
  new RegExp(`^${TARGET} expected (>=|<=|>|<) -?[0-9.]+(e[+-]?[0-9]+)?$`),
  new RegExp(`^${TARGET} expected at (least|most) (1 character|\\d+ characters)$`),
  new RegExp(`^${TARGET} expected to match pattern .+$`),
  new RegExp(`^${TARGET} expected (at (least|most) (1 item|\\d+ items)|unique items)$`),
  new RegExp(`^${TARGET} expected format [a-z0-9-]+$`),
  new RegExp(`^${TARGET} expected exactly .+$`),
  new RegExp(`^${TARGET} expected no value$`),
  new RegExp(`^${TARGET} expected an integer between -9007199254740991 and 9007199254740991$`),
];

/** [file, group, reason]: groups that cannot apply to a gateway, each with the reason in its skipped titles. */
const INAPPLICABLE: [string, string, string][] = [
  [
    'properties',
    'properties whose names are Javascript object property names',
    'ajv ignores a property named "__proto__", so compileToolSchema refuses such schemas (see its tests)',
  ],
  [
    'optional/bignum',
    'integer',
    'The gateway refuses an integer beyond ±(2^53−1): it cannot be forwarded exactly (see validate.test.ts)',
  ],
  [
    'optional/float-overflow',
    'all integers are multiples of 0.5, if overflow is handled',
    'The gateway refuses an integer beyond ±(2^53−1) such as 1e308: it cannot be forwarded exactly',
  ],
];

interface SuiteCase {
  description: string;
  data: unknown;
  valid: boolean;
}
interface SuiteGroup {
  description: string;
  schema: unknown;
  tests: SuiteCase[];
}

function wrap(schema: unknown): Record<string, unknown> {
  const wrapper: Record<string, unknown> = {
    type: 'object',
    properties: {},
    required: ['v'],
    additionalProperties: false,
  };
  let inner = schema;
  if (typeof schema === 'object' && schema !== null) {
    const { $schema: _dialect, $defs, ...rest } = schema as Record<string, unknown>;
    // `#/$defs/…` references must keep resolving from the new root.
    if ($defs !== undefined) wrapper.$defs = $defs;
    inner = rest;
  }
  wrapper.properties = { v: inner };
  return wrapper;
}

function checkCase(schema: Record<string, unknown>, data: unknown, expectedValid: boolean): void {
  const compiled = compileToolSchema(schema);
  assert.equal(compiled.ok, true, compiled.ok ? '' : compiled.error);
  if (!compiled.ok) return;
  const result: ValidationResult = compiled.validator.validate(data);
  assert.equal(result.valid, expectedValid, result.valid ? 'accepted' : `refused: ${result.message}`);
  if (result.valid) return;
  assert.ok(result.violations.length >= 1);
  for (const violation of result.violations) {
    assert.ok(
      MESSAGE_FORMS.some((form) => form.test(violation.message)),
      `message out of the documented form: ${violation.message}`,
    );
    assert.equal(typeof violation.path, 'string');
    assert.match(violation.rule, /^[A-Za-z]+$/);
  }
  assert.equal(result.message.includes('undefined'), false);
}

/** Under CI the suite is required; elsewhere (a plain clone) its absence makes the tests pending, saying why. */
function ciRequiresSuite(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

const HOW_TO_GET =
  'clone json-schema-org/JSON-Schema-Test-Suite so that tests/draft2020-12 is at <repo>/../shared/json-schema-test-suite';

describe('JSON Schema Test Suite (draft 2020-12)', () => {
  if (!existsSync(DIR)) {
    if (ciRequiresSuite()) {
      it('finds the suite beside the repo (required under CI)', () => {
        assert.fail(`JSON Schema Test Suite not found at ${DIR}; ${HOW_TO_GET}`);
      });
    } else {
      it(`NOT RUN: the JSON Schema Test Suite is missing at ${DIR} and CI is not set (${HOW_TO_GET})`);
    }
    return;
  }
  for (const file of [...KEYWORD_FILES, ...FORMAT_FILES, ...OPTIONAL_FILES]) {
    describe(file, () => {
      const groups = JSON.parse(readFileSync(path.join(DIR, `${file}.json`), 'utf8')) as SuiteGroup[];
      for (const group of groups) {
        const inapplicable = INAPPLICABLE.find(
          ([file_, groupName]) => file_ === file && groupName === group.description,
        );
        if (inapplicable !== undefined) {
          for (const test of group.tests)
            it.skip(`${group.description}: ${test.description} — skipped: ${inapplicable[2]}`, () => undefined);
          continue;
        }
        const compiled = compileToolSchema(wrap(group.schema));
        if (!compiled.ok && group.tests.every((t) => !t.valid)) {
          // ajv refuses some schemas the suite only ever uses to reject data: the tool then fails closed
          // (every call refused as `Tool unavailable`), which agrees with the suite.
          it(`${group.description}: all ${group.tests.length} cases refused, the schema failing closed`, () => {
            assert.match(compiled.error, /^input schema: \S/);
          });
          continue;
        }
        for (const test of group.tests) {
          const title = `${group.description}: ${test.description}`;
          it(`${title} (wrapped as v)`, () => checkCase(wrap(group.schema), { v: test.data }, test.valid));
          const rootIsObject = typeof test.data === 'object' && test.data !== null && !Array.isArray(test.data);
          const schemaAdmitsObjects =
            typeof group.schema !== 'object' ||
            group.schema === null ||
            !('type' in group.schema) ||
            (group.schema as { type: unknown }).type === 'object';
          if (rootIsObject && schemaAdmitsObjects && typeof group.schema === 'object') {
            it(`${title} (as the arguments)`, () =>
              checkCase(group.schema as Record<string, unknown>, test.data, test.valid));
          }
        }
      }
    });
  }
  it('refuses every non-object root datum with "Invalid arguments: expected an object"', () => {
    const compiled = compileToolSchema({ type: 'object' });
    assert.ok(compiled.ok);
    let checked = 0;
    for (const file of KEYWORD_FILES) {
      for (const group of JSON.parse(readFileSync(path.join(DIR, `${file}.json`), 'utf8')) as SuiteGroup[]) {
        for (const test of group.tests) {
          if (typeof test.data === 'object' && test.data !== null && !Array.isArray(test.data)) continue;
          const result = compiled.validator.validate(test.data);
          assert.equal(!result.valid && result.message, 'Invalid arguments: expected an object');
          checked++;
        }
      }
    }
    assert.ok(checked > 100);
  });
});
