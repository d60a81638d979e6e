//! The fuzz targets' bodies, one module per target, plus what they share ([`exec`]: compile
//! and run a validated graph on the CPU backend). The files in `fuzz_targets/` only call
//! these, so every target can also run from a test or a reproduction by hand.
//!
//! A target "finds" something when it panics or aborts: an error value (any spec
//! `ErrorKind`) is the expected outcome of bad input.

pub mod exec;
pub mod graph;
pub mod npy;
pub mod onnx;
