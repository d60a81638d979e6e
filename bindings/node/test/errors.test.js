'use strict';
// Exception types of invalid calls: TypeError for argument errors, DOMException names for the
// rest, a sample per op family; cross-builder operands; messages carrying the [label].

const test = require('node:test');
const assert = require('node:assert/strict');
const { ml, MLGraphBuilder } = require('..');
const { throwsType, throwsDom, rejectsType, rejectsDom, f32 } = require('../test-support/assertions');

const desc = (dataType, shape) => ({ dataType, shape });

test('invalid calls of every op family throw TypeError', async () => {
  const context = await ml.createContext();
  const b = new MLGraphBuilder(context);
  const x4 = b.input('x4', f32([1, 2, 3, 4]));
  const x2 = b.input('x2', f32([2, 3]));
  const i32 = b.input('i32', desc('int32', [2, 3]));
  const u8 = b.input('u8', desc('uint8', [2, 3]));
  const scalar = b.input('s', f32([]));
  const cases = [
    // element-wise binary / logical / unary
    ['add: shapes not broadcastable', () => b.add(x2, b.input('y', f32([4])))],
    ['mul: data types differ', () => b.mul(x2, i32)],
    ['equal: data types differ', () => b.equal(x2, i32)],
    ['logicalNot: float32 input', () => b.logicalNot(x2)],
    ['logicalAnd: float32 operands', () => b.logicalAnd(x2, x2)],
    ['sqrt: int32 input', () => b.sqrt(i32)],
    // activations and conversions
    ['softmax: axis out of range', () => b.softmax(x2, 2)],
    ['clamp: minValue > maxValue', () => b.clamp(x2, { minValue: 3, maxValue: 1 })],
    ['prelu: slope of another type', () => b.prelu(x2, i32)],
    ['relu: uint8 input', () => b.relu(u8)],
    ['dequantizeLinear: scale rank differs', () => b.dequantizeLinear(u8, b.input('sc', f32([3])), b.input('zp', desc('uint8', [3])))],
    // conv / pooling / matmul
    ['conv2d: filter of rank 3', () => b.conv2d(x4, b.input('f3', f32([1, 2, 3])))],
    ['conv2d: groups 0', () => b.conv2d(x4, b.input('f4', f32([1, 2, 1, 1])), { groups: 0 })],
    ['convTranspose2d: strides of length 1', () => b.convTranspose2d(x4, b.input('ft', f32([2, 1, 1, 1])), { strides: [1] })],
    ['averagePool2d: windowDimensions of length 3', () => b.averagePool2d(x4, { windowDimensions: [1, 1, 1] })],
    ['maxPool2d: rank-2 input', () => b.maxPool2d(x2)],
    ['matmul: inner dimensions differ', () => b.matmul(x2, x2)],
    ['gemm: rank-4 a', () => b.gemm(x4, x2)],
    // reductions
    ['reduceSum: axis out of range', () => b.reduceSum(x2, { axes: [2] })],
    ['reduceMean: repeated axis', () => b.reduceMean(x2, { axes: [1, 1] })],
    ['argMax: axis out of range', () => b.argMax(x2, 5)],
    ['cumulativeSum: axis out of range', () => b.cumulativeSum(x2, 3)],
    // normalization
    ['batchNormalization: mean of the wrong size', () => b.batchNormalization(x4, b.input('m', f32([3])), b.input('v', f32([2])))],
    ['layerNormalization: axes out of range', () => b.layerNormalization(x2, { axes: [4] })],
    ['instanceNormalization: rank-2 input', () => b.instanceNormalization(x2)],
    // data movement
    ['reshape: element count differs', () => b.reshape(x2, [4, 2])],
    ['slice: out of bounds', () => b.slice(x2, [0, 2], [2, 2])],
    ['split: sizes do not add up', () => b.split(x2, [1, 1], { axis: 1 })],
    ['transpose: not a permutation', () => b.transpose(x2, { permutation: [0, 0] })],
    ['concat: ranks differ', () => b.concat([x2, x4], 0)],
    ['concat: no inputs', () => b.concat([], 0)],
    ['expand: not broadcastable', () => b.expand(x2, [3, 3])],
    ['pad: padding of the wrong rank', () => b.pad(x2, [1], [1])],
    ['tile: repetitions of the wrong rank', () => b.tile(x2, [2])],
    ['reverse: axis out of range', () => b.reverse(x2, { axes: [3] })],
    ['triangular: scalar input', () => b.triangular(scalar)],
    ['where: float32 condition', () => b.where(x2, x2, x2)],
    ['resample2d: rank-2 input', () => b.resample2d(x2)],
    // gather / scatter
    ['gather: float32 indices', () => b.gather(x2, x2)],
    ['gather: axis out of range', () => b.gather(x2, i32, { axis: 2 })],
    ['gatherND: indices last dimension too large', () => b.gatherND(x2, b.input('gi', desc('int32', [3])))],
    ['scatterElements: updates shape differs', () => b.scatterElements(x2, i32, b.input('up', f32([3, 3])))],
    // recurrent
    ['gru: weight of the wrong shape', () => b.gru(b.input('gx', f32([2, 1, 3])), b.input('gw', f32([1, 5, 3])), b.input('gr', f32([1, 6, 2])), 2, 2)],
    ['lstmCell: hidden state of the wrong shape', () =>
      b.lstmCell(b.input('lx', f32([1, 3])), b.input('lw', f32([8, 3])), b.input('lr', f32([8, 2])), b.input('lh', f32([1, 3])),
        b.input('lc', f32([1, 2])), 2)],
    // input / constant
    ['input: empty name', () => b.input('', f32([1]))],
    ['input: duplicate name', () => b.input('x2', f32([1]))],
    ['input: dimension 0', () => b.input('zero', f32([0]))],
    ['constant: byte length differs', () => b.constant(f32([2]), new Float32Array(3))],
    ['constant: view of another type', () => b.constant(f32([2]), new Int32Array(2))],
  ];
  const before = [];
  for (const [what, fn] of cases) {
    assert.throws(fn, (e) => {
      assert.ok(e instanceof TypeError, `${what}: expected a TypeError, got ${e && e.name}: ${e && e.message}`);
      return true;
    }, what);
    before.push(what);
  }
  assert.equal(before.length, cases.length);
  context.destroy();
});

