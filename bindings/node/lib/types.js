'use strict';
// The IDL enums, dictionaries and the argument lists of the 95 MLGraphBuilder operations
// (webnn-2026.webidl), as data for the converters of webidl.js.

const idl = require('./webidl');

const ENUMS = {
  MLPowerPreference: ['default', 'high-performance', 'low-power'],
  MLOperandDataType: ['float32', 'float16', 'int32', 'uint32', 'int64', 'uint64', 'int8', 'uint8'],
  MLInputOperandLayout: ['nchw', 'nhwc'],
  MLConv2dFilterOperandLayout: ['oihw', 'hwio', 'ohwi', 'ihwo'],
  MLConvTranspose2dFilterOperandLayout: ['iohw', 'hwoi', 'ohwi'],
  MLGruWeightLayout: ['zrn', 'rzn'],
  MLLstmWeightLayout: ['iofg', 'ifgo'],
  MLRecurrentNetworkActivation: ['relu', 'sigmoid', 'tanh'],
  MLRecurrentNetworkDirection: ['forward', 'backward', 'both'],
  MLPaddingMode: ['constant', 'edge', 'reflection'],
  MLRoundingType: ['floor', 'ceil'],
  MLInterpolationMode: ['nearest-neighbor', 'linear'],
};

/** Converter of an IDL enum type. */
function enumType(name) {
  const values = ENUMS[name];
  return (v, where) => idl.enumeration(v, values, name, where);
}

// Member / argument types. `operand` is filled in by api.js (it needs the MLOperand class).
const T = {
  boolean: (v) => idl.toBoolean(v),
  double: (v, where) => idl.restrictedDouble(v, where),
  u32e: (v, where) => idl.enforcedUnsignedLong(v, where),
  u32: (v) => idl.unsignedLong(v),
  i32e: (v, where) => idl.enforcedLong(v, where),
  u32eSeq: (v, where) => idl.sequence(v, (x, w) => idl.enforcedUnsignedLong(x, w), where),
  u32Seq: (v, where) => idl.sequence(v, (x) => idl.unsignedLong(x), where),
  floatSeq: (v, where) => idl.sequence(v, (x, w) => idl.restrictedFloat(x, w), where),
  usv: (v, where) => idl.usvString(v, where),
  number: (v) => idl.mlNumber(v),
  dataType: enumType('MLOperandDataType'),
  activations: (v, where) => idl.sequence(v, enumType('MLRecurrentNetworkActivation'), where),
  operand: null, // set by api.js
  /** `([EnforceRange] unsigned long or sequence<[EnforceRange] unsigned long>)` of split(). */
  splits: (v, where) => {
    if (idl.isObject(v)) {
      const method = v[Symbol.iterator];
      if (method !== undefined && method !== null) return T.u32eSeq(v, where);
    }
    return idl.enforcedUnsignedLong(v, where);
  },
};

/** A dictionary member: name, type key of T (or a converter), default, required. */
function m(name, type, dflt, required) {
  const convert = typeof type === 'function' ? type : (v, where) => T[type](v, where);
  return { name, type, convert, default: dflt, required: !!required, isOperand: type === 'operand' };
}

const def = idl.defineDictionary;

const MLOperatorOptions = def('MLOperatorOptions', [m('label', 'usv', '')]);
const opts = (name, members) => def(name, members, MLOperatorOptions);

const MLOperandDescriptor = def('MLOperandDescriptor', [
  m('dataType', 'dataType', undefined, true),
  m('shape', 'u32eSeq', undefined, true),
]);

