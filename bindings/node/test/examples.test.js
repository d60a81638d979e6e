'use strict';
// The spec's first example and the MLTensor explainer's examples, run through the JS API.

const test = require('node:test');
const assert = require('node:assert/strict');
const { ml, MLGraphBuilder, MLGraph, MLTensor, MLContext } = require('..');
const { f32 } = require('../test-support/assertions');

test('spec example: C = 0.2 * A + B', async () => {
  const context = await ml.createContext();
  assert.ok(context instanceof MLContext);
  const builder = new MLGraphBuilder(context);
  const desc = f32([2, 2]);
  const A = builder.input('A', desc);
  const B = builder.input('B', desc);
  const C = builder.add(builder.mul(A, builder.constant(desc.dataType, 0.2)), B);
  const graph = await builder.build({ C });
  assert.ok(graph instanceof MLGraph);

  const [inputTensorA, inputTensorB, outputTensorC] = await Promise.all([
    context.createTensor({ ...desc, writable: true }),
    context.createTensor({ ...desc, writable: true }),
    context.createTensor({ ...desc, readable: true }),
  ]);
  assert.ok(inputTensorA instanceof MLTensor);
  assert.equal(context.writeTensor(inputTensorA, new Float32Array(4).fill(1.0)), undefined);
  context.writeTensor(inputTensorB, new Float32Array(4).fill(0.8));
  assert.equal(context.dispatch(graph, { A: inputTensorA, B: inputTensorB }, { C: outputTensorC }), undefined);
  const buffer = await context.readTensor(outputTensorC);
  assert.ok(buffer instanceof ArrayBuffer);
  const expected = Math.fround(Math.fround(Math.fround(0.2) * 1) + Math.fround(0.8));
  assert.deepEqual([...new Float32Array(buffer)], [expected, expected, expected, expected]);
  context.destroy();
});

test('same example through navigator.ml (require("webnn-node/global"))', async () => {
  require('../lib/global');
  assert.equal(navigator.ml, require('..').ml);
  assert.equal(globalThis.MLGraphBuilder, MLGraphBuilder);
  assert.equal(Object.getOwnPropertyDescriptor(globalThis, 'MLTensor').enumerable, false);
  const context = await navigator.ml.createContext({ powerPreference: 'low-power' });
  const builder = new globalThis.MLGraphBuilder(context);
  const a = builder.input('a', f32([3]));
  const graph = await builder.build({ out: builder.sub(a, builder.constant('float32', 1)) });
  const ta = await context.createTensor({ ...f32([3]), writable: true });
  const tout = await context.createTensor({ ...f32([3]), readable: true });
  context.writeTensor(ta, new Float32Array([1, 2, 3]));
  context.dispatch(graph, { a: ta }, { out: tout });
  assert.deepEqual([...new Float32Array(await context.readTensor(tout))], [0, 1, 2]);
  context.destroy();
});

test('MLTensor explainer: one input and one output tensor reused across three graphs', async () => {
  const context = await ml.createContext();
  const desc = f32([4]);
  const graphs = [];
  for (const [op, k] of [['add', 1], ['mul', 2], ['sub', 3]]) {
    const builder = new MLGraphBuilder(context);
    const x = builder.input('x', desc);
    graphs.push(await builder.build({ y: builder[op](x, builder.constant('float32', k)) }));
  }
  const input = await context.createTensor({ ...desc, writable: true });
  const output = await context.createTensor({ ...desc, readable: true });
  context.writeTensor(input, new Float32Array([1, 2, 3, 4]));
  // Queue all three before reading: every read sees exactly the work queued before it.
  const reads = [];
  for (const graph of graphs) {
    context.dispatch(graph, { x: input }, { y: output });
    reads.push(context.readTensor(output));
  }
  const results = (await Promise.all(reads)).map((b) => [...new Float32Array(b)]);
  assert.deepEqual(results, [
    [2, 3, 4, 5],
    [2, 4, 6, 8],
    [-2, -1, 0, 1],
  ]);
  // A write queued after a dispatch does not change that dispatch's inputs.
  context.dispatch(graphs[0], { x: input }, { y: output });
  context.writeTensor(input, new Float32Array([10, 20, 30, 40]));
  const first = context.readTensor(output);
  context.dispatch(graphs[1], { x: input }, { y: output });
  assert.deepEqual([...new Float32Array(await first)], [2, 3, 4, 5]);
  assert.deepEqual([...new Float32Array(await context.readTensor(output))], [20, 40, 60, 80]);
  context.destroy();
});

