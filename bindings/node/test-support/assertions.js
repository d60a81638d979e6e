'use strict';
// Assertions shared by the tests in ../test (kept outside test/ so that node --test does
// not run it as a test file).

const assert = require('node:assert/strict');

/** Asserts that `fn` throws a TypeError (optionally whose message matches `re`). */
function throwsType(fn, re) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof TypeError, `expected a TypeError, got ${e && e.name}: ${e && e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

/** Asserts that `fn` throws a DOMException named `name`. */
function throwsDom(fn, name, re) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof DOMException, `expected a DOMException, got ${e && e.name}: ${e && e.message}`);
    assert.equal(e.name, name, e.message);
    if (re) assert.match(e.message, re);
    return true;
  });
}

/** Asserts that the promise rejects with a TypeError. */
async function rejectsType(promise, re) {
  assert.ok(promise instanceof Promise, 'expected a promise');
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof TypeError, `expected a TypeError, got ${e && e.name}: ${e && e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

/** Asserts that the promise rejects with a DOMException named `name`. */
async function rejectsDom(promise, name, re) {
  assert.ok(promise instanceof Promise, 'expected a promise');
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof DOMException, `expected a DOMException, got ${e && e.name}: ${e && e.message}`);
    assert.equal(e.name, name, e.message);
    if (re) assert.match(e.message, re);
    return true;
  });
}

const f32 = (shape) => ({ dataType: 'float32', shape });

module.exports = { throwsType, throwsDom, rejectsType, rejectsDom, f32 };
