//! The operation methods of [`GraphBuilder`], one per row of the op table
//! ([`webnn_core::for_each_op!`]): each forwards to the webnn-core builder's method of the same
//! name, which runs the spec's checks. Adding an op to the table adds its method here.

use super::GraphBuilder;
use webnn_core::types::options::*;
use webnn_core::types::*;
use webnn_core::{Operand, Result};

macro_rules! define_operation_methods {
    ($($variant:ident $idl:literal $anchor:literal $method:ident by $via:ident $operands:tt
        [$($arg:ident: $argty:ty = $argidl:literal $argkind:literal),*] $options:ident $ret:ident
        $limits_kind:ident: $limits:expr;)+) => {
        // lstmCell takes the spec's seven positional arguments, plus self.
        #[allow(clippy::too_many_arguments)]
        impl GraphBuilder {
            $(define_operation_methods!(@method $idl $anchor $method $operands [$($arg: $argty),*] $options $ret);)+
        }
    };
    (@method $idl:literal $anchor:literal $method:ident ($($operand:ident),*)
        [$($arg:ident: $argty:ty),*] $options:ident $ret:ident) => {
        #[doc = concat!("`", $idl, "()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-", $anchor,
            ")); the checks and errors are those of [`webnn_core::GraphBuilder::", stringify!($method), "`].")]
        pub fn $method(&mut self, $($operand: &Operand,)* $($arg: $argty,)* options: &$options)
            -> Result<define_operation_methods!(@returns $ret)> {
            self.inner.$method($($operand,)* $($arg,)* options)
        }
    };
    // concat: a sequence of operands.
    (@method $idl:literal $anchor:literal $method:ident [$inputs:ident]
        [$($arg:ident: $argty:ty),*] $options:ident $ret:ident) => {
        #[doc = concat!("`", $idl, "()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-", $anchor,
            ")); the checks and errors are those of [`webnn_core::GraphBuilder::", stringify!($method), "`].")]
        pub fn $method(&mut self, $inputs: &[&Operand], $($arg: $argty,)* options: &$options)
            -> Result<define_operation_methods!(@returns $ret)> {
            self.inner.$method($inputs, $($arg,)* options)
        }
    };
    (@returns one) => { Operand };
    (@returns many) => { Vec<Operand> };
}

webnn_core::for_each_op!(define_operation_methods);
