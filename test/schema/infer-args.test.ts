import * as assert from 'node:assert/strict';
import { InferArgs, InputSpec } from '../../src/schema';

// Compile-time assertions, checked by `npm run typecheck`: Equal is true only for identical types.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
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
  customer: { type: 'object', required: true, properties: {
    name: { type: 'string', required: true },
    addresses: { type: 'array', items: { type: 'object', properties: { zip_code: { type: 'integer', required: true } } } },
  } },
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
expectType<Equal<InferArgs<{}>, {}>>();

describe('InferArgs', () => {
  it('types valid arguments (checked at compile time by npm run typecheck)', () => {
    const args: Args = { subject: 's', status: 'open', customer: { name: 'n', addresses: [{ zip_code: 1 }] } };
    // @ts-expect-error a required field is missing
    const missing: Args = { status: 'open', customer: { name: 'n' } };
    // @ts-expect-error a value outside the enum
    const wrongEnum: Args = { subject: 's', status: 'pending', customer: { name: 'n' } };
    assert.equal(args.customer.name, 'n');
    assert.ok(missing && wrongEnum);
  });
});
