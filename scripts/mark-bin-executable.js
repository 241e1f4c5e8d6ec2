#!/usr/bin/env node
// @ts-check
/**
 * Makes every `bin` entry of package.json executable in dist (run by `npm run build`, after tsc): tsc writes files
 * without the execute bit, and `npx cdktf-mcp-gateway` in a clone runs the file itself (an install from a tarball
 * sets the bit, a clone does not).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { bin } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
for (const file of Object.values(bin)) {
  const target = path.join(root, file);
  fs.chmodSync(target, fs.statSync(target).mode | 0o111);
}
