//! The builder methods the op table generates: one per row that names a family
//! (`by activation`, `by binary`, ...), each calling the family's shared method with its
//! [`OpKind`]. Adding such an op touches its table row only (and its kernels and ONNX mapping).

use super::GraphBuilder;
use crate::error::Result;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::*;

macro_rules! define_family_methods {
    ($($variant:ident $idl:literal $anchor:literal $method:ident by $via:ident $operands:tt
        [$($arg:ident: $argty:ty = $argidl:literal $argkind:literal),*] $options:ident $ret:ident
        $limits_kind:ident: $limits:expr;)+) => {
        impl GraphBuilder {
            $(define_family_methods!(@method $variant $idl $anchor $method $via $operands
                [$($arg: $argty),*] $options);)+
        }
    };
    (@method $variant:ident $idl:literal $anchor:literal $method:ident own $operands:tt
        [$($arg:ident: $argty:ty),*] $options:ident) => {};
    (@method $variant:ident $idl:literal $anchor:literal $method:ident $via:ident ($($operand:ident),*)
        [$($arg:ident: $argty:ty),*] $options:ident) => {
        #[doc = concat!("`", $idl, "()` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-", $anchor, ")).")]
        pub fn $method(&mut self, $($operand: &Operand,)* $($arg: $argty,)* options: &$options) -> Result<Operand> {
            self.$via(OpKind::$variant, $($operand,)* $($arg,)* options)
        }
    };
}

crate::for_each_op!(define_family_methods);