test('the label appears as a [label] prefix of builder errors', async () => {
  const context = await ml.createContext();
  const b = new MLGraphBuilder(context);
  const x = b.input('x', f32([2, 3]));
  throwsType(() => b.softmax(x, 7, { label: 'my-softmax' }), /^\[my-softmax\] softmax: /);
  throwsType(() => b.reshape(x, [7], { label: 'reshape 1' }), /^\[reshape 1\] reshape/);
  throwsType(() => b.conv2d(x, x, { label: 'c' }), /^\[c\] conv2d/);
  // A label that is not well-formed UTF-16 is converted as a USVString.
  throwsType(() => b.softmax(x, 9, { label: 'a\uD800b' }), /^\[a\uFFFDb\] softmax/);
  context.destroy();
});

test('operands of another builder are rejected with TypeError, positional or in options', async () => {
  const context = await ml.createContext();
  const b1 = new MLGraphBuilder(context);
  const b2 = new MLGraphBuilder(context);
  const x1 = b1.input('x', f32([1, 2, 3, 3]));
  const x2 = b2.input('x', f32([1, 2, 3, 3]));
  const f2 = b2.input('f', f32([2, 2, 1, 1]));
  const bias1 = b1.input('bias', f32([2]));
  throwsType(() => b2.add(x2, x1), /another MLGraphBuilder/);
  throwsType(() => b2.relu(x1), /another MLGraphBuilder/);
  throwsType(() => b2.conv2d(x2, f2, { bias: bias1 }), /another MLGraphBuilder/);
  throwsType(() => b2.concat([x2, x1], 0), /another MLGraphBuilder/);
  throwsType(() => b2.gemm(b2.input('a', f32([2, 2])), b2.input('b', f32([2, 2])), { c: b1.input('c', f32([2, 2])) }));
  await rejectsType(b2.build({ out: b1.relu(x1) }), /another MLGraphBuilder/);
  // Another context: the same check.
  const other = await ml.createContext();
  const b3 = new MLGraphBuilder(other);
  throwsType(() => b3.add(b3.input('x', f32([1])), x1));
  other.destroy();
  context.destroy();
});

test('build() rejections', async () => {
  const context = await ml.createContext();
  const b = new MLGraphBuilder(context);
  const x = b.input('x', f32([2]));
  const c = b.constant(f32([2]), new Float32Array(2));
  await rejectsType(b.build({}), /at least one output/);
  await rejectsType(b.build({ x }), /input or constant/);
  await rejectsType(b.build({ c }), /input or constant/);
  await rejectsType(b.build({ '': b.relu(x) }));
  await rejectsType(b.build({ out: 'not an operand' }), /MLOperand/);
  await rejectsType(b.build(), /1 argument required/);
  // None of the above built the graph: the builder still works.
  const g = await b.build({ y: b.add(x, c) });
  assert.ok(g);
  context.destroy();
});

