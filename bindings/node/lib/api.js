'use strict';
// The WebNN JavaScript API (webnn-2026.webidl) over the native addon: ML, MLContext,
// MLGraphBuilder, MLGraph, MLOperand, MLTensor. Arguments are converted here by the WebIDL
// rules; the spec's own steps run in Rust (crates/webnn), whose errors come back as
// "<Kind>: message" and are rethrown as TypeError or DOMException.

const native = require('./native');
const idl = require('./webidl');
const { T, DICTS, OPS } = require('./types');

const INTERNAL = Symbol('webnn internal');
/** Internal slots of every API object, keyed by the object (the brand check). */
const slots = new WeakMap();

const ERROR_KINDS = ['TypeError', 'InvalidStateError', 'NotSupportedError', 'OperationError', 'UnknownError'];
const ERROR_RE = /^([A-Za-z]+): ([\s\S]*)$/;

/** A native error ("<Kind>: message") as the spec's exception. */
function convertError(e) {
  if (e instanceof Error && !(e instanceof TypeError) && !(e instanceof DOMException)) {
    const match = ERROR_RE.exec(e.message);
    if (match && ERROR_KINDS.includes(match[1])) {
      return match[1] === 'TypeError' ? new TypeError(match[2]) : new DOMException(match[2], match[1]);
    }
  }
  return e;
}

/** Calls a native function, rethrowing its error as the spec's exception. */
function call(fn, ...args) {
  try {
    return fn(...args);
  } catch (e) {
    throw convertError(e);
  }
}

/** Runs `body` and returns its value as a promise; a throw becomes a rejection (WebIDL). */
function promising(body) {
  try {
    return Promise.resolve(body());
  } catch (e) {
    return Promise.reject(convertError(e));
  }
}

// -------------------------------------------------------------------------------------------
// Settlements from the addon. The addon hands finished reads (and context losses) to
// `settleBatch` on this thread, in batches: a flat array [id, error, value, ...] where `error` is
// a native error message or null. A read stays in [[pendingPromises]] (`reads`, and the
// `pending` sets of its tensor and context) until its settlement is handled here, so a
// destroy() earlier in the same turn rejects it even if the timeline has already copied the
// bytes (the spec settles reads in a queued task).

/** id -> { s, t, settle(error, value), abort(exception) } */
const reads = new Map();
/** id -> the `resolveLost` of a context (not its slots: the context must stay collectable) */
const lostWaiters = new Map();
let nextId = 1;

function settleBatch(batch) {
  if (!Array.isArray(batch)) return;
  for (let i = 0; i < batch.length; i += 3) {
    const id = batch[i];
    const error = batch[i + 1];
    const value = batch[i + 2];
    const read = reads.get(id);
    if (read !== undefined) {
      forgetRead(id, read);
      try {
        read.settle(error, value);
      } catch (e) {
        read.abort(e); // never leave a read unsettled (nor throw into the addon)
      }
      continue;
    }
    const resolveLost = lostWaiters.get(id);
    if (resolveLost !== undefined) {
      lostWaiters.delete(id);
      resolveLost({ message: value });
    }
    // Anything else was settled already (rejected by destroy()).
  }
}

const hub = native.setup(settleBatch);

function forgetRead(id, read) {
  reads.delete(id);
  read.s.pending.delete(id);
  read.t.pending.delete(id);
}

/** ` (the context was lost: REASON)` once context slot `s` is lost, else '': a tensor the loss
 * destroyed says why, as the native layer's errors do. */
function lostBecause(s) {
  const message = native.contextLostMessage(s.native);
  return message == null ? '' : ` (the context was lost: ${message})`;
}

/** Rejects the reads still in `pending` (an MLTensor's or MLContext's) with InvalidStateError. */
function rejectPending(pending, message) {
  for (const id of [...pending]) {
    const read = reads.get(id);
    if (read === undefined) continue;
    forgetRead(id, read);
    read.abort(new DOMException(message, 'InvalidStateError'));
  }
}

/**
 * Starts a read of tensor slots `t` on context slots `s` (the checks throw) and returns its
 * promise; `finish(arrayBuffer)` gives the promise's value (and may throw).
 */
