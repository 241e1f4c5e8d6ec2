/**
 * The compiled check of the gateway config document against {@link GATEWAY_CONFIG_SCHEMA}. Compiling that schema
 * with ajv is a large share of start-up (loading ajv's compiler, then generating the code), the same on every
 * start: so the build writes ajv's standalone code for it next to this module (`config-validator.generated.js`,
 * by scripts/build-config-validator.js) and a start-up only loads that file, whose code needs only two small
 * modules of ajv's runtime. The schema stays in `config-schema.ts`; a test holds the generated code equal to what
 * {@link configValidatorSource} writes from it, and the two validators' verdicts equal.
 */
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import type StandaloneCode from 'ajv/dist/standalone';
import { GATEWAY_CONFIG_SCHEMA } from './config-schema';

/** The generated module's file name, next to this module's compiled form in dist/src/config. */
export const GENERATED_CONFIG_VALIDATOR = 'config-validator.generated.js';

/**
 * The ajv instance the config schema is compiled with (at build time, and at run time from the TypeScript sources).
 * `verbose` puts each failing node's schema in the error, so that its `x-message` can be reported.
 * @param source keep the generated code, for ajv's standalone output
 */
function configAjv(source: boolean): Ajv {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only where the schema is compiled
  const { default: AjvClass } = require('ajv') as { default: typeof Ajv };
  // The config schema is this package's own and fixed, so it is checked against the JSON Schema meta-schema by a
  // unit test, not here.
  const ajv = new AjvClass({ allErrors: false, verbose: true, strict: true, validateSchema: false, code: { source } });
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  return ajv;
}

/** The config schema compiled by ajv now (what the generated module holds, without it). */
export function compileConfigValidator(): ValidateFunction {
  return configAjv(false).compile(GATEWAY_CONFIG_SCHEMA);
}

/** The standalone CommonJS module the build writes as {@link GENERATED_CONFIG_VALIDATOR}. */
export function configValidatorSource(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- build time only
  const { default: standaloneCode } = require('ajv/dist/standalone') as { default: typeof StandaloneCode };
  const ajv = configAjv(true);
  return standaloneCode(ajv, ajv.compile(GATEWAY_CONFIG_SCHEMA));
}

let loaded: ValidateFunction | undefined;

/**
 * The config document's validator: the build's generated module in the compiled package; compiled at first use
 * when running from the TypeScript sources (tests, `ts-node`), where the build has not written that module.
 * @throws Error when the compiled package lacks the generated module (a broken build), saying to rebuild
 */
export function configValidator(): ValidateFunction {
  if (loaded !== undefined) return loaded;
  if (__filename.endsWith('.ts')) {
    loaded = compileConfigValidator();
    return loaded;
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- written by the build, see above
    loaded = require('./config-validator.generated.js') as ValidateFunction;
  } catch (err) {
    throw new Error(
      `cannot load ${GENERATED_CONFIG_VALIDATOR} next to ${__filename} (${(err as Error).message.split('\n')[0]}): rebuild the package (npm run build)`,
    );
  }
  return loaded;
}
