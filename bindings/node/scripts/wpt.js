#!/usr/bin/env node
'use strict';
// node scripts/wpt.js [DIR] [--filter TEXT]
//
// Runs every WPT WebNN conformance vector in DIR (default: ../../../shared/wpt relative to this
// package) through the JavaScript API of this package, by the rules of DIR/README.md §4–§6 and
// exactly as the Rust harness (crates/webnn-conformance) does: scalar fill, output descriptor
// check, ULP distance on bit patterns (float16 through dataF16Bits), ATOL, notApplicable cases
// skipped, softmax without axis → axis 1. Prints each failure and skip, and as its last line
// `N passed, M failed, K skipped`. Exits 1 if any case failed.

const fs = require('node:fs');
const path = require('node:path');
const { ml, MLGraphBuilder } = require('..');

// ------------------------------------------------------------------------------------------
// Values (README §4): "NaN", "Infinity", "-Infinity", "-0" and 64-bit integers as strings.

/** A JSON number or special string as a double. */
function number(v) {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    switch (v) {
      case 'NaN':
        return NaN;
      case 'Infinity':
        return Infinity;
      case '-Infinity':
        return -Infinity;
      case '-0':
        return -0;
      default: {
        const x = Number(v);
        if (v.trim() === '' || Number.isNaN(x)) throw new Error(`bad number ${JSON.stringify(v)}`);
        return x;
      }
    }
  }
  throw new Error(`expected a number, got ${JSON.stringify(v)}`);
}

const I128_MAX = (1n << 127n) - 1n;
const I128_MIN = -(1n << 127n);

/** A double truncated to an integer like Rust's `f as i128` (NaN → 0, saturating). */
function truncToBig(x) {
  if (Number.isNaN(x)) return 0n;
  if (x === Infinity) return I128_MAX;
  if (x === -Infinity) return I128_MIN;
  const big = BigInt(Math.trunc(x));
  return big > I128_MAX ? I128_MAX : big < I128_MIN ? I128_MIN : big;
}

/** A JSON integer (number or decimal string) with full 64-bit precision, as a BigInt. */
function integer(v) {
  if (typeof v === 'number') return truncToBig(v);
  if (typeof v === 'string') {
    if (/^[+-]?\d+$/.test(v)) return BigInt(v);
    return truncToBig(number(v));
  }
  throw new Error(`expected an integer, got ${JSON.stringify(v)}`);
}

/** The element values of `data` (an array, or one value meaning "fill"). */
function elements(data, count) {
  return Array.isArray(data) ? data : new Array(count).fill(data);
}

/** float16 bits → number. */
function f16ToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const man = bits & 0x3ff;
  if (exp === 0) return sign * man * 2 ** -24;
  if (exp === 31) return man ? NaN : sign * Infinity;
  return sign * (1 + man / 1024) * 2 ** (exp - 15);
}

