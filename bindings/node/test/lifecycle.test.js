'use strict';
// Lifecycle: destroy() of graphs, tensors and contexts, `lost`, build twice, pending reads,
// and that dispatch / build / readTensor do not block the event loop.

const test = require('node:test');
const assert = require('node:assert/strict');
const { ml, MLGraphBuilder } = require('..');
const { throwsType, throwsDom, rejectsType, rejectsDom, f32 } = require('../test-support/assertions');

async function addOneGraph(context, shape = [2]) {
  const b = new MLGraphBuilder(context);
  return b.build({ y: b.add(b.input('x', f32(shape)), b.constant('float32', 1)) });
}

/** A graph heavy enough to keep the timeline busy for a while: y = x^x^... (n pows). */
async function heavyGraph(context, shape, n) {
  const b = new MLGraphBuilder(context);
  let y = b.input('x', f32(shape));
  for (let i = 0; i < n; i++) y = b.pow(y, b.constant('float32', 1.0001));
  return b.build({ y });
}

/** A new context with a graph that keeps its timeline busy for a while (16 pows over 2^20
 * floats) and its input and output tensors: for tests that act while work is queued. */
async function busyContext() {
  const context = await ml.createContext();
  const shape = [1 << 20];
  const graph = await heavyGraph(context, shape, 16);
  const x = await context.createTensor({ ...f32(shape), writable: true });
  const y = await context.createTensor({ ...f32(shape), readable: true });
  return { context, shape, graph, x, y };
}

test('build twice: the second build rejects with InvalidStateError', async () => {
  const context = await ml.createContext();
  const b = new MLGraphBuilder(context);
  const x = b.input('x', f32([2]));
  const y = b.add(x, x);
  await b.build({ y });
  await rejectsDom(b.build({ y }), 'InvalidStateError', /already built/);
  throwsDom(() => b.add(x, x), 'InvalidStateError');
  context.destroy();
});

test('graph.destroy(): dispatch throws InvalidStateError; destroy is idempotent', async () => {
  const context = await ml.createContext();
  const graph = await addOneGraph(context);
  const x = await context.createTensor({ ...f32([2]), writable: true });
  const y = await context.createTensor({ ...f32([2]), readable: true });
  context.writeTensor(x, new Float32Array([1, 2]));
  context.dispatch(graph, { x }, { y });
  graph.destroy();
  graph.destroy();
  throwsDom(() => context.dispatch(graph, { x }, { y }), 'InvalidStateError', /destroyed/);
  // Work queued before destroy() still completes.
  assert.deepEqual([...new Float32Array(await context.readTensor(y))], [2, 3]);
  context.destroy();
});

test('tensor.destroy(): later use is a TypeError; a pending read rejects with InvalidStateError', async () => {
  const { context, shape, graph, x, y } = await busyContext();
  for (let i = 0; i < 4; i++) context.dispatch(graph, { x }, { y });
  const pending = context.readTensor(y); // queued behind the dispatches
  y.destroy();
  y.destroy();
  await rejectsDom(pending, 'InvalidStateError');
  await rejectsType(context.readTensor(y), /destroyed/);
  throwsType(() => context.dispatch(graph, { x }, { y }), /destroyed/);
  x.destroy();
  throwsType(() => context.writeTensor(x, new Float32Array(shape[0])), /destroyed/);
  context.destroy();
});

test('a constant tensor destroyed before build(): build rejects with TypeError (decisions.md D2)', async () => {
  const context = await ml.createContext();
  const tensor = await context.createConstantTensor(f32([2]), new Float32Array([1, 2]));
  const b = new MLGraphBuilder(context);
  const c = b.constant(tensor);
  const y = b.add(b.input('x', f32([2])), c);
  tensor.destroy();
  await rejectsType(b.build({ y }), /destroyed/);
  throwsType(() => new MLGraphBuilder(context).constant(tensor), /destroyed/);
  context.destroy();
});

