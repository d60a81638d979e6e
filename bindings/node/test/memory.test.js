'use strict';
// Native memory is reported to V8 (issue 10): builders, graphs and tensors tell the garbage
// collector what they hold, so dropping them without destroy() does not exhaust memory while
// the JS heap looks tiny. Before the fix, a loop building graphs with large intermediates and
// dropping them grew without bound (the graphs were never collected) until the process died.
//
// The loop runs in a child process (test-support/memory-churn.js) with a 32 MiB V8 heap; the
// child stops itself once its resident set passes the limit, and runs under `prlimit --as` where
// available, so a regression cannot hurt the machine.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const script = path.join(__dirname, '..', 'test-support', 'memory-churn.js');
const ROUNDS = 24; // 24 graphs x 64 MiB of intermediates = 1.5 GiB if none were collected
const LIMIT_MIB = 512;

function prlimit() {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const file = path.join(dir, 'prlimit');
    if (fs.existsSync(file)) return [file, `--as=${6 * 2 ** 30}`];
  }
  return [];
}

test('graphs with large intermediates dropped without destroy(): collected, resident set bounded', () => {
  const node = [process.execPath, '--max-old-space-size=32', script, String(ROUNDS), '32', String(LIMIT_MIB)];
  const [cmd, ...args] = [...prlimit(), ...node];
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000 });
  const output = `${r.stdout}${r.stderr}`.slice(-2000);
  assert.equal(r.signal, null, `killed by ${r.signal}: ${output}`);
  assert.equal(r.status, 0, `exit code ${r.status}: ${output}`);
  const match = /^ok (\d+) (\d+)$/m.exec(r.stdout);
  assert.ok(match, output);
  assert.equal(Number(match[1]), ROUNDS);
  assert.ok(Number(match[2]) <= LIMIT_MIB, output);
});
