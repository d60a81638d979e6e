'use strict';
// A short run of scripts/soak.js (workers terminated or exiting mid-flight, every read checked
// against the call order); .ci/run runs it for longer.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

test('soak (4 s): every read as ordered, workers torn down mid-flight, the process exits 0', () => {
  const script = path.join(__dirname, '..', 'scripts', 'soak.js');
  const r = spawnSync(process.execPath, [script, '4', '3'], { encoding: 'utf8', timeout: 60_000 });
  const output = `${r.stdout}${r.stderr}`.slice(-3000);
  assert.equal(r.signal, null, `killed by ${r.signal}: ${output}`);
  assert.equal(r.status, 0, `exit code ${r.status}: ${output}`);
  assert.match(r.stdout, /^soak: .* 0 failures$/m, output);
});
