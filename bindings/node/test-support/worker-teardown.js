'use strict';
// A Node worker torn down while the addon still has work in flight for it: pending
// readTensor() promises (settled from the context's timeline thread), dispatches, a `lost`
// callback. Run as a child process by test/teardown.test.js:
//   node worker-teardown.js MODE ROUNDS
// MODE is `exit` (the worker calls process.exit(0) with reads pending), `terminate` (the
// parent terminates the worker while it reads) or `natural` (the worker's script ends with
// reads pending: they keep it alive until they settle, and the last one posts its value), or
// `mainexit` (the main thread calls process.exit(0) while it and 3 workers read).
// Prints `ok MODE N` and exits 0 unless the process aborts or a read is lost.

const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const path = require('node:path');

async function parent() {
  const mode = process.argv[2] || 'exit';
  const rounds = Number(process.argv[3] || 4);
  if (mode === 'mainexit') return mainExit();
  let done = 0;
  for (let round = 0; round < rounds; round++) {
    await new Promise((resolve, reject) => {
      const worker = new Worker(__filename, { workerData: { mode, round } });
      let last = null;
      worker.on('message', (m) => {
        if (m === 'reading' && mode === 'terminate') worker.terminate();
        if (Array.isArray(m)) last = m;
      });
      worker.on('error', reject);
      worker.on('exit', (code) => {
        if (mode !== 'natural') return resolve();
        if (code !== 0 || last === null || last[0] !== round) {
          return reject(new Error(`natural end: exit code ${code}, last read ${JSON.stringify(last)}`));
        }
        resolve();
      });
    });
    done++;
  }
  console.log(`ok ${mode} ${done}`);
}

async function mainExit() {
  const { ml } = require(path.join(__dirname, '..'));
  let reading = 0;
  for (let i = 0; i < 3; i++) {
    const worker = new Worker(__filename, { workerData: { mode: 'terminate', round: i } });
    worker.on('message', () => reading++);
  }
  const context = await ml.createContext();
  const t = await context.createTensor({ dataType: 'float32', shape: [1 << 14], readable: true });
  for (;;) {
    for (let i = 0; i < 100; i++) context.readTensor(t).catch(() => {});
    await context.readTensor(t);
    if (reading === 3) break;
  }
  for (let i = 0; i < 1000; i++) context.readTensor(t).catch(() => {});
  console.log('ok mainexit 1');
  process.exit(0);
}

async function child() {
  const { ml, MLGraphBuilder } = require(path.join(__dirname, '..'));
  const { mode, round } = workerData;
  const context = await ml.createContext();
  context.lost.then(() => {});
  const desc = { dataType: 'float32', shape: [1 << 14] };
  const b = new MLGraphBuilder(context);
  let y = b.input('x', desc);
  for (let i = 0; i < 8; i++) y = b.add(b.mul(y, b.constant('float32', 1.0001)), b.constant('float32', 0.5));
  const graph = await b.build({ y });
  const x = await context.createTensor({ ...desc, writable: true, readable: true });
  const t = await context.createTensor({ ...desc, writable: true, readable: true });
  // A second context whose reads are pending too.
  const other = await ml.createContext();
  const u = await other.createTensor({ ...desc, readable: true });
  context.writeTensor(x, new Float32Array(desc.shape[0]).fill(round));
  for (let i = 0; i < 1000; i++) {
    if (i % 10 === 0) context.dispatch(graph, { x }, { y: t });
    context.readTensor(t).catch(() => {});
    context.readTensor(x, new Float32Array(desc.shape[0])).catch(() => {});
    other.readTensor(u).catch(() => {});
  }
  if (mode === 'exit') process.exit(0);
  if (mode === 'natural') {
    // Nothing else keeps this worker alive: the pending reads must, until they settle.
    context.readTensor(x).then((buffer) => parentPort.postMessage([new Float32Array(buffer)[0]]));
    return;
  }
  parentPort.postMessage('reading');
  // Keep the timeline busy until the parent terminates us.
  for (;;) {
    for (let i = 0; i < 100; i++) {
      context.dispatch(graph, { x }, { y: t });
      context.readTensor(t).catch(() => {});
    }
    await context.readTensor(t);
  }
}

(isMainThread ? parent() : child()).catch((e) => {
  console.error(e);
  process.exit(1);
});