const DICTS = {
  MLContextOptions: def('MLContextOptions', [
    m('powerPreference', enumType('MLPowerPreference'), 'default'),
    m('accelerated', 'boolean', true),
  ]),
  MLOperandDescriptor,
  MLTensorDescriptor: def('MLTensorDescriptor', [m('readable', 'boolean', false), m('writable', 'boolean', false)], MLOperandDescriptor),
  MLOperatorOptions,
  MLArgMinMaxOptions: opts('MLArgMinMaxOptions', [
    m('keepDimensions', 'boolean', false),
    m('outputDataType', 'dataType', 'int32'),
  ]),
  MLBatchNormalizationOptions: opts('MLBatchNormalizationOptions', [
    m('scale', 'operand'),
    m('bias', 'operand'),
    m('axis', 'u32e', 1),
    m('epsilon', 'double', 1e-5),
  ]),
  MLClampOptions: opts('MLClampOptions', [m('minValue', 'number'), m('maxValue', 'number')]),
  MLConv2dOptions: opts('MLConv2dOptions', [
    m('padding', 'u32eSeq'),
    m('strides', 'u32eSeq'),
    m('dilations', 'u32eSeq'),
    m('groups', 'u32e', 1),
    m('inputLayout', enumType('MLInputOperandLayout'), 'nchw'),
    m('filterLayout', enumType('MLConv2dFilterOperandLayout'), 'oihw'),
    m('bias', 'operand'),
  ]),
  MLConvTranspose2dOptions: opts('MLConvTranspose2dOptions', [
    m('padding', 'u32eSeq'),
    m('strides', 'u32eSeq'),
    m('dilations', 'u32eSeq'),
    m('outputPadding', 'u32eSeq'),
    m('outputSizes', 'u32eSeq'),
    m('groups', 'u32e', 1),
    m('inputLayout', enumType('MLInputOperandLayout'), 'nchw'),
    m('filterLayout', enumType('MLConvTranspose2dFilterOperandLayout'), 'iohw'),
    m('bias', 'operand'),
  ]),
  MLCumulativeSumOptions: opts('MLCumulativeSumOptions', [m('exclusive', 'boolean', false), m('reversed', 'boolean', false)]),
  MLEluOptions: opts('MLEluOptions', [m('alpha', 'double', 1)]),
  MLGatherOptions: opts('MLGatherOptions', [m('axis', 'u32e', 0)]),
  MLGemmOptions: opts('MLGemmOptions', [
    m('c', 'operand'),
    m('alpha', 'double', 1),
    m('beta', 'double', 1),
    m('aTranspose', 'boolean', false),
    m('bTranspose', 'boolean', false),
  ]),
  MLGruOptions: opts('MLGruOptions', [
    m('bias', 'operand'),
    m('recurrentBias', 'operand'),
    m('initialHiddenState', 'operand'),
    m('resetAfter', 'boolean', true),
    m('returnSequence', 'boolean', false),
    m('direction', enumType('MLRecurrentNetworkDirection'), 'forward'),
    m('layout', enumType('MLGruWeightLayout'), 'zrn'),
    m('activations', 'activations'),
  ]),
  MLGruCellOptions: opts('MLGruCellOptions', [
    m('bias', 'operand'),
    m('recurrentBias', 'operand'),
    m('resetAfter', 'boolean', true),
    m('layout', enumType('MLGruWeightLayout'), 'zrn'),
    m('activations', 'activations'),
  ]),
  MLHardSigmoidOptions: opts('MLHardSigmoidOptions', [m('alpha', 'double', 0.2), m('beta', 'double', 0.5)]),
  MLInstanceNormalizationOptions: opts('MLInstanceNormalizationOptions', [
    m('scale', 'operand'),
    m('bias', 'operand'),
    m('epsilon', 'double', 1e-5),
    m('layout', enumType('MLInputOperandLayout'), 'nchw'),
  ]),
  MLLayerNormalizationOptions: opts('MLLayerNormalizationOptions', [
    m('scale', 'operand'),
    m('bias', 'operand'),
    m('axes', 'u32eSeq'),
    m('epsilon', 'double', 1e-5),
  ]),
  MLLeakyReluOptions: opts('MLLeakyReluOptions', [m('alpha', 'double', 0.01)]),
  MLLinearOptions: opts('MLLinearOptions', [m('alpha', 'double', 1), m('beta', 'double', 0)]),
  MLLstmOptions: opts('MLLstmOptions', [
    m('bias', 'operand'),
    m('recurrentBias', 'operand'),
    m('peepholeWeight', 'operand'),
    m('initialHiddenState', 'operand'),
    m('initialCellState', 'operand'),
    m('returnSequence', 'boolean', false),
    m('direction', enumType('MLRecurrentNetworkDirection'), 'forward'),
    m('layout', enumType('MLLstmWeightLayout'), 'iofg'),
    m('activations', 'activations'),
  ]),
  MLLstmCellOptions: opts('MLLstmCellOptions', [
    m('bias', 'operand'),
    m('recurrentBias', 'operand'),
    m('peepholeWeight', 'operand'),
    m('layout', enumType('MLLstmWeightLayout'), 'iofg'),
    m('activations', 'activations'),
  ]),
  MLPadOptions: opts('MLPadOptions', [m('mode', enumType('MLPaddingMode'), 'constant'), m('value', 'number', 0)]),
  MLPool2dOptions: opts('MLPool2dOptions', [
    m('windowDimensions', 'u32eSeq'),
    m('padding', 'u32eSeq'),
    m('strides', 'u32eSeq'),
    m('dilations', 'u32eSeq'),
    m('layout', enumType('MLInputOperandLayout'), 'nchw'),
    m('outputShapeRounding', enumType('MLRoundingType'), 'floor'),
    m('outputSizes', 'u32eSeq'),
  ]),
  MLReduceOptions: opts('MLReduceOptions', [m('axes', 'u32eSeq'), m('keepDimensions', 'boolean', false)]),
  MLResample2dOptions: opts('MLResample2dOptions', [
    m('mode', enumType('MLInterpolationMode'), 'nearest-neighbor'),
    m('scales', 'floatSeq'),
    m('sizes', 'u32eSeq'),
    m('axes', 'u32eSeq'),
  ]),
  MLReverseOptions: opts('MLReverseOptions', [m('axes', 'u32eSeq')]),
  MLScatterOptions: opts('MLScatterOptions', [m('axis', 'u32e', 0)]),
  MLSliceOptions: opts('MLSliceOptions', [m('strides', 'u32eSeq')]),
  MLSplitOptions: opts('MLSplitOptions', [m('axis', 'u32e', 0)]),
  MLTransposeOptions: opts('MLTransposeOptions', [m('permutation', 'u32eSeq')]),
  MLTriangularOptions: opts('MLTriangularOptions', [m('upper', 'boolean', true), m('diagonal', 'i32e', 0)]),
};

