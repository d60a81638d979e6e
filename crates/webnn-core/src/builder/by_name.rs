//! Any `MLGraphBuilder` operation by its [`OpKind`], with its non-operand arguments as one
//! [`OpParams`] record: the dynamic call used by the Node and Python bindings (whose WebIDL
//! layers convert the arguments first) and by the WPT conformance harness, generated from the
//! op table ([`for_each_op!`](crate::for_each_op)).
//!
//! Operands come in the op's slot order, [`LimitsKind::inputs`](crate::LimitsKind::inputs):
//! the positional operand arguments, then the operand members of the options dictionary
//! (`None` where absent); for `concat`, the list of inputs. An absent option member takes the
//! IDL default held by the options struct's `Default` (its one home).

use super::params::{FromParam, OpParams, Slots};
use super::GraphBuilder;
use crate::error::Result;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::*;
use crate::types::DataType;

/// A positional argument type of a builder method (`&[u32]`), the owned value a dynamic call
/// reads for it (`Vec<u32>`), and how the method's argument borrows that value.
trait Argument<'a> {
    type Owned: FromParam + 'a;
    fn borrow(owned: &'a Self::Owned) -> Self;
}

impl<'a> Argument<'a> for u32 {
    type Owned = u32;
    fn borrow(owned: &u32) -> u32 {
        *owned
    }
}
impl<'a> Argument<'a> for DataType {
    type Owned = DataType;
    fn borrow(owned: &DataType) -> DataType {
        *owned
    }
}
impl<'a> Argument<'a> for &'a [u32] {
    type Owned = Vec<u32>;
    fn borrow(owned: &'a Vec<u32>) -> &'a [u32] {
        owned
    }
}
impl<'a> Argument<'a> for &'a Splits {
    type Owned = Splits;
    fn borrow(owned: &'a Splits) -> &'a Splits {
        owned
    }
}

macro_rules! outputs {
    (one, $call:expr) => {
        $call.map(|operand| vec![operand])
    };
    (many, $call:expr) => {
        $call
    };
}

macro_rules! define_call {
    ($($variant:ident $idl:literal $anchor:literal $method:ident by $via:ident $operands:tt
        [$($arg:ident: $argty:ty = $argidl:literal $argkind:literal),*] $options:ident $ret:ident
        $limits_kind:ident: $limits:expr;)+) => {
        impl GraphBuilder {
            /// Calls the builder method of `op` with `operands` in its slot order (see the module
            /// documentation) and the other arguments in `params`; returns its output operand(s).
            /// The errors are the method's; a missing required argument is a TypeError.
            pub fn call(&mut self, op: OpKind, operands: &[Option<&Operand>], params: &OpParams) -> Result<Vec<Operand>> {
                let slots = Slots { op, operands };
                match op {
                    $(OpKind::$variant => {
                        let options = <$options as OptionsDict>::from_params(op, params, &slots)?;
                        $(let $arg: <$argty as Argument>::Owned = params.required(op, $argidl)?;)*
                        call_row!(self, slots, $method, $operands, ($(<$argty as Argument>::borrow(&$arg)),*), &options, $ret)
                    })+
                }
            }
        }
    };
}

/// One arm: positional operands by slot index (or concat's list), then the other arguments and
/// the options.
macro_rules! call_row {
    ($builder:ident, $slots:ident, $method:ident, [$inputs:ident], ($($arg:expr),*), $options:expr, $ret:ident) => {
        outputs!($ret, $builder.$method(&$slots.all()?, $($arg,)* $options))
    };
    ($builder:ident, $slots:ident, $method:ident, ($($operand:ident),*), ($($arg:expr),*), $options:expr, $ret:ident) => {{
        let mut slot = 0..;
        $(let $operand = $slots.required(slot.next().unwrap_or_default())?;)*
        outputs!($ret, $builder.$method($($operand,)* $($arg,)* $options))
    }};
}

crate::for_each_op!(define_call);

#[cfg(test)]
#[path = "by_name_tests.rs"]
mod tests;