test('dispatch, readTensor and writeTensor errors', async () => {
  const context = await ml.createContext();
  const b = new MLGraphBuilder(context);
  const graph = await b.build({ y: b.add(b.input('x', f32([2])), b.constant('float32', 1)) });
  const x = await context.createTensor({ ...f32([2]), writable: true });
  const y = await context.createTensor({ ...f32([2]), readable: true });
  const wrongShape = await context.createTensor({ ...f32([3]), readable: true });
  const other = await ml.createContext();
  const foreign = await other.createTensor({ ...f32([2]), readable: true, writable: true });
  context.dispatch(graph, { x }, { y });
  throwsType(() => context.dispatch(graph, { x }, { y: wrongShape }), /expects/);
  throwsType(() => context.dispatch(graph, { x }, {}), /outputs/);
  throwsType(() => context.dispatch(graph, { x, extra: y }, { y }));
  throwsType(() => context.dispatch(graph, { x }, { y: x }), /same tensor/);
  throwsType(() => context.dispatch(graph, { x: foreign }, { y }), /another context/);
  throwsType(() => other.dispatch(graph, { x: foreign }, { y: foreign }));
  throwsType(() => context.dispatch({}, { x }, { y }), /MLGraph/);
  throwsType(() => context.dispatch(graph, { x }), /3 arguments required/);
  // writeTensor
  throwsType(() => context.writeTensor(y, new Float32Array(2)), /writable/);
  throwsType(() => context.writeTensor(x, new Float32Array(3)), /bytes/);
  throwsType(() => context.writeTensor(x, new Float64Array(2)), /Float64Array/);
  throwsType(() => context.writeTensor(x, [1, 2]), /ArrayBuffer/);
  throwsType(() => context.writeTensor(foreign, new Float32Array(2)), /another context/);
  // readTensor
  await rejectsType(context.readTensor(x), /readable/);
  await rejectsType(context.readTensor(foreign), /another context/);
  await rejectsType(context.readTensor(y, new Float32Array(3)), /bytes/);
  await rejectsType(context.readTensor(y, new Int32Array(2)), /Int32Array/);
  await rejectsType(context.readTensor(y, undefined), /ArrayBuffer/);
  await rejectsType(context.readTensor('y'), /MLTensor/);
  const out = new Uint8Array(8);
  assert.equal(await context.readTensor(y, out.buffer), undefined);
  assert.deepEqual([...new Float32Array(out.buffer)], [1, 1]);
  other.destroy();
  context.destroy();
  // The loss destroyed the tensor: both forms of readTensor say so, and why.
  const why = /the tensor is destroyed \(the context was lost: the context was destroyed with destroy\(\)\)/;
  await rejectsType(context.readTensor(y, out.buffer), why);
  await rejectsType(context.readTensor(y), why);
});

test('createTensor / createConstantTensor reject, never throw', async () => {
  const context = await ml.createContext();
  await rejectsType(context.createTensor({ dataType: 'float32', shape: [0] }), /dimension/);
  await rejectsType(context.createTensor({ dataType: 'float32' }), /shape/);
  await rejectsType(context.createTensor(), /1 argument required/);
  await rejectsType(context.createTensor({ dataType: 'float64', shape: [1] }), /MLOperandDataType/);
  await rejectsType(context.createConstantTensor(f32([2]), new Float32Array(1)), /bytes/);
  await rejectsType(context.createConstantTensor(f32([2]), new Uint32Array(2)), /Uint32Array/);
  await rejectsType(context.createConstantTensor(f32([2]), 'bytes'), /ArrayBuffer/);
  context.destroy();
  // Lost: InvalidStateError comes first, even with a bad buffer type.
  await rejectsDom(context.createTensor(f32([1])), 'InvalidStateError');
  await rejectsDom(context.createConstantTensor(f32([1]), new Float32Array(1)), 'InvalidStateError');
  await rejectsDom(context.createConstantTensor(f32([1]), new Int32Array(1)), 'InvalidStateError');
});

test('InvalidStateError DOMExceptions: built builder, lost context', async () => {
  const context = await ml.createContext();
  const b = new MLGraphBuilder(context);
  const x = b.input('x', f32([2]));
  const graphPromise = b.build({ y: b.add(x, x) });
  // build() marks the builder built synchronously.
  throwsDom(() => b.add(x, x), 'InvalidStateError', /already built/);
  throwsDom(() => b.input('z', f32([1])), 'InvalidStateError');
  throwsDom(() => b.constant('float32', 1), 'InvalidStateError');
  throwsDom(() => b.constant(f32([1]), new Int32Array(1)), 'InvalidStateError');
  await rejectsDom(b.build({ y: x }), 'InvalidStateError');
  await graphPromise;
  const c2 = await ml.createContext();
  const b2 = new MLGraphBuilder(c2);
  const y = b2.input('y', f32([1]));
  c2.destroy();
  throwsDom(() => new MLGraphBuilder(c2), 'InvalidStateError', /lost/);
  throwsDom(() => b2.relu(y), 'InvalidStateError', /lost/);
  context.destroy();
});