function roundHalfEven(q) {
  const f = Math.floor(q);
  const d = q - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** A double → float16 bits, rounding to nearest even (like Rust's `half::f16::from_f64`). */
function f16FromNumber(x) {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | roundHalfEven(a * 2 ** 24);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  let m = roundHalfEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  return sign | ((e + 15) << 10) | m;
}

const ARRAYS = {
  float32: Float32Array,
  float16: Uint16Array, // decisions.md D1: float16 data as raw bits
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  int8: Int8Array,
  uint8: Uint8Array,
};
const INT_BITS = { int32: [32, true], uint32: [32, false], int64: [64, true], uint64: [64, false], int8: [8, true], uint8: [8, false] };

/** The typed array holding `data` (and `f16Bits` for float16) for `count` elements. */
function encode(data, f16Bits, dataType, count) {
  if (!Array.isArray(data) && (f16Bits === undefined || !Array.isArray(f16Bits))) {
    // A scalar fill (some vectors fill 36M elements): convert once, fill the typed array.
    const one = encode([data], f16Bits === undefined ? undefined : [f16Bits], dataType, 1);
    return new ARRAYS[dataType](count).fill(one[0]);
  }
  const values = elements(data, count);
  if (values.length !== count) throw new Error(`${values.length} values for ${count} elements`);
  const out = new ARRAYS[dataType](count);
  if (dataType === 'float16') {
    if (f16Bits !== undefined) {
      elements(f16Bits, count).forEach((b, i) => {
        out[i] = Number(BigInt.asUintN(16, integer(b)));
      });
    } else {
      values.forEach((v, i) => {
        out[i] = f16FromNumber(number(v));
      });
    }
    return out;
  }
  if (dataType === 'float32') {
    values.forEach((v, i) => {
      out[i] = number(v);
    });
    return out;
  }
  const [bits, signed] = INT_BITS[dataType];
  values.forEach((v, i) => {
    const wrapped = signed ? BigInt.asIntN(bits, integer(v)) : BigInt.asUintN(bits, integer(v));
    out[i] = bits === 64 ? wrapped : Number(wrapped);
  });
  return out;
}

// ------------------------------------------------------------------------------------------
// Comparison (README §5).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 sign-magnitude mapping: (x < 0 ? -1 : 1) * bits32(f32(|x|)). */
function f32Ordinal(x) {
  f32[0] = Math.abs(x);
  return x < 0 ? -u32[0] : u32[0];
}

function atolError(a, e) {
  return Number.isFinite(a) && Number.isFinite(e) ? Math.abs(a - e) : Infinity;
}

/**
 * Compares the output bytes with `expected` (and `expectedF16Bits`) under `tolerance`;
 * returns the worst failing element, or null.
 */
function compare(buffer, dataType, expected, expectedF16Bits, tolerance) {
  const actual = new ARRAYS[dataType](buffer);
  const size = actual.length;
  let expectedValues;
  let count;
  if (Array.isArray(expected)) {
    expectedValues = expected;
    count = expected.length;
    if (count !== size) throw new Error(`expected ${count} values, the output has ${size}`);
  } else {
    count = size > 1 ? Math.min(size, 1000) : 1;
    expectedValues = new Array(count).fill(expected);
  }
  const f16Bits = expectedF16Bits === undefined ? undefined : elements(expectedF16Bits, count);
  const ulp = tolerance.metric === 'ULP';
  let worst = null;
  for (let i = 0; i < count; i++) {
    const exp = expectedValues[i];
    let error;
    let act;
    let expStr;
    if (dataType === 'float32') {
      const a = actual[i];
      const e = number(exp);
      if (!ulp) error = atolError(a, e);
      else if (a === e || (Number.isNaN(a) && Number.isNaN(e))) error = 0;
      else if (Number.isNaN(a) || Number.isNaN(e)) error = Infinity;
      else error = Math.abs(f32Ordinal(a) - f32Ordinal(e));
      act = String(a);
      expStr = String(e);
    } else if (dataType === 'float16') {
      const aBits = actual[i];
      const a = f16ToNumber(aBits);
      const e = number(exp);
      if (!ulp) error = atolError(a, e);
      else {
        const bBits = f16Bits !== undefined ? Number(BigInt.asUintN(16, integer(f16Bits[i]))) : f16FromNumber(e);
        error = (aBits & 0x7fff) === 0 && (bBits & 0x7fff) === 0 ? 0 : Math.abs(aBits - bBits);
      }
      act = `${a} (0x${aBits.toString(16).padStart(4, '0')})`;
      expStr = String(e);
    } else {
      const a = BigInt(actual[i]);
      const e = integer(exp);
      if (!ulp) error = atolError(Number(a), Number(e));
      else error = Number(a > e ? a - e : e - a);
      act = String(a);
      expStr = String(e);
    }
    if (error > tolerance.value && (worst === null || error > worst.error)) {
      worst = { index: i, error, actual: act, expected: expStr };
    }
  }
  return worst;
}

// ------------------------------------------------------------------------------------------
// Building one case's operators with the builder (like crates/webnn-conformance/src/ops.rs).

/** A literal option or argument value in the form the JS API takes. */
function mlNumberValue(v) {
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return BigInt(v);
  return number(v);
}

/** The positional arguments of one operator from its argList. */
function callArgs(name, argList, operands) {
  const lookup = (key) => {
    if (typeof key !== 'string') throw new Error('operand argument is not a name');
    const o = operands.get(key);
    if (o === undefined) throw new Error(`unknown operand ${key}`);
    return o;
  };
  const args = [];
  let hasAxis = false;
  for (const a of argList) {
    switch (a.kind) {
      case 'operand':
        args.push(lookup(a.value));
        break;
      case 'operandList':
        args.push(a.value.map(lookup));
        break;
      case 'value':
        if (a.name === 'axis') hasAxis = true;
        args.push(a.value);
        break;
      case 'options': {
        const options = {};
        const operandKeys = new Set(a.operandOptions || []);
        for (const [key, value] of Object.entries(a.value || {})) {
          if (value === null || value === undefined) continue; // holes: absent, as in Rust
          if (operandKeys.has(key)) options[key] = lookup(value);
          else if (key === 'minValue' || key === 'maxValue' || key === 'value') options[key] = mlNumberValue(value);
          else options[key] = value;
        }
        // The 2025 vectors call softmax(input) from before `axis` became required; their
        // tolerance uses axis 1, and so does the Rust harness.
        if (name === 'softmax' && !hasAxis) {
          args.push(1);
          hasAxis = true;
        }
        args.push(options);
        break;
      }
      default:
        throw new Error(`unknown argument kind ${a.kind}`);
    }
  }
  if (name === 'softmax' && !hasAxis) args.push(1);
  return args;
}

function descriptor(v) {
  if (!v || typeof v.dataType !== 'string') throw new Error('descriptor without dataType');
  if (!Array.isArray(v.shape)) throw new Error('descriptor without shape');
  return { dataType: v.dataType, shape: v.shape.map(Number) };
}

function describe(d) {
  return `${d.dataType}[${d.shape.join(', ')}]`;
}

function tolerance(c) {
  const t = c.tolerance || {};
  if (typeof t.value !== 'number') throw new Error('tolerance without value');
  if (t.metricType !== 'ULP' && t.metricType !== 'ATOL') throw new Error(`unknown metric ${t.metricType}`);
  return { metric: t.metricType, value: t.value };
}

/** Runs one case: null if it passed, else a failure message. */
async function runCase(context, c) {
  const graphJson = c.graph;
  const tol = tolerance(c);
  const builder = new MLGraphBuilder(context);
  const operands = new Map();
  const inputTensors = {};
  const tensors = [];
  try {
    for (const [name, input] of Object.entries(graphJson.inputs || {})) {
      const desc = descriptor(input.descriptor);
      const count = desc.shape.reduce((n, d) => n * d, 1);
      const data = encode(input.data, input.dataF16Bits, desc.dataType, count);
      if (input.constant) {
        operands.set(name, builder.constant(desc, data));
      } else {
        operands.set(name, builder.input(name, desc));
        const tensor = await context.createTensor({ ...desc, writable: true });
        tensors.push(tensor);
        context.writeTensor(tensor, data);
        inputTensors[name] = tensor;
      }
    }
    for (const op of graphJson.operators || []) {
      const method = builder[op.name];
      if (typeof method !== 'function') throw new Error(`unknown operator ${op.name}`);
      let results;
      try {
        results = method.apply(builder, callArgs(op.name, op.argList, operands));
      } catch (e) {
        throw new Error(`${op.name}: ${e.name}: ${e.message}`);
      }
      if (!Array.isArray(results)) results = [results];
      const names = typeof op.outputs === 'string' ? [op.outputs] : op.outputs;
      if (!Array.isArray(names)) throw new Error(`${op.name}: bad outputs`);
      if (names.length > results.length) {
        throw new Error(`${op.name}: ${names.length} outputs expected, the builder returned ${results.length}`);
      }
      names.forEach((n, i) => operands.set(n, results[i]));
    }
    const expected = graphJson.expectedOutputs || {};
    const outputs = {};
    const outputDescs = {};
    for (const [name, exp] of Object.entries(expected)) {
      const desc = descriptor(exp.descriptor);
      const operand = operands.get(name);
      if (operand === undefined) throw new Error(`no operand named ${name}`);
      const actual = { dataType: operand.dataType, shape: [...operand.shape] };
      if (actual.dataType !== desc.dataType || actual.shape.join() !== desc.shape.join() || actual.shape.length !== desc.shape.length) {
        return `output ${name}: descriptor ${describe(actual)} expected ${describe(desc)}`;
      }
      outputs[name] = operand;
      outputDescs[name] = desc;
    }
    const graph = await builder.build(outputs);
    const outputTensors = {};
    for (const [name, desc] of Object.entries(outputDescs)) {
      const t = await context.createTensor({ ...desc, readable: true });
      tensors.push(t);
      outputTensors[name] = t;
    }
    context.dispatch(graph, inputTensors, outputTensors);
    const failures = [];
    for (const [name, desc] of Object.entries(outputDescs)) {
      const buffer = await context.readTensor(outputTensors[name]);
      const exp = expected[name];
      const m = compare(buffer, desc.dataType, exp.data, exp.dataF16Bits, tol);
      if (m) {
        const limit = tol.metric === 'ULP' ? `${tol.value} ULP` : `ATOL ${tol.value}`;
        failures.push(`output ${name}[${m.index}]: got ${m.actual}, expected ${m.expected}, error ${m.error} > tolerance ${limit}`);
      }
    }
    graph.destroy();
    return failures.length ? failures.join('; ') : null;
  } finally {
    for (const t of tensors) t.destroy();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  let dir = path.join(__dirname, '..', '..', '..', '..', 'shared', 'wpt');
  let filter = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--filter') filter = argv[++i];
    else if (argv[i] === '-h' || argv[i] === '--help') {
      console.log('usage: node scripts/wpt.js [DIR] [--filter TEXT]');
      return 0;
    } else dir = path.resolve(argv[i]);
  }
  let files;
  try {
    files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json') && f !== 'index.json')
      .sort();
  } catch (e) {
    console.error(`cannot read ${dir}: ${e.message}`);
    return 2;
  }
  const context = await ml.createContext();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const file of files) {
    let json;
    try {
      json = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch (e) {
      console.log(`FAIL ${file}: ${e.message}`);
      failed++;
      continue;
    }
    for (const c of json.cases || []) {
      const full = `${file}: ${c.name}`;
      if (filter !== null && !full.includes(filter)) continue;
      if (typeof c.notApplicable === 'string') {
        skipped++;
        console.log(`SKIP ${full}: ${c.notApplicable}`);
        continue;
      }
      let failure;
      try {
        failure = await runCase(context, c);
      } catch (e) {
        failure = e && e.name && e.name !== 'Error' ? `${e.name}: ${e.message}` : String(e && e.message);
      }
      if (failure === null) passed++;
      else {
        failed++;
        console.log(`FAIL ${full}: ${failure}`);
      }
    }
  }
  context.destroy();
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    console.error(e);
    process.exitCode = 2;
  },
);
