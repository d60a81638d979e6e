//! Option dictionaries of the builder methods (§8.9.x), one file per spec section group.
//! Every struct's `Default` holds the IDL defaults; optional members without a default are
//! `Option<T>`. Every dictionary inherits `MLOperatorOptions { label = "" }`.

mod conv;
mod elementwise;
mod normalization;
mod recurrent;
mod shape;

pub use conv::*;
pub use elementwise::*;
pub use normalization::*;
pub use recurrent::*;
pub use shape::*;

/// `MLOperatorOptions` (§8.9): the base dictionary holding only `label`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OperatorOptions {
    /// `label`: an identifier used in error messages.
    pub label: String,
}

impl OperatorOptions {
    /// Options with the given label.
    pub fn labeled(label: impl Into<String>) -> Self {
        OperatorOptions { label: label.into() }
    }
}
