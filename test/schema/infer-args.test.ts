import * as assert from 'node:assert/strict';
import { generateInputSchema, InferArgs, InputSpec } from '../../src/schema';
import { compileToolSchema } from '../../src/validation';

// Compile-time assertions, checked by `npm run typecheck`: Equal is true only for identical types.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

const ticket = {
  subject: { type: 'string', required: true },
  priority: { type: 'integer', enum: [1, 2, 3] },
  status: { type: 'string', enum: ['open', 'closed'], required: true },
  urgent: { type: 'boolean' },
  ratio: { type: 'number' },
  tags: { type: 'array', items: { type: 'string' } },
  anything: { type: 'array' },
  settings: { type: 'object' },
  customer: {
    type: 'object',
    required: true,
    properties: {
      name: { type: 'string', required: true },
      addresses: {
        type: 'array',
        items: { type: 'object', properties: { zip_code: { type: 'integer', required: true } } },
      },
    },
  },
  meta: { type: 'object', additionalProperties: true, properties: { id: { type: 'string', required: true } } },
} as const satisfies InputSpec;

type Args = InferArgs<typeof ticket>;

expectType<Equal<Args['subject'], string>>();
expectType<Equal<Args['priority'], 1 | 2 | 3 | undefined>>();
expectType<Equal<Args['status'], 'open' | 'closed'>>();
expectType<Equal<Args['urgent'], boolean | undefined>>();
expectType<Equal<Args['ratio'], number | undefined>>();
expectType<Equal<Args['tags'], string[] | undefined>>();
expectType<Equal<Args['anything'], unknown[] | undefined>>();
expectType<Equal<Args['settings'], Record<string, unknown> | undefined>>();
expectType<Equal<Args['customer'], { name: string; addresses?: { zip_code: number }[] }>>();
expectType<Equal<NonNullable<Args['meta']>['id'], string>>();
expectType<Equal<InferArgs<Record<string, never>>, Record<string, never>>>();

/** The runtime verdict on `args`: the validator of the schema generated from the same spec the type comes from. */
function validate(args: unknown): string {
  const compiled = compileToolSchema(generateInputSchema(ticket));
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error);
  const result = compiled.validator.validate(args);
  return result.valid ? 'valid' : result.message;
}

describe('InferArgs', () => {
  it('types as valid exactly what the generated schema accepts, and as errors what it refuses', () => {
    // The type checks run in `npm run typecheck` (a @ts-expect-error with no error fails it); the verdicts run here.
    const args: Args = { subject: 's', status: 'open', customer: { name: 'n', addresses: [{ zip_code: 1 }] } };
    const full: Args = {
      ...args,
      priority: 2,
      urgent: true,
      ratio: 0.5,
      tags: ['a'],
      anything: [1, 'x'],
      settings: { k: 1 },
      meta: { id: 'm', extra: 'allowed by additionalProperties' },
    };
    // @ts-expect-error a required field is missing
    const missing: Args = { status: 'open', customer: { name: 'n' } };
    // @ts-expect-error a value outside the enum
    const wrongEnum: Args = { subject: 's', status: 'pending', customer: { name: 'n' } };
    // @ts-expect-error a nested required field is missing
    const nestedMissing: Args = { subject: 's', status: 'open', customer: { name: 'n', addresses: [{}] } };
    // @ts-expect-error a wrong type
    const wrongType: Args = { subject: 's', status: 'open', customer: { name: 'n' }, urgent: 'yes' };
    assert.equal(validate(args), 'valid');
    assert.equal(validate(full), 'valid');
    assert.equal(validate(missing), 'Missing required parameter: `subject`');
    assert.equal(validate(wrongEnum), 'Invalid value for `status`: expected one of "open", "closed"');
    assert.equal(validate(nestedMissing), 'Missing required parameter: `customer.addresses[0].zip_code`');
    assert.equal(validate(wrongType), 'Invalid type for `urgent`: expected boolean');
  });
});
