'use strict';
// require('webnn-node'): { ml, ML, MLContext, MLGraphBuilder, MLGraph, MLOperand, MLTensor }.
// require('webnn-node/global') also installs navigator.ml and the interface objects on
// globalThis.

const { ml, ML, MLContext, MLGraphBuilder, MLGraph, MLOperand, MLTensor } = require('./api');

module.exports = { ml, ML, MLContext, MLGraphBuilder, MLGraph, MLOperand, MLTensor };
