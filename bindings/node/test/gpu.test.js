'use strict';
// createContext({accelerated: true}) reaches the GPU backend: automatically where a hardware GPU
// exists, and on any wgpu adapter (Mesa's lavapipe in CI) when WEBNN_DEVICE=gpu pins it. Without
// an adapter the test says it skipped, unless WEBNN_REQUIRE_GPU is set (then it fails).

const test = require('node:test');
const assert = require('node:assert/strict');
const { ml, MLGraphBuilder } = require('..');

test('a GPU context runs a graph and reports its own limits', async (t) => {
  const saved = process.env.WEBNN_DEVICE;
  process.env.WEBNN_DEVICE = 'gpu';
  let context;
  try {
    context = await ml.createContext({ accelerated: true });
  } catch (e) {
    assert.equal(e.name, 'NotSupportedError', String(e));
    assert.ok(!process.env.WEBNN_REQUIRE_GPU, `WEBNN_REQUIRE_GPU is set but: ${e.message}`);
    t.skip(`no wgpu adapter: ${e.message}`);
    return;
  } finally {
    if (saved === undefined) delete process.env.WEBNN_DEVICE;
    else process.env.WEBNN_DEVICE = saved;
  }
  assert.equal(context.accelerated, true);
  const limits = context.opSupportLimits();
  assert.ok(!limits.input.dataTypes.includes('int64'), 'the GPU stores no 64-bit integers');
  const b = new MLGraphBuilder(context);
  assert.throws(() => b.input('big', { dataType: 'int64', shape: [2] }), TypeError);
  const x = b.input('x', { dataType: 'float32', shape: [2, 2] });
  const y = b.relu(b.sub(x, b.constant('float32', 1)));
  const graph = await b.build({ y });
  const tx = await context.createTensor({ dataType: 'float32', shape: [2, 2], writable: true });
  const ty = await context.createTensor({ dataType: 'float32', shape: [2, 2], readable: true });
  context.writeTensor(tx, new Float32Array([0, 1.5, 3, -2]));
  context.dispatch(graph, { x: tx }, { y: ty });
  assert.deepEqual(Array.from(new Float32Array(await context.readTensor(ty))), [0, 0.5, 2, 0]);
  context.destroy();
  const plain = await ml.createContext({ accelerated: false });
  assert.equal(plain.accelerated, false, 'accelerated: false gives the CPU engine');
  plain.destroy();
});
