'use strict';
// WebIDL conversions as a browser performs them: [EnforceRange], plain unsigned long, enums,
// dictionaries (defaults, unknown members, member order), sequences, records, MLNumber,
// buffer sources, interfaces, overloads, argument counts, promise-returning methods.

const test = require('node:test');
const assert = require('node:assert/strict');
const { ml, ML, MLContext, MLGraphBuilder, MLGraph, MLOperand, MLTensor } = require('..');
const { throwsType, rejectsType, f32 } = require('../test-support/assertions');

let context;
test.before(async () => {
  context = await ml.createContext();
});
test.after(() => context.destroy());

const builder = () => new MLGraphBuilder(context);

test('[EnforceRange] unsigned long: TypeError on NaN, ±Infinity, out of range; truncation', () => {
  const b = builder();
  const x = b.input('x', f32([2, 3]));
  for (const bad of [NaN, Infinity, -Infinity, -1, 2 ** 32, 'abc', undefined]) {
    throwsType(() => b.softmax(x, bad), /finite|range/);
  }
  throwsType(() => b.softmax(x, 1n), /BigInt/);
  throwsType(() => b.softmax(x, Symbol('s')));
  // Truncation toward zero: 1.9 → 1, -0.5 → 0, '1' → 1, true → 1, null → 0.
  assert.deepEqual(b.argMax(x, 1.9).shape, [2]);
  assert.deepEqual(b.argMax(x, -0.5).shape, [3]);
  assert.deepEqual(b.argMax(x, '1').shape, [2]);
  assert.deepEqual(b.argMax(x, true).shape, [2]);
  assert.deepEqual(b.argMax(x, null).shape, [3]);
  assert.deepEqual(b.argMax(x, { valueOf: () => 1 }).shape, [2]);
  // In sequences and dictionaries too.
  assert.deepEqual(b.input('y', { dataType: 'float32', shape: [2.7, '3'] }).shape, [2, 3]);
  throwsType(() => b.input('z', { dataType: 'float32', shape: [-1] }), /range/);
  throwsType(() => b.input('z', { dataType: 'float32', shape: [NaN] }), /finite/);
  throwsType(() => b.reduceSum(x, { axes: [Infinity] }), /finite/);
  throwsType(() => b.gather(x, b.input('i', { dataType: 'int32', shape: [1] }), { axis: -1 }), /range/);
});

test('unsigned long without [EnforceRange] (cumulativeSum axis, tile repetitions): modulo 2^32', () => {
  const b = builder();
  const x = b.input('x', f32([2, 3]));
  assert.deepEqual(b.cumulativeSum(x, NaN).shape, [2, 3]); // NaN → 0
  assert.deepEqual(b.cumulativeSum(x, 2 ** 32 + 1).shape, [2, 3]); // → 1
  throwsType(() => b.cumulativeSum(x, -1), /axis 4294967295/); // → 4294967295
  assert.deepEqual(b.tile(x, [2 ** 32 + 2, 1.5]).shape, [4, 3]);
  throwsType(() => b.tile(x, [Infinity, 1]), /item 0 is 0/); // Infinity → 0, which tile() rejects
});

test('[EnforceRange] long: triangular diagonal', () => {
  const b = builder();
  const x = b.input('x', f32([3, 3]));
  assert.deepEqual(b.triangular(x, { diagonal: -2147483648 }).shape, [3, 3]);
  assert.deepEqual(b.triangular(x, { diagonal: 2147483647.9 }).shape, [3, 3]);
  throwsType(() => b.triangular(x, { diagonal: 2 ** 31 }), /range/);
  throwsType(() => b.triangular(x, { diagonal: NaN }), /finite/);
});

