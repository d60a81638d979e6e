'use strict';
// [[pendingPromises]] and destroy() in the same turn (issue 10). A read leaves the tensor's
// [[pendingPromises]] only in the queued task that settles it, so a destroy() later in the same
// JavaScript turn rejects it with InvalidStateError even when the timeline has already copied
// the bytes. The tensors are tiny and the timeline idle, so the timeline usually finishes the
// first read before destroy() runs: looped to catch a race that shows 1 time in 10.

const test = require('node:test');
const assert = require('node:assert/strict');
const { ml } = require('..');
const { rejectsDom } = require('../test-support/assertions');

const ROUNDS = 200;
const desc = { dataType: 'float32', shape: [4], readable: true, writable: true };

/** Waits until the timeline has had time to finish everything queued so far. */
function settle() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

test('readTensor(t); readTensor(t); t.destroy() in one turn: both reads reject with InvalidStateError', async () => {
  const context = await ml.createContext();
  for (let i = 0; i < ROUNDS; i++) {
    const t = await context.createTensor(desc);
    context.writeTensor(t, new Float32Array([i, i, i, i]));
    await context.readTensor(t); // the timeline is idle now
    const a = context.readTensor(t);
    const b = context.readTensor(t, new Float32Array(4));
    t.destroy();
    await rejectsDom(a, 'InvalidStateError', /destroyed/);
    await rejectsDom(b, 'InvalidStateError', /destroyed/);
    if (i % 20 === 0) await settle();
  }
  context.destroy();
});

test('readTensor(t); context.destroy() in one turn: the read rejects with InvalidStateError', async () => {
  for (let i = 0; i < ROUNDS; i++) {
    const context = await ml.createContext();
    const t = await context.createTensor(desc);
    await context.readTensor(t); // the timeline is idle now
    const a = context.readTensor(t);
    const b = context.readTensor(t, new Float32Array(4));
    context.destroy();
    await rejectsDom(a, 'InvalidStateError', /lost/);
    await rejectsDom(b, 'InvalidStateError', /lost/);
    assert.match((await context.lost).message, /destroy/);
  }
});

test('a read that settled before destroy() keeps its value; reads after it see the writes before them', async () => {
  const context = await ml.createContext();
  const t = await context.createTensor(desc);
  const reads = [];
  for (let i = 0; i < 50; i++) {
    context.writeTensor(t, new Float32Array([i, i + 1, i + 2, i + 3]));
    reads.push(context.readTensor(t));
  }
  for (let i = 0; i < 50; i++) assert.deepEqual([...new Float32Array(await reads[i])], [i, i + 1, i + 2, i + 3]);
  t.destroy();
  context.destroy();
});
