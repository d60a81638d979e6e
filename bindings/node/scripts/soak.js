#!/usr/bin/env node
'use strict';
// Soak test of the Node binding (issue 10): several worker threads, each with its own contexts,
// run a random mix of createTensor / writeTensor / dispatch (chained graphs) / readTensor /
// destroy() (tensors, graphs, contexts) and check every read against a model of the tensors
// kept in call order: a read must see exactly the writes and dispatches issued before it, or
// reject with InvalidStateError when its tensor or context was destroyed before the read settled
// (and must reject when destroyed in the same turn). The parent terminates workers mid-flight,
// some workers process.exit() with work pending, and the main thread churns too.
//
// Usage: node scripts/soak.js [SECONDS=20] [WORKERS=4] [SEED]
// Last line: `soak: ...` with the counts; exit code 0 unless a read was wrong, a promise never
// settled, a worker failed, or the process did not wind down.

const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const path = require('node:path');

const N = 256; // elements per tensor
const POOL = 6; // tensors per context
const LIMIT = 1 << 22; // values stay integers below 2^24, so float32 arithmetic is exact

/** xorshift32: a small deterministic PRNG. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return { int: (n) => next() % n, chance: (p) => next() / 2 ** 32 < p };
}

function newStats() {
  return { reads: 0, rejected: 0, writes: 0, dispatches: 0, tensorsDestroyed: 0, graphsDestroyed: 0, contexts: 0 };
}

/**
 * Runs the random mix until `stop()` is true. `stats` counts what was checked; a wrong read
 * throws.
 */
