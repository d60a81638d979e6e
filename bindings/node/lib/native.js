'use strict';
// Loads the native addon built from this directory's Rust crate (`npm run build`).
// WEBNN_NODE_ADDON=/path/to/file.node overrides the location.

const path = require('node:path');

const file = process.env.WEBNN_NODE_ADDON || path.join(__dirname, '..', 'webnn.node');
let addon;
try {
  addon = require(file);
} catch (e) {
  const error = new Error(
    `webnn: cannot load the native addon ${file} (${e.message}). ` +
      'Build it with `npm run build` in bindings/node (needs cargo).',
  );
  error.cause = e;
  throw error;
}
module.exports = addon;
