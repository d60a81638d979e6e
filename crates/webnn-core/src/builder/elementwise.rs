//! Builder methods of the element-wise ops: binary (§8.9.13), logical (§8.9.14), unary (§8.9.15).

use super::GraphBuilder;
use crate::error::Result;
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::OperatorOptions;
use crate::validate::elementwise as v;

impl GraphBuilder {
    /// Any two-operand element-wise op of §8.9.13 or §8.9.14 by kind.
    pub fn binary(&mut self, op: OpKind, a: &Operand, b: &Operand, options: &OperatorOptions) -> Result<Operand> {
        if op.builder_family() != Some("binary") {
            return Err(crate::Error::type_error(format!("{op} is not an element-wise binary operation")));
        }
        let call = self.begin(op, &options.label, &[Some(a), Some(b)])?;
        let out = v::binary(&call, &a.descriptor, &b.descriptor)?;
        self.finish_one(call, &[Some(a), Some(b)], Attrs::None, out)
    }

    /// Any one-operand op of §8.9.15 (input → same descriptor), or logicalNot / isNaN /
    /// isInfinite of §8.9.14 (uint8 output), by kind.
    pub fn unary(&mut self, op: OpKind, input: &Operand, options: &OperatorOptions) -> Result<Operand> {
        if op.builder_family() != Some("unary") {
            return Err(crate::Error::type_error(format!("{op} is not an element-wise unary operation")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let out = if v::is_logical(op) { v::logical_unary(&input.descriptor) } else { input.descriptor.clone() };
        self.finish_one(call, &[Some(input)], Attrs::None, out)
    }
}