function startRead(s, t, finish) {
  const id = nextId++;
  call(native.contextReadTensor, s.native, t.native, id);
  return new Promise((resolve, reject) => {
    const read = {
      s,
      t,
      settle(error, value) {
        if (error !== null && error !== undefined) {
          // The context may have been lost on its timeline: settle `lost` first.
          settleLost(s);
          reject(convertError(new Error(error)));
          return;
        }
        try {
          resolve(finish(value));
        } catch (e) {
          reject(e);
        }
      },
      abort: reject,
    };
    reads.set(id, read);
    s.pending.add(id);
    t.pending.add(id);
  });
}

function where(method, iface) {
  return `Failed to execute '${method}' on '${iface}'`;
}

/** The internal slots of `obj` if it is a `kind` object, else a TypeError (Illegal invocation). */
function slot(obj, kind, w) {
  const s = slots.get(obj);
  if (s === undefined || s.kind !== kind) throw new TypeError(`${w}: Illegal invocation`);
  return s;
}

/** Converts `v` to the interface `kind` (a TypeError if it is not one). */
function iface(v, kind, w) {
  const s = slots.get(v);
  if (s === undefined || s.kind !== kind) throw new TypeError(`${w} is not of type '${kind}'.`);
  return s;
}

function check(key) {
  if (key !== INTERNAL) throw new TypeError('Illegal constructor');
}

function create(Class, internals) {
  const obj = new Class(INTERNAL);
  slots.set(obj, internals);
  return obj;
}

T.operand = (v, w) => {
  iface(v, 'MLOperand', w);
  return v;
};
T.operandSeq = (v, w) => idl.sequence(v, T.operand, w);

/** MLNumber in the form the addon takes: a number, or a bigint as a decimal string. */
function nativeNumber(x) {
  if (typeof x !== 'bigint') return x;
  const max = (1n << 127n) - 1n;
  const min = -(1n << 127n);
  return String(x > max ? max : x < min ? min : x);
}

/** Converts an AllowSharedBufferSource for `dataType`: [bytes, view type error or null]. */
function bufferArg(v, dataType, w) {
  const source = idl.bufferSource(v, w);
  return [idl.bytesOf(source), idl.bufferTypeError(source, dataType)];
}

// -------------------------------------------------------------------------------------------
// ML

class ML {
  constructor(key) {
    check(key);
  }

  /** createContext(optional MLContextOptions options = {}) */
  createContext(options = undefined) {
    return promising(() => {
      const w = where('createContext', 'ML');
      slot(this, 'ML', w);
      // The GPUDevice overload cannot match: there is no WebGPU here, so the argument is an
      // MLContextOptions dictionary.
      const o = idl.dictionary(options, DICTS.MLContextOptions, `${w}: parameter 1`);
      const ctx = call(native.createContext, hub, o.powerPreference, o.accelerated);
      return newContext(ctx);
    });
  }
}

// -------------------------------------------------------------------------------------------
// MLContext

function newContext(handle) {
  let resolveLost;
  const lost = new Promise((resolve) => {
    resolveLost = resolve;
  });
  const s = { kind: 'MLContext', native: handle, lost, resolveLost, pending: new Set() };
  const context = create(MLContext, s);
  const id = nextId++;
  lostWaiters.set(id, resolveLost);
  native.contextOnLost(handle, id);
  return context;
}

/** Resolves `lost` if the context is lost (see destroy()). */
function settleLost(s) {
  const message = native.contextLostMessage(s.native);
  if (message !== null && message !== undefined) s.resolveLost({ message });
}

class MLContext {
  constructor(key) {
    check(key);
  }

  /** dispatch(MLGraph graph, MLNamedTensors inputs, MLNamedTensors outputs) */
  dispatch(graph, inputs, outputs) {
    const w = where('dispatch', 'MLContext');
    const s = slot(this, 'MLContext', w);
    idl.requireArgs(arguments, 3, w);
    const g = iface(graph, 'MLGraph', `${w}: parameter 1`);
    const tensor = (v, pw) => iface(v, 'MLTensor', pw).native;
    const ins = idl.record(inputs, tensor, `${w}: parameter 2`);
    const outs = idl.record(outputs, tensor, `${w}: parameter 3`);
    call(native.contextDispatch, s.native, g.native, [...ins.keys()], [...ins.values()], [...outs.keys()], [
      ...outs.values(),
    ]);
  }

