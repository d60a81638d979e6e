'use strict';
// require('webnn-node/global'): installs `navigator.ml` (creating `navigator` if the runtime
// has none) and the interface objects (ML, MLContext, MLGraphBuilder, MLGraph, MLOperand,
// MLTensor) on globalThis, as a browser exposes them. Exports the same as the main module.

const api = require('./index');

if (globalThis.navigator === undefined) {
  Object.defineProperty(globalThis, 'navigator', { value: {}, writable: true, configurable: true });
}
// [SameObject] readonly attribute ML ml
Object.defineProperty(globalThis.navigator, 'ml', {
  get() {
    return api.ml;
  },
  enumerable: true,
  configurable: true,
});
// Interface objects: writable, configurable, not enumerable.
for (const name of ['ML', 'MLContext', 'MLGraphBuilder', 'MLGraph', 'MLOperand', 'MLTensor']) {
  Object.defineProperty(globalThis, name, { value: api[name], writable: true, configurable: true, enumerable: false });
}

module.exports = api;