test('MLTensor explainer: chained inference, the output of one graph feeding the next', async () => {
  const context = await ml.createContext();
  const desc = f32([2]);
  const b1 = new MLGraphBuilder(context);
  const x1 = b1.input('input', desc);
  const double = await b1.build({ output: b1.mul(x1, b1.constant('float32', 2)) });
  const b2 = new MLGraphBuilder(context);
  const x2 = b2.input('input', desc);
  const plusOne = await b2.build({ output: b2.add(x2, b2.constant('float32', 1)) });

  const input = await context.createTensor({ ...desc, writable: true });
  const intermediate = await context.createTensor(desc);
  const output = await context.createTensor({ ...desc, readable: true });
  context.writeTensor(input, new Float32Array([3, 5]));
  context.dispatch(double, { input }, { output: intermediate });
  context.dispatch(plusOne, { input: intermediate }, { output });
  assert.deepEqual([...new Float32Array(await context.readTensor(output))], [7, 11]);
  context.destroy();
});

test('MLTensor explainer: Fibonacci by chained dispatches rotating three tensors', async () => {
  const context = await ml.createContext();
  const desc = { dataType: 'int32', shape: [1] };
  const builder = new MLGraphBuilder(context);
  const graph = await builder.build({ next: builder.add(builder.input('a', desc), builder.input('b', desc)) });
  const tensors = await Promise.all([0, 1, 2].map(() => context.createTensor({ ...desc, readable: true, writable: true })));
  context.writeTensor(tensors[0], new Int32Array([0]));
  context.writeTensor(tensors[1], new Int32Array([1]));
  const n = 40;
  for (let i = 2; i <= n; i++) {
    context.dispatch(graph, { a: tensors[(i - 2) % 3], b: tensors[(i - 1) % 3] }, { next: tensors[i % 3] });
  }
  const fib = [0, 1];
  for (let i = 2; i <= n; i++) fib.push(fib[i - 1] + fib[i - 2]);
  assert.deepEqual([...new Int32Array(await context.readTensor(tensors[n % 3]))], [fib[n]]);
  // The two tensors before it hold fib(n - 1) and fib(n - 2) (read into caller buffers).
  const prev = new Int32Array(1);
  assert.equal(await context.readTensor(tensors[(n - 1) % 3], prev), undefined);
  assert.deepEqual([...prev], [fib[n - 1]]);
  context.destroy();
});

test('constants of every kind feed a graph: buffer, scalar bigint, constant tensor', async () => {
  const context = await ml.createContext();
  const desc = { dataType: 'int64', shape: [3] };
  const constantTensor = await context.createConstantTensor(desc, new BigInt64Array([100n, 200n, 300n]));
  assert.equal(constantTensor.constant, true);
  assert.equal(constantTensor.readable, false);
  const builder = new MLGraphBuilder(context);
  const x = builder.input('x', desc);
  const big = 2n ** 62n;
  const sum = builder.add(
    builder.add(x, builder.constant(desc, new BigInt64Array([1n, 2n, 3n]))),
    builder.add(builder.constant(constantTensor), builder.constant('int64', big)),
  );
  const graph = await builder.build({ sum });
  const tx = await context.createTensor({ ...desc, writable: true });
  const tout = await context.createTensor({ ...desc, readable: true });
  context.writeTensor(tx, new BigInt64Array([10n, 20n, 30n]));
  context.dispatch(graph, { x: tx }, { sum: tout });
  assert.deepEqual([...new BigInt64Array(await context.readTensor(tout))], [big + 111n, big + 222n, big + 333n]);
  context.destroy();
});

test('float16 data through Uint16Array bits (decisions.md D1)', async () => {
  const context = await ml.createContext();
  const desc = { dataType: 'float16', shape: [2] };
  const builder = new MLGraphBuilder(context);
  const x = builder.input('x', desc);
  // 1.5 = 0x3E00, 2.0 = 0x4000
  const y = builder.add(x, builder.constant(desc, new Uint16Array([0x3e00, 0x4000])));
  const graph = await builder.build({ y });
  const tx = await context.createTensor({ ...desc, writable: true });
  const ty = await context.createTensor({ ...desc, readable: true });
  context.writeTensor(tx, new Uint16Array([0x3c00, 0x3c00])); // 1.0, 1.0
  context.dispatch(graph, { x: tx }, { y: ty });
  assert.deepEqual([...new Uint16Array(await context.readTensor(ty))], [0x4100, 0x4200]); // 2.5, 3.0
  context.destroy();
});