/** A positional argument: its IDL name and type key of T. */
const a = (name, type) => ({ name, type });
const input = a('input', 'operand');

/**
 * The 95 operations: positional arguments, options dictionary, and whether they return a
 * sequence<MLOperand>. Operand arguments (positional, then the dictionary's operand members
 * in declaration order) form the op's operand slots, in the order of the Rust `LimitsKind`.
 */
const OPS = {};
function op(names, args, options, sequence) {
  for (const name of names.split(' ')) OPS[name] = { args, options: DICTS[options], sequence: !!sequence };
}

op('add sub mul div max min pow equal notEqual greater greaterOrEqual lesser lesserOrEqual logicalAnd logicalOr logicalXor matmul',
  [a('a', 'operand'), a('b', 'operand')], 'MLOperatorOptions');
op('logicalNot isNaN isInfinite', [a('a', 'operand')], 'MLOperatorOptions');
op('abs ceil cos erf exp floor identity log neg reciprocal roundEven sin sign sqrt tan ' +
  'gelu hardSwish relu sigmoid softplus softsign tanh', [input], 'MLOperatorOptions');
op('argMin argMax', [input, a('axis', 'u32e')], 'MLArgMinMaxOptions');
op('batchNormalization', [input, a('mean', 'operand'), a('variance', 'operand')], 'MLBatchNormalizationOptions');
op('cast', [input, a('dataType', 'dataType')], 'MLOperatorOptions');
op('clamp', [input], 'MLClampOptions');
op('concat', [a('inputs', 'operandSeq'), a('axis', 'u32e')], 'MLOperatorOptions');
op('conv2d', [input, a('filter', 'operand')], 'MLConv2dOptions');
op('convTranspose2d', [input, a('filter', 'operand')], 'MLConvTranspose2dOptions');
op('cumulativeSum', [input, a('axis', 'u32')], 'MLCumulativeSumOptions');
op('dequantizeLinear quantizeLinear', [input, a('scale', 'operand'), a('zeroPoint', 'operand')], 'MLOperatorOptions');
op('elu', [input], 'MLEluOptions');
op('expand', [input, a('newShape', 'u32eSeq')], 'MLOperatorOptions');
op('gather gatherElements', [input, a('indices', 'operand')], 'MLGatherOptions');
op('gatherND', [input, a('indices', 'operand')], 'MLOperatorOptions');
op('gemm', [a('a', 'operand'), a('b', 'operand')], 'MLGemmOptions');
op('gru', [input, a('weight', 'operand'), a('recurrentWeight', 'operand'), a('steps', 'u32e'), a('hiddenSize', 'u32e')],
  'MLGruOptions', true);