  /** createTensor(MLTensorDescriptor descriptor) */
  createTensor(descriptor) {
    return promising(() => {
      const w = where('createTensor', 'MLContext');
      const s = slot(this, 'MLContext', w);
      idl.requireArgs(arguments, 1, w);
      const d = idl.dictionary(descriptor, DICTS.MLTensorDescriptor, `${w}: parameter 1`);
      const handle = call(native.contextCreateTensor, s.native, d.dataType, d.shape, d.readable, d.writable);
      return newTensor(this, handle, d.dataType, d.shape, d.readable, d.writable, false);
    });
  }

  /** createConstantTensor(MLOperandDescriptor descriptor, AllowSharedBufferSource inputData) */
  createConstantTensor(descriptor, inputData) {
    return promising(() => {
      const w = where('createConstantTensor', 'MLContext');
      const s = slot(this, 'MLContext', w);
      idl.requireArgs(arguments, 2, w);
      const d = idl.dictionary(descriptor, DICTS.MLOperandDescriptor, `${w}: parameter 1`);
      const [bytes, viewError] = bufferArg(inputData, d.dataType, `${w}: parameter 2`);
      const handle = call(native.contextCreateConstantTensor, s.native, d.dataType, d.shape, bytes, viewError);
      return newTensor(this, handle, d.dataType, d.shape, false, false, true);
    });
  }

  /**
   * readTensor(MLTensor tensor): Promise<ArrayBuffer>;
   * readTensor(MLTensor tensor, AllowSharedBufferSource outputData): Promise<undefined>
   */
  readTensor(tensor, outputData) {
    const byob = arguments.length >= 2;
    return promising(() => {
      const w = where('readTensor', 'MLContext');
      const s = slot(this, 'MLContext', w);
      idl.requireArgs(arguments, 1, w);
      const t = iface(tensor, 'MLTensor', `${w}: parameter 1`);
      if (!byob) return startRead(s, t, (buffer) => buffer);
      const target = idl.bufferSource(outputData, `${w}: parameter 2`);
      // The spec's order: context, destroyed and readable checks, then the buffer.
      if (t.context !== this) throw new TypeError(`${w}: the tensor belongs to another context`);
      if (native.tensorIsDestroyed(t.native)) throw new TypeError(`${w}: the tensor is destroyed${lostBecause(s)}`);
      if (!t.readable) throw new TypeError(`${w}: the tensor was not created with readable: true`);
      const out = idl.bytesOf(target);
      const byteLength = out.byteLength;
      if (byteLength !== t.byteLength) {
        throw new TypeError(`${w}: the buffer has ${byteLength} bytes but the tensor needs ${t.byteLength}`);
      }
      const viewError = idl.bufferTypeError(target, t.dataType);
      if (viewError) throw new TypeError(`${w}: ${viewError}`);
      return startRead(s, t, (buffer) => {
        const dest = idl.bytesOf(target);
        if (dest.byteLength !== byteLength) throw new TypeError(`${w}: the output buffer was detached`);
        dest.set(new Uint8Array(buffer));
        return undefined;
      });
    });
  }

  /** writeTensor(MLTensor tensor, AllowSharedBufferSource inputData) */
  writeTensor(tensor, inputData) {
    const w = where('writeTensor', 'MLContext');
    const s = slot(this, 'MLContext', w);
    idl.requireArgs(arguments, 2, w);
    const t = iface(tensor, 'MLTensor', `${w}: parameter 1`);
    const source = idl.bufferSource(inputData, `${w}: parameter 2`);
    // Every check of writeTensor is a TypeError, so the view type can be checked first.
    const viewError = idl.bufferTypeError(source, t.dataType);
    if (viewError) throw new TypeError(`${w}: ${viewError}`);
    call(native.contextWriteTensor, s.native, t.native, idl.bytesOf(source));
  }

  /** opSupportLimits(): MLOpSupportLimits */
  opSupportLimits() {
    const s = slot(this, 'MLContext', where('opSupportLimits', 'MLContext'));
    return JSON.parse(native.contextOpSupportLimits(s.native));
  }

  /** destroy() */
  destroy() {
    const s = slot(this, 'MLContext', where('destroy', 'MLContext'));
    native.contextDestroy(s.native);
    // Losing the context destroys its tensors: reads not yet settled reject now.
    rejectPending(s.pending, `readTensor: the context was lost: ${native.contextLostMessage(s.native)}`);
    // Settle `lost` now rather than through the addon's callback, which does not keep the
    // event loop alive (a context that is never lost must not hold the process open).
    settleLost(s);
  }

