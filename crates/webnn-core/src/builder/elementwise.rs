//! Builder methods of the element-wise ops: binary (§8.9.13), logical (§8.9.14), unary (§8.9.15).

use super::GraphBuilder;
use crate::error::Result;
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::OperatorOptions;
use crate::validate::elementwise as v;

macro_rules! binary_methods {
    ($($(#[$doc:meta])* $name:ident => $kind:ident;)+) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, a: &Operand, b: &Operand, options: &OperatorOptions) -> Result<Operand> {
            self.binary(OpKind::$kind, a, b, options)
        }
    )+};
}

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $kind:ident;)+) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, input: &Operand, options: &OperatorOptions) -> Result<Operand> {
            self.unary(OpKind::$kind, input, options)
        }
    )+};
}

impl GraphBuilder {
    /// Any two-operand element-wise op of §8.9.13 or §8.9.14 by kind.
    pub fn binary(&mut self, op: OpKind, a: &Operand, b: &Operand, options: &OperatorOptions) -> Result<Operand> {
        if !v::is_binary(op) {
            return Err(crate::Error::type_error(format!("{op} is not an element-wise binary operation")));
        }
        let call = self.begin(op, &options.label, &[Some(a), Some(b)])?;
        let out = v::binary(&call, &a.descriptor, &b.descriptor)?;
        self.finish_one(call, &[Some(a), Some(b)], Attrs::None, out)
    }

    /// Any one-operand op of §8.9.15 (input → same descriptor), or logicalNot / isNaN /
    /// isInfinite of §8.9.14 (uint8 output), by kind.
    pub fn unary(&mut self, op: OpKind, input: &Operand, options: &OperatorOptions) -> Result<Operand> {
        if !v::is_unary(op) {
            return Err(crate::Error::type_error(format!("{op} is not an element-wise unary operation")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let out = if v::is_logical(op) { v::logical_unary(&input.descriptor) } else { input.descriptor.clone() };
        self.finish_one(call, &[Some(input)], Attrs::None, out)
    }

    binary_methods! {
        /// `add(a, b)` (§8.9.13)
        add => Add;
        /// `sub(a, b)` (§8.9.13)
        sub => Sub;
        /// `mul(a, b)` (§8.9.13)
        mul => Mul;
        /// `div(a, b)` (§8.9.13); integers truncate toward zero.
        div => Div;
        /// `max(a, b)` (§8.9.13)
        max => Max;
        /// `min(a, b)` (§8.9.13)
        min => Min;
        /// `pow(a, b)` (§8.9.13)
        pow => Pow;
        /// `equal(a, b)` (§8.9.14)
        equal => Equal;
        /// `notEqual(a, b)` (§8.9.14)
        not_equal => NotEqual;
        /// `greater(a, b)` (§8.9.14)
        greater => Greater;
        /// `greaterOrEqual(a, b)` (§8.9.14)
        greater_or_equal => GreaterOrEqual;
        /// `lesser(a, b)` (§8.9.14)
        lesser => Lesser;
        /// `lesserOrEqual(a, b)` (§8.9.14)
        lesser_or_equal => LesserOrEqual;
        /// `logicalAnd(a, b)` (§8.9.14)
        logical_and => LogicalAnd;
        /// `logicalOr(a, b)` (§8.9.14)
        logical_or => LogicalOr;
        /// `logicalXor(a, b)` (§8.9.14)
        logical_xor => LogicalXor;
    }

    unary_methods! {
        /// `logicalNot(a)` (§8.9.14)
        logical_not => LogicalNot;
        /// `isNaN(a)` (§8.9.14)
        is_nan => IsNaN;
        /// `isInfinite(a)` (§8.9.14)
        is_infinite => IsInfinite;
        /// `abs(input)` (§8.9.15)
        abs => Abs;
        /// `ceil(input)` (§8.9.15)
        ceil => Ceil;
        /// `cos(input)` (§8.9.15)
        cos => Cos;
        /// `erf(input)` (§8.9.15)
        erf => Erf;
        /// `exp(input)` (§8.9.15)
        exp => Exp;
        /// `floor(input)` (§8.9.15)
        floor => Floor;
        /// `identity(input)` (§8.9.15)
        identity => Identity;
        /// `log(input)` (§8.9.15)
        log => Log;
        /// `neg(input)` (§8.9.15)
        neg => Neg;
        /// `reciprocal(input)` (§8.9.15)
        reciprocal => Reciprocal;
        /// `roundEven(input)` (§8.9.15)
        round_even => RoundEven;
        /// `sin(input)` (§8.9.15)
        sin => Sin;
        /// `sign(input)` (§8.9.15)
        sign => Sign;
        /// `sqrt(input)` (§8.9.15)
        sqrt => Sqrt;
        /// `tan(input)` (§8.9.15)
        tan => Tan;
    }
}
