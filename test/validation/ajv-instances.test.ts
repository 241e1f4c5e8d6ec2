import * as assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AnySchemaObject } from 'ajv';
import { type AjvRole, checkSchema, SchemaCompiler } from '../../src/validation/ajv-instances';
import { compileToolSchema } from '../../src/validation';

// A garbage collection on demand, to see whether anything still holds a compiled function.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const FAST: AjvRole = { allErrors: false, messages: false, validateSchema: false, optimize: false };

const limited = (n: number): AnySchemaObject => ({
  type: 'object',
  properties: { n: { type: 'integer', maximum: n } },
});

/** Compiles schema `first` and then `more` others; returns a weak reference to the first function only. */
function compileAndForget(compiler: SchemaCompiler, more: number): WeakRef<object> {
  const first = new WeakRef(compiler.compile(limited(0)));
  for (let i = 1; i <= more; i++) compiler.compile(limited(i));
  return first;
}

/**
 * Whether `ref`'s target is collected within a few collections. A WeakRef keeps its target until the job that
 * created or read it has ended, and one collection need not clear it (Node 22's did not, in the whole suite), so
 * each round ends the job first; a target still held stays through all of them.
 */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 10; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

describe('SchemaCompiler', () => {
  it('lets a function no validator uses any more be collected once it moved to a fresh ajv instance', async () => {
    const compiler = new SchemaCompiler(FAST, 3);
    const ref = compileAndForget(compiler, 3);
    assert.equal(await collected(ref), true);
    assert.equal(
      compiler.compile(limited(9))({ n: 9 }),
      true,
      'the compiler (and so its current instance) is still in use here',
    );
  });

  it('moves on after exactly compilesPerInstance compiles: the first function is held through the 3rd, released by the 4th', async () => {
    const compiler = new SchemaCompiler(FAST, 3);
    const ref = compileAndForget(compiler, 2);
    // Still the instance that compiled it (ajv keeps what it compiled): not released early.
    assert.equal(await collected(ref), false, 'released before compilesPerInstance compiles');
    compiler.compile(limited(3));
    assert.equal(await collected(ref), true, 'the first instance is still held after compilesPerInstance compiles');
    assert.equal(
      compiler.compile(limited(9))({ n: 9 }),
      true,
      'the compiler (and so its current instance) is still in use here',
    );
  });

  it('keeps functions compiled by an earlier instance working', () => {
    const compiler = new SchemaCompiler(FAST, 2);
    const fns = [0, 1, 2, 3, 4].map((i) => compiler.compile(limited(i)));
    fns.forEach((fn, i) => {
      assert.equal(fn({ n: i }), true);
      assert.equal(fn({ n: i + 1 }), false);
    });
  });

  it('fails a compile for a pattern that is not a regular expression', () => {
    assert.throws(
      () =>
        new SchemaCompiler(FAST, 10).compile({ type: 'object', properties: { a: { type: 'string', pattern: '([' } } }),
      { message: 'Invalid regular expression: /([/u: Unterminated character class' },
    );
  });

  it('fails a compile for an unknown format with the format and where it is', () => {
    assert.throws(
      () =>
        new SchemaCompiler(FAST, 10).compile({
          type: 'object',
          properties: { a: { type: 'string', format: 'phone' } },
        }),
      { message: 'unknown format "phone" in schema at path "#/properties/a"' },
    );
  });
});

describe('checkSchema', () => {
  it('throws ajv\'s "schema is invalid" message for a schema the meta-schema rejects', () => {
    assert.throws(() => checkSchema({ type: 'object', properties: { a: { maxLength: -1 } } }), {
      message: 'schema is invalid: data/properties/a/maxLength must be >= 0',
    });
  });

  it('accepts a valid 2020-12 schema', () => {
    assert.doesNotThrow(() => checkSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }));
  });
});

describe('compileToolSchema across fresh ajv instances', () => {
  it('validators compiled before the compiler moved on still accept and refuse as before', () => {
    const first = compileToolSchema({
      type: 'object',
      properties: { id: { type: 'string', pattern: '^C-[0-9]{4}$' } },
      required: ['id'],
    });
    assert.ok(first.ok);
    // More distinct schemas than one ajv instance compiles.
    for (let i = 0; i < 250; i++)
      assert.equal(
        compileToolSchema({ type: 'object', properties: { [`p${i}`]: { type: 'integer', maximum: i } } }).ok,
        true,
      );
    assert.deepEqual(first.validator.validate({ id: 'C-0042' }), { valid: true });
    const refused = first.validator.validate({ id: 'nope' });
    assert.equal(refused.valid, false);
    assert.equal(
      refused.valid ? '' : refused.message,
      'Invalid value for `id`: expected to match pattern ^C-[0-9]{4}$',
    );
  });
});
