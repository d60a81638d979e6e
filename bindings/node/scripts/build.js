#!/usr/bin/env node
'use strict';
// Builds the native addon from source with cargo and copies it to bindings/node/webnn.node.
// Usage: node scripts/build.js [--debug]   (CARGO_TARGET_DIR and the usual cargo variables apply)
// No download happens here beyond what cargo itself fetches from crates.io.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const packageDir = path.join(__dirname, '..');
const debug = process.argv.includes('--debug');
const cargo = process.env.CARGO || 'cargo';

const args = ['build', '-p', 'webnn-node', '--manifest-path', path.join(packageDir, 'Cargo.toml')];
if (!debug) args.push('--release');
execFileSync(cargo, args, { stdio: 'inherit' });

const metadata = JSON.parse(
  execFileSync(cargo, ['metadata', '--format-version', '1', '--no-deps', '--manifest-path', path.join(packageDir, 'Cargo.toml')], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }),
);
const libName = {
  darwin: 'libwebnn_node.dylib',
  win32: 'webnn_node.dll',
}[process.platform] || 'libwebnn_node.so';
const built = path.join(metadata.target_directory, debug ? 'debug' : 'release', libName);
const dest = path.join(packageDir, 'webnn.node');
// Copy to a temporary name and rename, so that a running process keeps its mapped copy.
const tmp = `${dest}.${process.pid}.tmp`;
fs.copyFileSync(built, tmp);
fs.renameSync(tmp, dest);
console.log(`built ${path.relative(process.cwd(), dest)} from ${built}`);
