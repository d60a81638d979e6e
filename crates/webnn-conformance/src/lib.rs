//! The parts of the conformance runner other tools reuse: the mapping of one vector operator
//! (`name` + `argList`) to its `MLGraphBuilder` call ([`ops`]) and the decoding of the
//! vectors' JSON values into tensor bytes ([`values`]). The fuzzer (`fuzz/`, target
//! `builder_ops`) drives the builder through them.

pub mod ops;
pub mod values;