test('restricted double and float: TypeError on non-finite values', () => {
  const b = builder();
  const x = b.input('x', f32([2]));
  throwsType(() => b.elu(x, { alpha: NaN }), /non-finite/);
  throwsType(() => b.leakyRelu(x, { alpha: Infinity }), /non-finite/);
  throwsType(() => b.batchNormalization(b.input('n', f32([1, 2])), b.input('m', f32([2])), b.input('v', f32([2])), { epsilon: -Infinity }));
  const y = b.input('y', f32([1, 1, 2, 2]));
  throwsType(() => b.resample2d(y, { scales: [1, NaN] }), /non-finite/);
  throwsType(() => b.resample2d(y, { scales: [1, 1e40] }), /range of float/);
  assert.deepEqual(b.resample2d(y, { scales: [2, 1.5] }).shape, [1, 1, 4, 3]);
});

test('enums: TypeError on unknown values', async () => {
  const b = builder();
  const x = b.input('x', f32([1, 2, 3, 3]));
  throwsType(() => b.cast(x, 'float64'), /not a valid enum value of type MLOperandDataType/);
  throwsType(() => b.cast(x, 'Float32'), /MLOperandDataType/);
  throwsType(() => b.conv2d(x, b.input('f', f32([1, 2, 1, 1])), { inputLayout: 'NCHW' }), /MLInputOperandLayout/);
  throwsType(() => b.averagePool2d(x, { outputShapeRounding: 'round' }), /MLRoundingType/);
  throwsType(() => b.pad(x, [0, 0, 0, 0], [0, 0, 0, 0], { mode: 'symmetric' }), /MLPaddingMode/);
  throwsType(() => b.input('y', { dataType: 'bool', shape: [1] }), /MLOperandDataType/);
  throwsType(() => b.gru(b.input('a', f32([1, 1, 1])), b.input('w', f32([1, 3, 1])), b.input('r', f32([1, 3, 1])), 1, 1, { activations: ['relu', 'gelu'] }),
    /MLRecurrentNetworkActivation/);
  // An enum converts with ToString: an object with toString works.
  assert.equal(b.cast(x, { toString: () => 'int32' }).dataType, 'int32');
  await rejectsType(ml.createContext({ powerPreference: 'fast' }), /MLPowerPreference/);
});

test('dictionaries: defaults, unknown members ignored, null / undefined, required members', async () => {
  const b = builder();
  const x = b.input('x', f32([2, 3]));
  // Defaults: keepDimensions false, outputDataType int32.
  const am = b.argMin(x, 0);
  assert.equal(am.dataType, 'int32');
  assert.deepEqual(am.shape, [3]);
  assert.deepEqual(b.argMin(x, 0, { keepDimensions: 1, outputDataType: 'int64', unknownMember: 5 }).shape, [1, 3]);
  assert.deepEqual(b.reduceSum(x, null).shape, []);
  assert.deepEqual(b.reduceSum(x, undefined).shape, []);
  assert.deepEqual(b.reduceSum(x, { axes: undefined }).shape, []);
  assert.deepEqual(b.reduceSum(x, { axes: [] }).shape, [2, 3]);
  throwsType(() => b.reduceSum(x, 5), /MLReduceOptions/);
  throwsType(() => b.reduceSum(x, 'axes'), /MLReduceOptions/);
  // A function is an object: its (absent) members are read.
  assert.deepEqual(b.reduceSum(x, () => {}).shape, []);
  // Inherited members count (a dictionary reads with [[Get]]).
  assert.deepEqual(b.reduceSum(x, Object.create({ keepDimensions: true })).shape, [1, 1]);
  // Required members.
  throwsType(() => b.input('y', { shape: [1] }), /'dataType'.*Required member/);
  throwsType(() => b.input('y', { dataType: 'float32' }), /'shape'.*Required member/);
  throwsType(() => b.input('y'), /2 arguments required/);
  // Tensor descriptor defaults: not readable, not writable.
  const t = await context.createTensor({ dataType: 'float32', shape: [1] });
  assert.equal(t.readable, false);
  assert.equal(t.writable, false);
  assert.equal(t.constant, false);
  // MLContextOptions defaults.
  const c = await ml.createContext(null);
  assert.equal(c.accelerated, false, 'a CPU context is not accelerated');
  c.destroy();
});

