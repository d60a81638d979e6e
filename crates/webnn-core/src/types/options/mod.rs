//! Option dictionaries of the builder methods, one file per group of ops. Each is declared
//! once with `options_dict!`: its fields with their IDL member names, IDL types and
//! defaults, from which come the struct, its `Default` (the IDL defaults), the reading of
//! its members from a dynamic call ([`OptionsDict::from_params`]) and the member list of the
//! op signatures ([`OptionsDict::members`]). Every dictionary inherits
//! `MLOperatorOptions { label = "" }`.

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

use crate::builder::params::{OpParams, Slots};
use crate::error::Result;
use crate::ops::OpKind;

/// One member of an options dictionary, for the op signatures: its IDL name, its IDL type
/// (the key the bindings' converters use: `boolean`, `double`, `u32e` for `[EnforceRange]
/// unsigned long`, `u32eSeq`, `floatSeq`, `number` for `MLNumber`, `dataType`,
/// `activations`, `operand`, `enum:<IDL enum name>`) and its default, if it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberSignature {
    /// The IDL member name.
    pub name: &'static str,
    /// The IDL type key.
    pub idl_type: &'static str,
    /// The IDL default as JSON; `None` if the member has none.
    pub default: Option<serde_json::Value>,
}

/// An IDL options dictionary of a builder method.
pub trait OptionsDict: Default + Sized {
    /// The IDL dictionary name (`MLConv2dOptions`).
    const IDL_NAME: &'static str;
    /// The members other than `label`, in IDL declaration order.
    fn members() -> Vec<MemberSignature>;
    /// Reads the dictionary of a dynamic call: each member from `params` (absent takes the
    /// default), operand members from their slots.
    #[doc(hidden)]
    fn from_params(op: OpKind, params: &OpParams, slots: &Slots) -> Result<Self>;
}

/// Declares an options dictionary: `Name = "MLNameOptions" { field: Type = default,
/// "idlName": "idl type key"; ... }` (see [`MemberSignature`] for the type keys).
macro_rules! options_dict {
    ($(#[$doc:meta])* $name:ident = $idl:literal {
        $($(#[$fdoc:meta])* $field:ident: $ty:ty = $default:expr, $member:literal: $kind:tt;)*
    }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            /// `label`: an identifier used in error messages.
            pub label: String,
            $($(#[$fdoc])* pub $field: $ty,)*
        }

        impl Default for $name {
            /// The IDL defaults.
            fn default() -> Self {
                $name { label: String::new(), $($field: $default,)* }
            }
        }

        impl $crate::types::options::OptionsDict for $name {
            const IDL_NAME: &'static str = $idl;

            #[allow(unused_variables)]
            fn members() -> Vec<$crate::types::options::MemberSignature> {
                let defaults = Self::default();
                vec![$($crate::types::options::MemberSignature {
                    name: $member,
                    idl_type: $kind,
                    default: $crate::builder::params::IdlValue::to_idl(&defaults.$field),
                }),*]
            }

            #[allow(unused_variables)]
            fn from_params(
                op: $crate::ops::OpKind,
                params: &$crate::builder::params::OpParams,
                slots: &$crate::builder::params::Slots,
            ) -> $crate::error::Result<Self> {
                let defaults = Self::default();
                Ok($name {
                    label: params.label(op)?,
                    $($field: options_dict!(@member op, params, slots, defaults.$field, $member, $kind),)*
                })
            }
        }
    };
    (@member $op:ident, $params:ident, $slots:ident, $default:expr, $member:literal, "operand") => {
        $slots.member($member)
    };
    (@member $op:ident, $params:ident, $slots:ident, $default:expr, $member:literal, $kind:literal) => {
        $params.member($op, $member, $default)?
    };
}
pub(crate) use options_dict;

/// `MLOperatorOptions`: the base dictionary holding only `label`.
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

impl OptionsDict for OperatorOptions {
    const IDL_NAME: &'static str = "MLOperatorOptions";
    fn members() -> Vec<MemberSignature> {
        Vec::new()
    }
    fn from_params(op: OpKind, params: &OpParams, _: &Slots) -> Result<Self> {
        Ok(OperatorOptions { label: params.label(op)? })
    }
}
