#!/usr/bin/env node
// @ts-check
/**
 * Copies the non-TypeScript files of the runtime — every `assets/` folder under src/ (the dashboard page: HTML,
 * CSS, its script) — into dist/src, where the compiled modules look for them (run by `npm run build`, after tsc).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** Copies every `assets` folder below `from` to the same place below `to`; returns the files copied. */
function copyAssets(from, to) {
  let copied = 0;
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.name === 'assets') {
      fs.rmSync(dst, { recursive: true, force: true });
      fs.cpSync(src, dst, { recursive: true });
      copied += fs.readdirSync(src, { recursive: true }).length;
    } else {
      copied += copyAssets(src, dst);
    }
  }
  return copied;
}

const count = copyAssets(path.join(root, 'src'), path.join(root, 'dist', 'src'));
process.stdout.write(`copy-assets: ${count} file(s) into dist/src\n`);
