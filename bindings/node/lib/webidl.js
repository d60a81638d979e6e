'use strict';
// WebIDL conversions (https://webidl.spec.whatwg.org/#es-type-mapping) as a browser runs them
// on the arguments of a WebNN method, before the method steps. Every converter takes the value
// and `where`, a description used in error messages (e.g. "Failed to execute 'add' on
// 'MLGraphBuilder': parameter 2").

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get;
const { isArrayBuffer, isSharedArrayBuffer, isArrayBufferView } = require('node:util').types;

function typeError(where, message) {
  return new TypeError(`${where}: ${message}`);
}

/** Checks the number of arguments of an operation ("N arguments required"). */
function requireArgs(args, count, where) {
  if (args.length < count) {
    throw new TypeError(
      `${where}: ${count} argument${count === 1 ? '' : 's'} required, but only ${args.length} present.`,
    );
  }
}

function isObject(v) {
  return (typeof v === 'object' && v !== null) || typeof v === 'function';
}

/** boolean: ToBoolean. */
function toBoolean(v) {
  return !!v;
}

/** ToNumber (throws a TypeError for BigInt and Symbol, as ECMAScript does). */
function toNumber(v) {
  return +v;
}

function integerPart(x) {
  const t = Math.trunc(x);
  return t === 0 ? 0 : t; // no -0
}

/** [EnforceRange] integer types: TypeError on NaN, ±Infinity, or out of [min, max]. */
function enforceRange(v, min, max, where, typeName) {
  const x = toNumber(v);
  if (!Number.isFinite(x)) {
    throw typeError(where, `Value ${String(x)} is not a finite number (${typeName} with [EnforceRange]).`);
  }
  const i = integerPart(x);
  if (i < min || i > max) {
    throw typeError(where, `Value ${i} is outside the range [${min}, ${max}] of ${typeName}.`);
  }
  return i;
}

/** [EnforceRange] unsigned long */
function enforcedUnsignedLong(v, where) {
  return enforceRange(v, 0, 4294967295, where, 'unsigned long');
}

/** [EnforceRange] long */
function enforcedLong(v, where) {
  return enforceRange(v, -2147483648, 2147483647, where, 'long');
}

/** unsigned long (no [EnforceRange]): NaN and ±Infinity become 0, then modulo 2^32. */
function unsignedLong(v) {
  const x = toNumber(v);
  if (!Number.isFinite(x) || x === 0) return 0;
  const i = integerPart(x) % 4294967296;
  return i < 0 ? i + 4294967296 : i;
}

/** double (restricted): TypeError on NaN or ±Infinity. */
function restrictedDouble(v, where) {
  const x = toNumber(v);
  if (!Number.isFinite(x)) throw typeError(where, 'The provided double value is non-finite.');
  return x;
}

/** float (restricted): rounded to float32; TypeError on NaN, ±Infinity or overflow. */
function restrictedFloat(v, where) {
  const x = toNumber(v);
  if (!Number.isFinite(x)) throw typeError(where, 'The provided float value is non-finite.');
  const f = Math.fround(x);
  if (!Number.isFinite(f)) throw typeError(where, `The provided value ${x} is outside the range of float.`);
  return f;
}