test('dictionaries: members are read in IDL order (inherited first, then lexicographic), once each', () => {
  const b = builder();
  const x = b.input('x', f32([1, 2, 3, 3]));
  const reads = [];
  const options = new Proxy({}, {
    get(target, key) {
      if (typeof key === 'string') reads.push(key);
      return undefined;
    },
  });
  b.conv2d(x, b.input('f', f32([1, 2, 1, 1])), options);
  assert.deepEqual(reads, ['label', 'bias', 'dilations', 'filterLayout', 'groups', 'inputLayout', 'padding', 'strides']);
  reads.length = 0;
  b.input('y', new Proxy({ dataType: 'float32', shape: [1] }, {
    get(target, key) {
      reads.push(key);
      return target[key];
    },
  }));
  assert.deepEqual(reads.slice(0, 2), ['dataType', 'shape']);
});

test('sequences: any iterable; a string or a non-iterable object is a TypeError', () => {
  const b = builder();
  const x = b.input('x', f32([2, 3]));
  assert.deepEqual(b.reshape(x, new Set([3, 2])).shape, [3, 2]);
  assert.deepEqual(b.reshape(x, (function* () { yield 6; })()).shape, [6]);
  assert.deepEqual(b.reshape(x, new Uint32Array([1, 6])).shape, [1, 6]);
  assert.deepEqual(b.concat(new Set([x, b.relu(x)]), 0).shape, [4, 3]);
  throwsType(() => b.reshape(x, '6'), /sequence/);
  throwsType(() => b.reshape(x, { length: 1, 0: 6 }), /iterator/);
  throwsType(() => b.reshape(x, 6), /sequence/);
  throwsType(() => b.concat([x, 'x'], 0), /MLOperand/);
  // split(): a number or a sequence.
  assert.equal(b.split(x, 3, { axis: 1 }).length, 3);
  assert.deepEqual(b.split(x, [1, 2], { axis: 1 }).map((o) => o.shape), [[2, 1], [2, 2]]);
  assert.equal(b.split(x, { valueOf: () => 2 }).length, 2);
  throwsType(() => b.split(x, -1), /range/);
});

test('records: own enumerable string keys only', async () => {
  const b = builder();
  const x = b.input('x', f32([2]));
  const y = b.add(x, x);
  const outputs = Object.create({ inherited: y });
  Object.defineProperty(outputs, 'hidden', { value: y, enumerable: false });
  outputs[Symbol('s')] = y;
  outputs.y = y;
  const graph = await b.build(outputs);
  const tx = await context.createTensor({ ...f32([2]), writable: true });
  const ty = await context.createTensor({ ...f32([2]), readable: true });
  context.writeTensor(tx, new Float32Array([1, 2]));
  // The graph has exactly one output, 'y'.
  context.dispatch(graph, { x: tx }, { y: ty });
  assert.deepEqual([...new Float32Array(await context.readTensor(ty))], [2, 4]);
  throwsType(() => context.dispatch(graph, { x: tx }, null), /record/);
  throwsType(() => context.dispatch(graph, { x: tx }, 'y'), /record/);
  throwsType(() => context.dispatch(graph, { x: tx }, { y: 'tensor' }), /MLTensor/);
  await rejectsType(b.build(null), /record/);
});

test('MLNumber: bigint or unrestricted double', async () => {
  const b = builder();
  assert.equal(b.constant('int64', 2n ** 63n - 1n).dataType, 'int64');
  assert.equal(b.constant('float32', NaN).dataType, 'float32');
  assert.equal(b.constant('float32', -Infinity).dataType, 'float32');
  assert.equal(b.constant('uint64', 2n ** 70n).dataType, 'uint64');
  assert.equal(b.constant('int8', { valueOf: () => 3n }).dataType, 'int8');
  throwsType(() => b.constant('float32', Symbol('x')));
  const x = b.input('x', { dataType: 'uint64', shape: [2] });
  b.clamp(x, { minValue: 1n, maxValue: 2 ** 40 });
  b.pad(x, [1], [1], { value: 18446744073709551615n });
  // Values are exact: uint64 max as a bigint survives to the output.
  const y = b.add(x, b.constant('uint64', 18446744073709551615n));
  const graph = await b.build({ y });
  const tx = await context.createTensor({ dataType: 'uint64', shape: [2], writable: true });
  const ty = await context.createTensor({ dataType: 'uint64', shape: [2], readable: true });
  context.writeTensor(tx, new BigUint64Array([0n, 1n]));
  context.dispatch(graph, { x: tx }, { y: ty });
  assert.deepEqual([...new BigUint64Array(await context.readTensor(ty))], [18446744073709551615n, 0n]);
});