op('gruCell', [input, a('weight', 'operand'), a('recurrentWeight', 'operand'), a('hiddenState', 'operand'),
  a('hiddenSize', 'u32e')], 'MLGruCellOptions');
op('hardSigmoid', [input], 'MLHardSigmoidOptions');
op('instanceNormalization', [input], 'MLInstanceNormalizationOptions');
op('layerNormalization', [input], 'MLLayerNormalizationOptions');
op('leakyRelu', [input], 'MLLeakyReluOptions');
op('linear', [input], 'MLLinearOptions');
op('lstm', [input, a('weight', 'operand'), a('recurrentWeight', 'operand'), a('steps', 'u32e'), a('hiddenSize', 'u32e')],
  'MLLstmOptions', true);
op('lstmCell', [input, a('weight', 'operand'), a('recurrentWeight', 'operand'), a('hiddenState', 'operand'),
  a('cellState', 'operand'), a('hiddenSize', 'u32e')], 'MLLstmCellOptions', true);
op('pad', [input, a('beginningPadding', 'u32eSeq'), a('endingPadding', 'u32eSeq')], 'MLPadOptions');
op('averagePool2d l2Pool2d maxPool2d', [input], 'MLPool2dOptions');
op('prelu', [input, a('slope', 'operand')], 'MLOperatorOptions');
op('reduceL1 reduceL2 reduceLogSum reduceLogSumExp reduceMax reduceMean reduceMin reduceProduct reduceSum reduceSumSquare',
  [input], 'MLReduceOptions');
op('resample2d', [input], 'MLResample2dOptions');
op('reshape', [input, a('newShape', 'u32eSeq')], 'MLOperatorOptions');
op('reverse', [input], 'MLReverseOptions');
op('scatterElements', [input, a('indices', 'operand'), a('updates', 'operand')], 'MLScatterOptions');
op('scatterND', [input, a('indices', 'operand'), a('updates', 'operand')], 'MLOperatorOptions');
op('slice', [input, a('starts', 'u32eSeq'), a('sizes', 'u32eSeq')], 'MLSliceOptions');
op('softmax', [input, a('axis', 'u32e')], 'MLOperatorOptions');
op('split', [input, a('splits', 'splits')], 'MLSplitOptions', true);
op('tile', [input, a('repetitions', 'u32Seq')], 'MLOperatorOptions');
op('transpose', [input], 'MLTransposeOptions');
op('triangular', [input], 'MLTriangularOptions');
op('where', [a('condition', 'operand'), a('trueValue', 'operand'), a('falseValue', 'operand')], 'MLOperatorOptions');

module.exports = { ENUMS, T, DICTS, OPS, enumType };
