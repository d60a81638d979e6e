'use strict';
// Builds, dispatches once and drops (no destroy()) graphs whose intermediates are large, in a
// process with a small V8 heap: the native memory is reported to V8, so the garbage collector
// finalizes the dropped graphs and the resident set stays bounded. Run as a child process by
// test/memory.test.js:  node --max-old-space-size=32 memory-churn.js ROUNDS MIB LIMIT_MIB [destroy]
// Each graph holds 2 x MIB MiB of intermediates. Prints `ok ROUNDS maxRssMiB`; stops with exit
// code 1 as soon as the resident set passes LIMIT_MIB (so a regression costs little memory).
// With `destroy`, every graph is destroyed after its dispatch (for comparison).

const path = require('node:path');
const { ml, MLGraphBuilder } = require(path.join(__dirname, '..'));

async function main() {
  const rounds = Number(process.argv[2] || 24);
  const mib = Number(process.argv[3] || 32);
  const limit = Number(process.argv[4] || 512) * 2 ** 20;
  const destroy = process.argv[5] === 'destroy';
  const elements = (mib << 20) / 4;
  const context = await ml.createContext();
  const x = await context.createTensor({ dataType: 'float32', shape: [1], writable: true });
  const y = await context.createTensor({ dataType: 'float32', shape: [1], readable: true });
  context.writeTensor(x, new Float32Array([0.5]));
  let maxRss = 0;
  for (let i = 0; i < rounds; i++) {
    const b = new MLGraphBuilder(context);
    // x (1 element) -> `mib` MiB of intermediates -> 1 element.
    const big = b.expand(b.add(b.input('x', { dataType: 'float32', shape: [1] }), b.constant('float32', i)), [elements]);
    const graph = await b.build({ y: b.reduceMax(b.mul(big, big), { keepDimensions: true, axes: [0] }) });
    context.dispatch(graph, { x }, { y });
    const [value] = new Float32Array(await context.readTensor(y));
    if (value !== (0.5 + i) * (0.5 + i)) throw new Error(`round ${i}: ${value}`);
    if (destroy) graph.destroy();
    const rss = process.memoryUsage().rss;
    maxRss = Math.max(maxRss, rss);
    if (rss > limit) {
      console.log(`rss ${Math.round(rss / 2 ** 20)} MiB after ${i + 1} rounds: over the limit`);
      process.exit(1);
    }
  }
  console.log(`ok ${rounds} ${Math.round(maxRss / 2 ** 20)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