test('context.destroy(): lost settles, everything of the context is unusable', async () => {
  const context = await ml.createContext();
  const lost = context.lost;
  assert.ok(lost instanceof Promise);
  assert.equal(context.lost, lost, 'the same promise each time');
  const graph = await addOneGraph(context);
  const b = new MLGraphBuilder(context);
  const x = b.input('x', f32([2]));
  const t = await context.createTensor({ ...f32([2]), readable: true, writable: true });
  let settled = false;
  lost.then(() => {
    settled = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'not lost before destroy()');
  context.destroy();
  context.destroy();
  const info = await lost;
  assert.deepEqual(Object.keys(info), ['message']);
  assert.match(info.message, /destroy/);
  throwsDom(() => b.add(x, x), 'InvalidStateError', /lost/);
  throwsDom(() => new MLGraphBuilder(context), 'InvalidStateError');
  await rejectsDom(context.createTensor(f32([1])), 'InvalidStateError');
  throwsDom(() => context.dispatch(graph, { x: t }, { y: t }), 'InvalidStateError', /destroyed/);
  await rejectsType(context.readTensor(t), /destroyed/);
  throwsType(() => context.writeTensor(t, new Float32Array(2)), /destroyed/);
});

test('context.destroy() rejects pending reads with InvalidStateError', async () => {
  const { context, shape, graph, x, y } = await busyContext();
  for (let i = 0; i < 4; i++) context.dispatch(graph, { x }, { y });
  const reads = [context.readTensor(y), context.readTensor(y, new Float32Array(shape[0]))];
  context.destroy();
  for (const r of reads) await rejectsDom(r, 'InvalidStateError');
  assert.match((await context.lost).message, /destroy/);
});

test('non-blocking: dispatch returns at once and the event loop runs while the timeline works', async () => {
  const { context, shape, graph, x, y } = await busyContext();
  context.writeTensor(x, new Float32Array(shape[0]).fill(2));
  const start = process.hrtime.bigint();
  for (let i = 0; i < 8; i++) context.dispatch(graph, { x }, { y });
  const queued = Number(process.hrtime.bigint() - start) / 1e6;
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const read = context.readTensor(y);
  const buffer = await read;
  clearInterval(timer);
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  assert.ok(queued < elapsed, `queueing took ${queued} ms of ${elapsed} ms`);
  assert.ok(ticks > 0, `the event loop ran ${ticks} timer callbacks while the dispatches ran (${elapsed} ms)`);
  assert.equal(buffer.byteLength, shape[0] * 4);
  context.destroy();
});

test('non-blocking: build() validates synchronously and compiles off the event loop', async () => {
  const context = await ml.createContext();
  const b = new MLGraphBuilder(context);
  let y = b.input('x', f32([4]));
  for (let i = 0; i < 500; i++) y = b.add(y, b.constant('float32', 1));
  const p = b.build({ y });
  assert.ok(p instanceof Promise);
  throwsDom(() => b.input('z', f32([1])), 'InvalidStateError');
  const graph = await p;
  const x = await context.createTensor({ ...f32([4]), writable: true });
  const out = await context.createTensor({ ...f32([4]), readable: true });
  context.writeTensor(x, new Float32Array([0, 1, 2, 3]));
  context.dispatch(graph, { x }, { y: out });
  assert.deepEqual([...new Float32Array(await context.readTensor(out))], [500, 501, 502, 503]);
  context.destroy();
});

test('many contexts, builders and reads settle and the process can exit', async () => {
  const results = [];
  for (let i = 0; i < 4; i++) {
    const context = await ml.createContext();
    const graph = await addOneGraph(context, [1]);
    const x = await context.createTensor({ ...f32([1]), writable: true });
    const y = await context.createTensor({ ...f32([1]), readable: true });
    context.writeTensor(x, new Float32Array([i]));
    context.dispatch(graph, { x }, { y });
    results.push(context.readTensor(y).then((b) => new Float32Array(b)[0]));
  }
  assert.deepEqual(await Promise.all(results), [1, 2, 3, 4]);
  // These contexts are never destroyed: their `lost` promises must not keep node running
  // (node --test would time out otherwise).
});