test('buffer sources: matching typed array, Uint8Array, ArrayBuffer, SharedArrayBuffer; others rejected', () => {
  const b = builder();
  const d = f32([2]);
  b.constant(d, new Float32Array(2));
  b.constant(d, new Uint8Array(8));
  b.constant(d, Buffer.alloc(8));
  b.constant(d, new ArrayBuffer(8));
  b.constant(d, new SharedArrayBuffer(8));
  b.constant(d, new Float32Array(new SharedArrayBuffer(8)));
  b.constant(d, new Float32Array(new ArrayBuffer(16), 8, 2)); // a view at an offset
  throwsType(() => b.constant(d, new Int32Array(2)), /Int32Array/);
  throwsType(() => b.constant(d, new Uint8ClampedArray(8)), /Uint8ClampedArray/);
  throwsType(() => b.constant(d, new DataView(new ArrayBuffer(8))), /DataView/);
  throwsType(() => b.constant(d, new Float32Array(3)), /bytes/);
  throwsType(() => b.constant(d, [1, 2]), /ArrayBuffer/);
  throwsType(() => b.constant(d, new ArrayBuffer(8, { maxByteLength: 16 })), /resizable/);
  const detached = new ArrayBuffer(8);
  structuredClone(detached, { transfer: [detached] });
  throwsType(() => b.constant(d, detached), /bytes/);
  // float16: Float16Array where the runtime has one, Uint16Array bits, Uint8Array (D1).
  const h = { dataType: 'float16', shape: [2] };
  b.constant(h, new Uint16Array(2));
  b.constant(h, new Uint8Array(4));
  if (typeof globalThis.Float16Array === 'function') b.constant(h, new globalThis.Float16Array(2));
  throwsType(() => b.constant(h, new Float32Array(1)), /Float32Array/);
  throwsType(() => b.constant(h, new Int16Array(2)), /Int16Array/);
  // 64-bit integers: BigInt64Array / BigUint64Array.
  b.constant({ dataType: 'int64', shape: [1] }, new BigInt64Array(1));
  b.constant({ dataType: 'uint64', shape: [1] }, new BigUint64Array(1));
  throwsType(() => b.constant({ dataType: 'int64', shape: [1] }, new BigUint64Array(1)), /BigUint64Array/);
  throwsType(() => b.constant({ dataType: 'int64', shape: [1] }, new Float64Array(1)), /Float64Array/);
  b.constant({ dataType: 'int8', shape: [2] }, new Int8Array(2));
  throwsType(() => b.constant({ dataType: 'uint32', shape: [1] }, new Int32Array(1)), /Int32Array/);
});

test('constant() overloads and argument counts', async () => {
  const b = builder();
  throwsType(() => b.constant(), /1 argument required/);
  throwsType(() => b.constant(f32([1])), /MLTensor/); // one argument: constant(MLTensor)
  assert.deepEqual(b.constant('float32', 1).shape, []); // (dataType, value)
  assert.deepEqual(b.constant(f32([1]), new Float32Array(1)).shape, [1]); // (descriptor, buffer)
  throwsType(() => b.constant(null, new Float32Array(1)), /Required member/); // null → dictionary
  throwsType(() => b.constant(5, 1), /MLOperandDataType/); // a primitive → enum
  const tensor = await context.createConstantTensor(f32([2]), new Float32Array([1, 2]));
  assert.deepEqual(b.constant(tensor).shape, [2]);
  const plain = await context.createTensor(f32([2]));
  throwsType(() => b.constant(plain), /not a constant tensor/);
  // Too few arguments, before any conversion.
  const x = b.input('x', f32([1]));
  throwsType(() => b.add(x), /2 arguments required, but only 1 present/);
  throwsType(() => b.gru(x, x, x, 1), /5 arguments required/);
  assert.equal(MLGraphBuilder.prototype.add.length, 2);
  assert.equal(MLGraphBuilder.prototype.lstmCell.length, 6);
  assert.equal(MLGraphBuilder.prototype.add.name, 'add');
  assert.equal(MLGraphBuilder.prototype.constant.length, 1);
  assert.equal(MLContext.prototype.readTensor.length, 1);
  assert.equal(MLContext.prototype.dispatch.length, 3);
});