  /** readonly attribute boolean accelerated */
  get accelerated() {
    const s = slot(this, 'MLContext', "Failed to read the 'accelerated' property from 'MLContext'");
    return native.contextAccelerated(s.native);
  }

  /** readonly attribute Promise<MLContextLostInfo> lost */
  get lost() {
    try {
      return slot(this, 'MLContext', "Failed to read the 'lost' property from 'MLContext'").lost;
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

// -------------------------------------------------------------------------------------------
// MLTensor

function newTensor(context, handle, dataType, shape, readable, writable, constant) {
  const byteLength = shape.reduce((n, d) => n * d, 1) * ELEMENT_SIZE[dataType];
  return create(MLTensor, {
    kind: 'MLTensor',
    native: handle,
    context,
    dataType,
    shape: Object.freeze([...shape]),
    readable,
    writable,
    constant,
    byteLength,
    pending: new Set(),
  });
}

const ELEMENT_SIZE = { float32: 4, float16: 2, int32: 4, uint32: 4, int64: 8, uint64: 8, int8: 1, uint8: 1 };

function tensorGetter(name) {
  return function () {
    return slot(this, 'MLTensor', `Failed to read the '${name}' property from 'MLTensor'`)[name];
  };
}

class MLTensor {
  constructor(key) {
    check(key);
  }

  /** destroy() */
  destroy() {
    const s = slot(this, 'MLTensor', where('destroy', 'MLTensor'));
    native.tensorDestroy(s.native);
    rejectPending(s.pending, 'readTensor: the tensor was destroyed');
  }
}
for (const name of ['dataType', 'shape', 'readable', 'writable', 'constant']) {
  Object.defineProperty(MLTensor.prototype, name, { get: tensorGetter(name), enumerable: true, configurable: true });
}

// -------------------------------------------------------------------------------------------
// MLGraph

class MLGraph {
  constructor(key) {
    check(key);
  }

  /** destroy() */
  destroy() {
    const s = slot(this, 'MLGraph', where('destroy', 'MLGraph'));
    native.graphDestroy(s.native);
  }
}

// -------------------------------------------------------------------------------------------
// MLOperand

function newOperand(handle) {
  return create(MLOperand, { kind: 'MLOperand', native: handle, dataType: undefined, shape: undefined });
}

class MLOperand {
  constructor(key) {
    check(key);
  }

  /** readonly attribute MLOperandDataType dataType */
  get dataType() {
    const s = slot(this, 'MLOperand', "Failed to read the 'dataType' property from 'MLOperand'");
    if (s.dataType === undefined) s.dataType = native.operandDataType(s.native);
    return s.dataType;
  }

  /** readonly attribute FrozenArray<unsigned long> shape */
  get shape() {
    const s = slot(this, 'MLOperand', "Failed to read the 'shape' property from 'MLOperand'");
    if (s.shape === undefined) s.shape = Object.freeze(native.operandShape(s.native));
    return s.shape;
  }
}

// -------------------------------------------------------------------------------------------
// MLGraphBuilder

class MLGraphBuilder {
  /** constructor(MLContext context) */
  constructor(context) {
    const w = "Failed to construct 'MLGraphBuilder'";
    idl.requireArgs(arguments, 1, w);
    const c = iface(context, 'MLContext', `${w}: parameter 1`);
    const handle = call(native.builderNew, c.native);
    slots.set(this, { kind: 'MLGraphBuilder', native: handle, context });
  }

  /** input(USVString name, MLOperandDescriptor descriptor) */
  input(name, descriptor) {
    const w = where('input', 'MLGraphBuilder');
    const s = slot(this, 'MLGraphBuilder', w);
    idl.requireArgs(arguments, 2, w);
    const n = idl.usvString(name, `${w}: parameter 1`);
    const d = idl.dictionary(descriptor, DICTS.MLOperandDescriptor, `${w}: parameter 2`);
    return newOperand(call(native.builderInput, s.native, n, d.dataType, d.shape));
  }

  /**
   * constant(MLOperandDescriptor descriptor, AllowSharedBufferSource buffer);
   * constant(MLOperandDataType dataType, MLNumber value);
   * constant(MLTensor tensor)
   */
  constant(...args) {
    const w = where('constant', 'MLGraphBuilder');
    const s = slot(this, 'MLGraphBuilder', w);
    idl.requireArgs(args, 1, w);
    if (args.length === 1) {
      const t = iface(args[0], 'MLTensor', `${w}: parameter 1`);
      return newOperand(call(native.builderConstantTensor, s.native, t.native));
    }
    const first = args[0];
    if (first === undefined || first === null || idl.isObject(first)) {
      const d = idl.dictionary(first, DICTS.MLOperandDescriptor, `${w}: parameter 1`);
      const [bytes, viewError] = bufferArg(args[1], d.dataType, `${w}: parameter 2`);
      return newOperand(call(native.builderConstant, s.native, d.dataType, d.shape, bytes, viewError));
    }
    const dataType = T.dataType(first, `${w}: parameter 1`);
    const value = idl.mlNumber(args[1]);
    return newOperand(call(native.builderConstantScalar, s.native, dataType, nativeNumber(value)));
  }

  /** build(MLNamedOperands outputs): Promise<MLGraph> */
  build(outputs) {
    return promising(() => {
      const w = where('build', 'MLGraphBuilder');
      const s = slot(this, 'MLGraphBuilder', w);
      idl.requireArgs(arguments, 1, w);
      const named = idl.record(outputs, (v, pw) => iface(v, 'MLOperand', pw).native, `${w}: parameter 1`);
      // Validation runs now (the builder is built from here on); compiling runs on a worker.
      return call(native.builderBuild, s.native, [...named.keys()], [...named.values()]).then(
        (graph) => create(MLGraph, { kind: 'MLGraph', native: graph }),
        (e) => Promise.reject(convertError(e)),
      );
    });
  }
}
Object.defineProperty(MLGraphBuilder, 'length', { value: 1 });

/** Defines the operation method `name` of MLGraphBuilder from its entry in OPS. */
function defineOp(name, spec) {
  const required = spec.args.length;
  const w = where(name, 'MLGraphBuilder');
  const method = {
    [name](...args) {
      const s = slot(this, 'MLGraphBuilder', w);
      idl.requireArgs(args, required, w);
      const operands = [];
      const params = {};
      spec.args.forEach((arg, i) => {
        const value = T[arg.type](args[i], `${w}: parameter ${i + 1}`);
        if (arg.type === 'operand') operands.push(slots.get(value).native);
        else if (arg.type === 'operandSeq') operands.push(...value.map((o) => slots.get(o).native));
        else params[arg.name] = value;
      });
      const options = idl.dictionary(args[required], spec.options, `${w}: parameter ${required + 1}`);
      for (const member of spec.options.members) {
        const value = options[member.name];
        if (member.isOperand) continue;
        if (value !== undefined) params[member.name] = member.type === 'number' ? nativeNumber(value) : value;
      }
      for (const member of spec.options.declared) {
        if (!member.isOperand) continue;
        const value = options[member.name];
        operands.push(value === undefined ? undefined : slots.get(value).native);
      }
      const outputs = call(native.builderOp, s.native, name, operands, params);
      return spec.sequence ? outputs.map(newOperand) : newOperand(outputs[0]);
    },
  }[name];
  Object.defineProperty(method, 'length', { value: required });
  Object.defineProperty(MLGraphBuilder.prototype, name, { value: method, writable: true, enumerable: true, configurable: true });
}
for (const [name, spec] of Object.entries(OPS)) defineOp(name, spec);

// -------------------------------------------------------------------------------------------
// Interface objects as WebIDL makes them: operations and attributes enumerable, a
// Symbol.toStringTag with the interface name.

for (const Class of [ML, MLContext, MLGraph, MLGraphBuilder, MLOperand, MLTensor]) {
  for (const key of Object.getOwnPropertyNames(Class.prototype)) {
    if (key === 'constructor') continue;
    const desc = Object.getOwnPropertyDescriptor(Class.prototype, key);
    if (!desc.enumerable) Object.defineProperty(Class.prototype, key, { ...desc, enumerable: true });
  }
  Object.defineProperty(Class.prototype, Symbol.toStringTag, { value: Class.name, configurable: true });
}
for (const Class of [ML, MLContext, MLGraph, MLOperand, MLTensor]) Object.defineProperty(Class, 'length', { value: 0 });
// Function lengths of overloaded operations: the shortest overload's required arguments.
Object.defineProperty(MLContext.prototype.readTensor, 'length', { value: 1 });
Object.defineProperty(MLGraphBuilder.prototype.constant, 'length', { value: 1 });

const ml = create(ML, { kind: 'ML' });

module.exports = { ml, ML, MLContext, MLGraphBuilder, MLGraph, MLOperand, MLTensor, convertError };
