//! Builder methods of the element-wise ops: binary
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)), logical
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)), unary
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)).

use super::GraphBuilder;
use crate::error::Result;
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::OperatorOptions;
use crate::validate::elementwise as v;

impl GraphBuilder {
    /// Any two-operand element-wise op of
    /// [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary) or
    /// [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical) by kind.
    pub fn binary(&mut self, op: OpKind, a: &Operand, b: &Operand, options: &OperatorOptions) -> Result<Operand> {
        if op.builder_family() != Some("binary") {
            return Err(crate::Error::type_error(format!("{op} is not an element-wise binary operation")));
        }
        let call = self.begin(op, &options.label, &[Some(a), Some(b)])?;
        let out = v::binary(&call, &a.descriptor, &b.descriptor)?;
        self.finish_one(call, &[Some(a), Some(b)], Attrs::None, out)
    }

    /// Any one-operand op of [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary) (input →
    /// same descriptor), or logicalNot / isNaN / isInfinite of
    /// [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical) (uint8 output), by kind.
    pub fn unary(&mut self, op: OpKind, input: &Operand, options: &OperatorOptions) -> Result<Operand> {
        if op.builder_family() != Some("unary") {
            return Err(crate::Error::type_error(format!("{op} is not an element-wise unary operation")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let out = if v::is_logical(op) { v::logical_unary(&input.descriptor) } else { input.descriptor.clone() };
        self.finish_one(call, &[Some(input)], Attrs::None, out)
    }
}