test('interfaces: not constructible without an IDL constructor; brand checks', async () => {
  for (const C of [ML, MLContext, MLGraph, MLOperand, MLTensor]) {
    throwsType(() => new C(), /Illegal constructor/);
  }
  throwsType(() => MLGraphBuilder(context), /new/);
  throwsType(() => new MLGraphBuilder(), /1 argument required/);
  throwsType(() => new MLGraphBuilder({}), /MLContext/);
  throwsType(() => MLGraphBuilder.prototype.add.call({}, 1, 2), /Illegal invocation/);
  throwsType(() => Object.getOwnPropertyDescriptor(MLOperand.prototype, 'shape').get.call({}), /Illegal invocation/);
  // Promise-returning operations reject instead of throwing.
  const p = MLContext.prototype.createTensor.call({}, f32([1]));
  await rejectsType(p, /Illegal invocation/);
  await rejectsType(ML.prototype.createContext.call(context), /Illegal invocation/);
  await rejectsType(context.createTensor({ dataType: 'nope', shape: [1] }), /MLOperandDataType/);
  await rejectsType(context.createTensor(7), /MLTensorDescriptor/);
});

test('MLOperand and MLTensor attributes: instances, frozen shapes, toStringTag', async () => {
  const b = builder();
  const x = b.input('x', f32([2, 3]));
  const y = b.relu(x);
  assert.ok(x instanceof MLOperand && y instanceof MLOperand);
  assert.ok(Object.isFrozen(y.shape));
  assert.equal(y.shape, y.shape, '[SameObject]-like: the same frozen array each time');
  assert.equal(Object.prototype.toString.call(y), '[object MLOperand]');
  assert.equal(Object.prototype.toString.call(b), '[object MLGraphBuilder]');
  assert.ok(Object.getOwnPropertyDescriptor(MLOperand.prototype, 'dataType').enumerable);
  assert.ok(Object.getOwnPropertyDescriptor(MLGraphBuilder.prototype, 'conv2d').enumerable);
  const outs = b.split(x, 3, { axis: 1 });
  assert.ok(Array.isArray(outs) && outs.every((o) => o instanceof MLOperand));
  const t = await context.createTensor({ dataType: 'int8', shape: [4, 1], readable: true });
  assert.ok(t instanceof MLTensor);
  assert.equal(t.dataType, 'int8');
  assert.deepEqual(t.shape, [4, 1]);
  assert.ok(Object.isFrozen(t.shape));
  assert.equal(t.readable, true);
  assert.equal(Object.prototype.toString.call(t), '[object MLTensor]');
});

test('opSupportLimits(): every one of the 95 ops, each a method of MLGraphBuilder', () => {
  const limits = context.opSupportLimits();
  assert.notEqual(limits, context.opSupportLimits(), 'a new dictionary each call');
  assert.equal(limits.preferredInputLayout, 'nchw');
  assert.ok(limits.maxTensorByteLength > 0);
  assert.ok(limits.input.dataTypes.includes('float32'));
  const ops = Object.keys(limits).filter((k) => !['preferredInputLayout', 'maxTensorByteLength', 'input', 'constant', 'output'].includes(k));
  assert.equal(ops.length, 95);
  for (const op of ops) assert.equal(typeof MLGraphBuilder.prototype[op], 'function', op);
  assert.deepEqual(limits.conv2d.filter.rankRange, { min: 4, max: 4 });
});