async function churn(api, seed, stats, stop, hooks = {}) {
  const { ml, MLGraphBuilder } = api;
  const r = rng(seed);
  const desc = { dataType: 'float32', shape: [N] };
  let pendingReads = [];

  async function buildGraphs(context) {
    const b1 = new MLGraphBuilder(context);
    const x = b1.input('x', desc);
    // y = x * 2 + 1
    const g1 = await b1.build({ y: b1.add(b1.mul(x, b1.constant('float32', 2)), b1.constant('float32', 1)) });
    const b2 = new MLGraphBuilder(context);
    // z = a + b - 3, and w = max(a, b)
    const a = b2.input('a', desc);
    const b = b2.input('b', desc);
    const g2 = await b2.build({ z: b2.sub(b2.add(a, b), b2.constant('float32', 3)), w: b2.max(a, b) });
    return { g1, g2 };
  }

  async function newContext() {
    const context = await ml.createContext();
    stats.contexts++;
    const tensors = [];
    for (let i = 0; i < POOL; i++) tensors.push(await newTensor(context));
    return { context, tensors, graphs: await buildGraphs(context) };
  }

  async function newTensor(context) {
    const tensor = await context.createTensor({ ...desc, readable: true, writable: true });
    return { tensor, model: new Float32Array(N), destroyedAt: 0 };
  }

  /** Distinct random tensor indices. */
  function pick(k) {
    const chosen = [];
    while (chosen.length < k) {
      const i = r.int(POOL);
      if (!chosen.includes(i)) chosen.push(i);
    }
    return chosen;
  }

  let epoch = 0; // bumped by every destroy(): reads issued before may reject
  function read(c, i, mustReject = false) {
    const t = c.tensors[i];
    const expected = t.model.slice();
    const byob = r.chance(0.3);
    const out = byob ? new Float32Array(N) : null;
    const promise = byob ? c.context.readTensor(t.tensor, out) : c.context.readTensor(t.tensor);
    // Handled at once (checked later): a rejection is never unhandled.
    const result = promise.then(
      (value) => ({ value }),
      (error) => ({ error }),
    );
    pendingReads.push({ result, expected, out, slot: t, context: c, epoch, mustReject });
  }

  async function check(p) {
    const { value, error: e } = await p.result;
    if (e !== undefined) {
      const destroyed = p.slot.destroyedAt > p.epoch || p.context.destroyedAt > p.epoch;
      if (e && e.name === 'InvalidStateError' && destroyed) {
        stats.rejected++;
        return;
      }
      throw new Error(`read rejected unexpectedly (${e && e.name}: ${e && e.message})`);
    }
    if (p.mustReject) throw new Error('a read followed by destroy() in the same turn resolved');
    const got = p.out ?? new Float32Array(value);
    for (let k = 0; k < N; k++) {
      if (got[k] !== p.expected[k]) {
        throw new Error(`read mismatch at ${k}: got ${got[k]}, expected ${p.expected[k]} (seed ${seed})`);
      }
    }
    stats.reads++;
  }

  async function drain() {
    const reads = pendingReads;
    pendingReads = [];
    for (const p of reads) await check(p);
  }

  let c = await newContext();
  let actions = 0;
  while (!stop()) {
    actions++;
    const roll = r.int(100);
    if (roll < 20) {
      // writeTensor
      const [i] = pick(1);
      const data = new Float32Array(N);
      for (let k = 0; k < N; k++) data[k] = r.int(1000);
      c.context.writeTensor(c.tensors[i].tensor, data);
      c.tensors[i].model = data;
      stats.writes++;
    } else if (roll < 50) {
      // A chain: g1 x -> y, then g2 (y, b) -> (z, w), without reading in between.
      const [x, y, b, z, w] = pick(5);
      const T = c.tensors;
      for (const i of [x, b]) {
        if (T[i].model.some((v) => Math.abs(v) >= LIMIT)) {
          const data = new Float32Array(N).fill(r.int(100));
          c.context.writeTensor(T[i].tensor, data);
          T[i].model = data;
          stats.writes++;
        }
      }
      c.context.dispatch(c.graphs.g1, { x: T[x].tensor }, { y: T[y].tensor });
      T[y].model = T[x].model.map((v) => v * 2 + 1);
      c.context.dispatch(c.graphs.g2, { a: T[y].tensor, b: T[b].tensor }, { z: T[z].tensor, w: T[w].tensor });
      const a = T[y].model;
      const bb = T[b].model;
      T[z].model = a.map((v, k) => v + bb[k] - 3);
      T[w].model = a.map((v, k) => Math.max(v, bb[k]));
      stats.dispatches += 2;
    } else if (roll < 85) {
      read(c, pick(1)[0]);
    } else if (roll < 89) {
      // Reads then destroy() in the same turn: they must reject.
      const [i] = pick(1);
      read(c, i, true);
      read(c, i, true);
      c.tensors[i].tensor.destroy();
      c.tensors[i].destroyedAt = ++epoch;
      stats.tensorsDestroyed++;
      c.tensors[i] = await newTensor(c.context);
    } else if (roll < 92) {
      // Destroy a tensor with reads in flight from earlier turns.
      const [i] = pick(1);
      c.tensors[i].tensor.destroy();
      c.tensors[i].destroyedAt = ++epoch;
      stats.tensorsDestroyed++;
      c.tensors[i] = await newTensor(c.context);
    } else if (roll < 95) {
      // Rebuild the graphs; dispatches queued with the old ones still complete.
      c.graphs.g1.destroy();
      c.graphs.g2.destroy();
      stats.graphsDestroyed += 2;
      c.graphs = await buildGraphs(c.context);
    } else if (roll < 99) {
      await drain();
    } else {
      // Lose the whole context with work in flight.
      read(c, pick(1)[0], true);
      c.context.destroy();
      c.destroyedAt = ++epoch;
      c = await newContext();
    }
    if (pendingReads.length > 16) await drain();
    if (hooks.onAction) hooks.onAction(actions);
    // Let the event loop run now and then (settlements, messages, termination).
    if (actions % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await drain();
  c.context.destroy();
}

// ---------------------------------------------------------------------------------------------

async function worker() {
  const api = require(path.join(__dirname, '..'));
  const { seed, exitAfter } = workerData;
  const stats = newStats();
  let sent = newStats();
  const report = () => {
    const delta = {};
    for (const k of Object.keys(stats)) delta[k] = stats[k] - sent[k];
    sent = { ...stats };
    parentPort.postMessage({ stats: delta });
  };
  const timer = setInterval(report, 100);
  let stopping = false;
  parentPort.on('message', (m) => {
    if (m === 'stop') stopping = true;
  });
  try {
    await churn(api, seed, stats, () => stopping, {
      onAction(n) {
        // Some workers leave abruptly, with reads and dispatches in flight.
        if (exitAfter && n >= exitAfter) {
          report();
          process.exit(0);
        }
      },
    });
    clearInterval(timer);
    report();
    parentPort.postMessage({ done: true });
  } catch (e) {
    clearInterval(timer);
    report();
    parentPort.postMessage({ error: String((e && e.stack) || e) });
  }
  // Nothing left to wait for: the worker ends when its event loop is empty (a port with a
  // listener keeps it alive even after the listener is removed).
  parentPort.removeAllListeners('message');
  parentPort.unref();
}

async function main() {
  const seconds = Number(process.argv[2] || 20);
  const workers = Number(process.argv[3] || 4);
  const seed0 = Number(process.argv[4] || Date.now() % 1e9);
  const api = require(path.join(__dirname, '..'));
  const started = Date.now();
  const deadline = started + seconds * 1000;
  const total = newStats();
  const errors = [];
  const counts = { started: 0, terminated: 0, exited: 0, finished: 0 };
  const live = new Set();
  const r = rng(seed0);
  let nextSeed = seed0;

  function spawn() {
    const seed = ++nextSeed;
    // Half of the workers exit by themselves after a random number of actions, the others are
    // terminated by this thread after a random time; those alive at the deadline are asked to
    // stop and must finish cleanly.
    const fate = r.int(2);
    const exitAfter = fate === 0 ? 50 + r.int(20000) : 0;
    const w = new Worker(__filename, { workerData: { seed, exitAfter } });
    counts.started++;
    const entry = { w, seed, exited: null, terminating: false, done: false };
    live.add(entry);
    w.on('message', (m) => {
      if (m.stats) for (const k of Object.keys(total)) total[k] += m.stats[k];
      if (m.error) errors.push(`worker seed ${seed}: ${m.error}`);
      if (m.done) {
        entry.done = true;
        counts.finished++;
      }
    });
    w.on('error', (e) => errors.push(`worker seed ${seed}: ${(e && e.stack) || e}`));
    entry.exited = new Promise((resolve) =>
      w.on('exit', (code) => {
        live.delete(entry);
        if (!entry.terminating && !entry.done) counts.exited++;
        if (!entry.terminating && code !== 0) errors.push(`worker seed ${seed} exited with ${code}`);
        resolve();
      }),
    );
    if (fate === 1) {
      setTimeout(() => {
        if (!live.has(entry)) return;
        entry.terminating = true;
        counts.terminated++;
        w.terminate();
      }, 100 + r.int(2000));
    }
  }

  for (let i = 0; i < workers; i++) spawn();
  // Keep `workers` alive until the deadline.
  const refill = setInterval(() => {
    if (Date.now() >= deadline) return;
    while (live.size < workers) spawn();
  }, 50);

  // The main thread churns too.
  const mainStats = newStats();
  let mainError = null;
  await churn(api, seed0, mainStats, () => Date.now() >= deadline).catch((e) => {
    mainError = e;
  });
  clearInterval(refill);
  for (const k of Object.keys(total)) total[k] += mainStats[k];
  if (mainError) errors.push(`main thread: ${(mainError && mainError.stack) || mainError}`);

  // Wind down: ask the rest to stop; any that does not within 20 s counts as a hang.
  const rest = [...live];
  for (const e of rest) e.w.postMessage('stop');
  const hang = new Promise((resolve) => setTimeout(() => resolve('hang'), 20_000).unref());
  const result = await Promise.race([Promise.all(rest.map((e) => e.exited)), hang]);
  if (result === 'hang') {
    errors.push(`${live.size} worker(s) did not stop within 20 s`);
    for (const e of live) e.w.terminate();
  }

  for (const e of errors) console.error(`FAIL ${e}`);
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `soak: ${secs} s, seed ${seed0}, ${counts.started} workers (${counts.terminated} terminated mid-flight, ` +
      `${counts.exited} exited mid-flight, ${counts.finished} finished), ${total.contexts} contexts, ` +
      `${total.dispatches} dispatches, ${total.writes} writes, ${total.reads} reads checked, ` +
      `${total.rejected} reads rejected by destroy(), ${total.tensorsDestroyed} tensors and ` +
      `${total.graphsDestroyed} graphs destroyed, ${errors.length} failures`,
  );
  process.exitCode = errors.length ? 1 : 0;
}

if (isMainThread) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  worker();
}
