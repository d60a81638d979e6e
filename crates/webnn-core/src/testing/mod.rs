//! The workspace's one home for deterministic test data and float comparisons: the
//! pseudo-random generator [`Rng`] and the ULP distances [`ulp_f32`], [`ulp_f16`] and `ulp`.
//!
//! Tests, benches and fuzz-style tests of every crate use these (the CLI's seeded fill too:
//! its documented stream is [`Rng::from_state`]). The module is always compiled — a few dozen
//! lines of safe code — rather than behind a cargo feature: a feature turned on only by
//! dev-dependencies would give this crate a different feature set in test and non-test builds,
//! and every crate above it would then be compiled twice. It is hidden from the documentation
//! because it is no part of the WebNN surface.
//!
//! (The conformance harness keeps its own comparison, `webnn-conformance/src/compare.rs`: it
//! reproduces the WPT harness bit for bit, float16 on raw bit patterns included.)

mod rng;
mod ulp;

pub use rng::Rng;
pub use ulp::{ulp, ulp_f16, ulp_f32};

#[cfg(test)]
mod builder;
#[cfg(test)]
pub(crate) use builder::*;
