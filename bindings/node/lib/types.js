'use strict';
// The IDL types of the API as data for the converters of webidl.js. The op data — the 95
// MLGraphBuilder operations, their options dictionaries and the enums they use — comes from
// the addon (`opSignatures()`: webnn_core::signatures, generated from the Rust op table and
// checked there against webnn-2026.webidl); only the rest of the API's types are written here.

const idl = require('./webidl');
const native = require('./native');

/** `{ ops, dictionaries, enums }` (see webnn_core::signatures), parsed once at load. */
const SIGNATURES = JSON.parse(native.opSignatures());

/** The IDL enums by name: MLPowerPreference, and every enum of the op signatures. */
const ENUMS = {
  MLPowerPreference: ['default', 'high-performance', 'low-power'],
  ...SIGNATURES.enums,
};

/** Converter of an IDL enum type. */
function enumType(name) {
  const values = ENUMS[name];
  return (v, where) => idl.enumeration(v, values, name, where);
}

/**
 * Converters of the member / argument types, by the type keys of the op signatures
 * (`enum:<IDL name>` for every enum of ENUMS). `operand` and `operandSeq` are filled in by
 * api.js (they need the MLOperand class).
 */
const T = {
  boolean: (v) => idl.toBoolean(v),
  double: (v, where) => idl.restrictedDouble(v, where),
  u32e: (v, where) => idl.enforcedUnsignedLong(v, where),
  u32: (v) => idl.unsignedLong(v),
  i32e: (v, where) => idl.enforcedLong(v, where),
  u32eSeq: (v, where) => idl.sequence(v, (x, w) => idl.enforcedUnsignedLong(x, w), where),
  u32Seq: (v, where) => idl.sequence(v, (x) => idl.unsignedLong(x), where),
  floatSeq: (v, where) => idl.sequence(v, (x, w) => idl.restrictedFloat(x, w), where),
  usv: (v, where) => idl.usvString(v, where),
  number: (v) => idl.mlNumber(v),
  dataType: enumType('MLOperandDataType'),
  activations: (v, where) => idl.sequence(v, enumType('MLRecurrentNetworkActivation'), where),
  operand: null, // set by api.js
  operandSeq: null, // set by api.js
  /** `([EnforceRange] unsigned long or sequence<[EnforceRange] unsigned long>)` of split(). */
  splits: (v, where) => {
    if (idl.isObject(v)) {
      const method = v[Symbol.iterator];
      if (method !== undefined && method !== null) return T.u32eSeq(v, where);
    }
    return idl.enforcedUnsignedLong(v, where);
  },
};
for (const name of Object.keys(ENUMS)) T[`enum:${name}`] = enumType(name);

/** A dictionary member: name, type key of T, default, required. */
function m(name, type, dflt, required) {
  if (!(type in T)) throw new Error(`webnn: no converter for the IDL type key ${type} (member ${name})`);
  const convert = (v, where) => T[type](v, where);
  return { name, type, convert, default: dflt, required: !!required, isOperand: type === 'operand' };
}

const def = idl.defineDictionary;

const MLOperandDescriptor = def('MLOperandDescriptor', [
  m('dataType', 'dataType', undefined, true),
  m('shape', 'u32eSeq', undefined, true),
]);

/** The dictionaries: the context's and descriptors by hand, then every op options dictionary. */
const DICTS = {
  MLContextOptions: def('MLContextOptions', [
    m('powerPreference', 'enum:MLPowerPreference', 'default'),
    m('accelerated', 'boolean', true),
  ]),
  MLOperandDescriptor,
  MLTensorDescriptor: def('MLTensorDescriptor', [m('readable', 'boolean', false), m('writable', 'boolean', false)], MLOperandDescriptor),
};

/** Defines the op options dictionary `name` of the signatures (its base first). */
function opDictionary(name) {
  if (DICTS[name] === undefined) {
    const { inherits, members } = SIGNATURES.dictionaries[name];
    const base = inherits === null ? undefined : opDictionary(inherits);
    DICTS[name] = def(name, members.map((x) => m(x.name, x.type, x.default)), base);
  }
  return DICTS[name];
}
for (const name of Object.keys(SIGNATURES.dictionaries)) opDictionary(name);

/**
 * The operations by IDL name, in the spec's order: positional arguments (`{ name, type }`),
 * options dictionary, and whether they return a sequence<MLOperand>. Operand arguments
 * (positional, then the dictionary's operand members in declaration order) form the op's
 * operand slots, in the order of the Rust `LimitsKind`.
 */
const OPS = {};
for (const op of SIGNATURES.ops) {
  for (const arg of op.args) {
    if (!(arg.type in T)) throw new Error(`webnn: no converter for the IDL type key ${arg.type} (${op.name})`);
  }
  OPS[op.name] = { args: op.args.map(({ name, type }) => ({ name, type })), options: DICTS[op.options], sequence: op.sequence };
}

module.exports = { ENUMS, T, DICTS, OPS, enumType };
