#!/usr/bin/env node
// @ts-check
/**
 * Writes ajv's standalone code for the gateway config schema (src/config/config-schema.ts) into
 * dist/src/config/config-validator.generated.js, where the compiled config loader requires it (run by
 * `npm run build`, after tsc and before the image context is assembled): a start-up then loads that code instead of
 * compiling the schema with ajv. See src/config/config-validator.ts.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dir = path.join(root, 'dist', 'src', 'config');
const module_ = path.join(dir, 'config-validator.js');
if (!fs.existsSync(module_)) {
  process.stderr.write(
    `build-config-validator: ${path.relative(root, module_)} is missing: run tsc -p tsconfig.json first\n`,
  );
  process.exit(1);
}
const { configValidatorSource, GENERATED_CONFIG_VALIDATOR } = require(module_);
const target = path.join(dir, GENERATED_CONFIG_VALIDATOR);
const source = configValidatorSource();
fs.writeFileSync(target, source);
process.stdout.write(`build-config-validator: ${path.relative(root, target)} (${source.length} bytes)\n`);
