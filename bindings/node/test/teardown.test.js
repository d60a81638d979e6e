'use strict';
// Torn-down environments (issue 10): a worker that exits, or is terminated, while the addon
// still has reads pending for it must not bring the process down. Before the fix the context's
// timeline thread resolved promises of the dead environment through a threadsafe function that
// Node had already deleted, and the process aborted (exit code 134, every run).
//
// Each case runs test-support/worker-teardown.js in a child process (an abort there must not
// take the test runner with it).

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const script = path.join(__dirname, '..', 'test-support', 'worker-teardown.js');

function runChild(mode, rounds) {
  const r = spawnSync(process.execPath, [script, mode, String(rounds)], { encoding: 'utf8', timeout: 60_000 });
  // The head of stderr names a fatal error (V8 prints its message before the stack), the
  // tail holds the last lines the script wrote.
  const output = `${r.stdout}${r.stderr.slice(0, 1500)}\n…\n${r.stderr.slice(-1500)}`;
  assert.equal(r.signal, null, `killed by ${r.signal}: ${output}`);
  assert.equal(r.status, 0, `exit code ${r.status}: ${output}`);
  assert.match(r.stdout, new RegExp(`^ok ${mode} ${rounds}$`, 'm'));
}

test('a worker calling process.exit(0) with 1000s of readTensor() pending: the process exits 0', () => {
  runChild('exit', 6);
});

test('worker.terminate() while the worker reads and dispatches: the process exits 0', () => {
  runChild('terminate', 6);
});

test('a worker whose script ends with reads pending stays alive until they settle, then exits', () => {
  runChild('natural', 3);
});

test('process.exit(0) on the main thread while it and its workers read: the process exits 0', () => {
  runChild('mainexit', 1);
});