function toWellFormed(s) {
  if (typeof s.toWellFormed === 'function') return s.toWellFormed();
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** DOMString: ToString (a Symbol is a TypeError). */
function domString(v, where) {
  if (typeof v === 'symbol') throw typeError(where, 'Cannot convert a Symbol value to a string.');
  return String(v);
}

/** USVString: ToString, lone surrogates replaced with U+FFFD. */
function usvString(v, where) {
  return toWellFormed(domString(v, where));
}

/** An enumeration: its string, or a TypeError if it is not one of `values`. */
function enumeration(v, values, typeName, where) {
  const s = domString(v, where);
  if (!values.includes(s)) {
    throw typeError(where, `The provided value '${s}' is not a valid enum value of type ${typeName}.`);
  }
  return s;
}

/** sequence<T> from any iterable object (a string or other primitive is a TypeError). */
function sequence(v, convertItem, where) {
  if (!isObject(v)) throw typeError(where, 'The provided value cannot be converted to a sequence.');
  const method = v[Symbol.iterator];
  if (method === undefined || method === null) {
    throw typeError(where, 'The object must have a callable @@iterator property.');
  }
  if (typeof method !== 'function') throw typeError(where, 'The @@iterator property is not callable.');
  const iterator = method.call(v);
  if (!isObject(iterator)) throw typeError(where, 'The @@iterator method did not return an object.');
  const next = iterator.next;
  const out = [];
  for (;;) {
    const step = next.call(iterator);
    if (!isObject(step)) throw typeError(where, 'The iterator result is not an object.');
    if (step.done) break;
    out.push(convertItem(step.value, `${where}[${out.length}]`));
  }
  return out;
}

/** record<USVString, T>: the own enumerable string-keyed properties, in property order. */
function record(v, convertValue, where) {
  if (!isObject(v)) throw typeError(where, 'The provided value cannot be converted to a record.');
  const out = new Map();
  for (const key of Reflect.ownKeys(v)) {
    if (typeof key === 'symbol') continue;
    const desc = Reflect.getOwnPropertyDescriptor(v, key);
    if (desc === undefined || !desc.enumerable) continue;
    const typedKey = usvString(key, where);
    out.set(typedKey, convertValue(v[key], `${where}['${typedKey}']`));
  }
  return out;
}

/**
 * A dictionary. `members` is a list of `{ name, convert, default, required }`, with the
 * inherited members first; own members are converted in lexicographic order, as WebIDL does.
 * Unknown properties are ignored; undefined and null give all defaults.
 */
function dictionary(v, type, where) {
  if (v !== undefined && v !== null && !isObject(v)) {
    throw typeError(where, `The provided value is not of type '${type.name}'.`);
  }
  const out = {};
  for (const m of type.members) {
    const value = v === undefined || v === null ? undefined : v[m.name];
    if (value !== undefined) {
      out[m.name] = m.convert(value, `${where}: Failed to read the '${m.name}' property from '${type.name}'`);
    } else if (m.default !== undefined) {
      out[m.name] = m.default;
    } else if (m.required) {
      throw typeError(where, `Failed to read the '${m.name}' property from '${type.name}': Required member is undefined.`);
    }
  }
  return out;
}

/** Defines a dictionary type: `base` members first, then `own` sorted by name. */
function defineDictionary(name, own, base) {
  const sorted = [...own].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { name, members: [...(base ? base.members : []), ...sorted], declared: own };
}

/**
 * MLNumber = (bigint or unrestricted double): ToNumeric, keeping a bigint a bigint (an object
 * whose valueOf returns a bigint converts to that bigint).
 */
function mlNumber(v) {
  return -(-v);
}

const BUFFER_TYPES = {
  float32: ['Float32Array'],
  // decisions.md D1: float16 data also comes as raw bits in a Uint16Array.
  float16: ['Float16Array', 'Uint16Array'],
  int32: ['Int32Array'],
  uint32: ['Uint32Array'],
  int64: ['BigInt64Array'],
  uint64: ['BigUint64Array'],
  int8: ['Int8Array'],
  uint8: ['Uint8Array'],
};

/**
 * AllowSharedBufferSource: an ArrayBuffer, a SharedArrayBuffer or any ArrayBufferView (also on
 * shared memory); resizable / growable buffers are a TypeError (no [AllowResizable]).
 */
function bufferSource(v, where) {
  if (isArrayBuffer(v) || isSharedArrayBuffer(v)) {
    if (v.resizable || v.growable) throw typeError(where, 'The provided ArrayBuffer is resizable.');
    return v;
  }
  if (isArrayBufferView(v)) {
    if (v.buffer.resizable || v.buffer.growable) {
      throw typeError(where, "The provided ArrayBufferView's buffer is resizable.");
    }
    return v;
  }
  throw typeError(where, "The provided value is not of type '(ArrayBuffer or ArrayBufferView)'.");
}

/** The bytes of a buffer source as a Uint8Array view (empty if detached). */
function bytesOf(source) {
  try {
    if (isArrayBufferView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
    return new Uint8Array(source);
  } catch {
    return new Uint8Array(0);
  }
}

/** The typed array name of a view ('Float32Array', ...), undefined for a DataView. */
function viewType(source) {
  return isArrayBufferView(source) ? typedArrayTag.call(source) : undefined;
}

/**
 * The type half of the spec's *validate buffer with descriptor*: an ArrayBuffer, a
 * SharedArrayBuffer or any Uint8Array fits any data type; another view must match the data
 * type. Returns an error message, or null if the buffer type fits.
 */
function bufferTypeError(source, dataType) {
  if (!isArrayBufferView(source)) return null;
  const t = viewType(source);
  if (t === 'Uint8Array') return null;
  if ((BUFFER_TYPES[dataType] || []).includes(t)) return null;
  const expected = [...BUFFER_TYPES[dataType], 'Uint8Array', 'ArrayBuffer'].join(', ');
  return `a ${t || 'DataView'} cannot hold ${dataType} data (use ${expected})`;
}

module.exports = {
  typeError,
  requireArgs,
  isObject,
  toBoolean,
  enforcedUnsignedLong,
  enforcedLong,
  unsignedLong,
  restrictedDouble,
  restrictedFloat,
  domString,
  usvString,
  enumeration,
  sequence,
  record,
  dictionary,
  defineDictionary,
  mlNumber,
  bufferSource,
  bytesOf,
  viewType,
  bufferTypeError,
};
