//! Builder methods of the shape and data-movement ops: concat
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-concat)), expand
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-expand)), pad
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad)), reshape
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reshape-method)), reverse
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reverse-method)), slice
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-slice)), split
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-split)), tile
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tile)), transpose
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose)), triangular
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-triangular)) and where
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where)).

use super::GraphBuilder;
use crate::error::Result;
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{
    OperatorOptions, PadOptions, ReverseOptions, SliceOptions, SplitOptions, Splits, TransposeOptions,
    TriangularOptions,
};
use crate::validate::shape as v;

impl GraphBuilder {
    /// `concat(inputs, axis, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-concat)): joins `inputs` along
    /// `axis`. Every item is checked against the `inputs` limits; 1 to 8192 inputs are allowed.
    pub fn concat(&mut self, inputs: &[&Operand], axis: u32, options: &OperatorOptions) -> Result<Operand> {
        let operands: Vec<Option<&Operand>> = inputs.iter().map(|&x| Some(x)).collect();
        let call = self.begin(OpKind::Concat, &options.label, &operands)?;
        let descs: Vec<_> = inputs.iter().map(|x| &x.descriptor).collect();
        let out = v::concat(&call, &descs, axis)?;
        self.finish_one(call, &operands, Attrs::Axis { axis }, out)
    }

    /// `expand(input, newShape, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-expand)): numpy-style broadcast to
    /// `new_shape`.
    pub fn expand(&mut self, input: &Operand, new_shape: &[u32], options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Expand, &options.label, &[Some(input)])?;
        let out = v::expand(&call, &input.descriptor, new_shape)?;
        self.finish_one(call, &[Some(input)], Attrs::None, out)
    }

    /// `pad(input, beginningPadding, endingPadding, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pad)).
    pub fn pad(
        &mut self,
        input: &Operand,
        beginning_padding: &[u32],
        ending_padding: &[u32],
        options: &PadOptions,
    ) -> Result<Operand> {
        let call = self.begin(OpKind::Pad, &options.label, &[Some(input)])?;
        let (out, value) = v::pad(&call, &input.descriptor, beginning_padding, ending_padding, options)?;
        let attrs = Attrs::Pad {
            beginning: beginning_padding.to_vec(),
            ending: ending_padding.to_vec(),
            mode: options.mode,
            value,
        };
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// `reshape(input, newShape, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reshape-method)).
    pub fn reshape(&mut self, input: &Operand, new_shape: &[u32], options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Reshape, &options.label, &[Some(input)])?;
        let out = v::reshape(&call, &input.descriptor, new_shape)?;
        self.finish_one(call, &[Some(input)], Attrs::None, out)
    }

    /// `reverse(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-reverse-method)): reverses
    /// `options.axes` (absent: every axis).
    pub fn reverse(&mut self, input: &Operand, options: &ReverseOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Reverse, &options.label, &[Some(input)])?;
        let axes = v::reverse(&call, &input.descriptor, options.axes.as_deref())?;
        self.finish_one(call, &[Some(input)], Attrs::Reverse { axes }, input.descriptor.clone())
    }

    /// `slice(input, starts, sizes, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-slice)), with the 2026 `strides`
    /// option.
    pub fn slice(&mut self, input: &Operand, starts: &[u32], sizes: &[u32], options: &SliceOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Slice, &options.label, &[Some(input)])?;
        let (out, strides) = v::slice(&call, &input.descriptor, starts, sizes, options.strides.as_deref())?;
        let attrs = Attrs::Slice { starts: starts.to_vec(), sizes: sizes.to_vec(), strides };
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// `split(input, splits, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-split)): one output per part along
    /// `options.axis`.
    pub fn split(&mut self, input: &Operand, splits: &Splits, options: &SplitOptions) -> Result<Vec<Operand>> {
        let call = self.begin(OpKind::Split, &options.label, &[Some(input)])?;
        let (outs, sizes) = v::split(&call, &input.descriptor, splits, options.axis)?;
        self.finish(call, &[Some(input)], Attrs::Split { axis: options.axis, sizes }, outs)
    }

    /// `tile(input, repetitions, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-tile)).
    pub fn tile(&mut self, input: &Operand, repetitions: &[u32], options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Tile, &options.label, &[Some(input)])?;
        let out = v::tile(&call, &input.descriptor, repetitions)?;
        self.finish_one(call, &[Some(input)], Attrs::Tile { repetitions: repetitions.to_vec() }, out)
    }

    /// `transpose(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-transpose)): permutes the dimensions
    /// (absent permutation: reverses them).
    pub fn transpose(&mut self, input: &Operand, options: &TransposeOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Transpose, &options.label, &[Some(input)])?;
        let (out, permutation) = v::transpose(&call, &input.descriptor, options.permutation.as_deref())?;
        self.finish_one(call, &[Some(input)], Attrs::Transpose { permutation }, out)
    }

    /// `triangular(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-triangular)): the rank (2 or more)
    /// is checked by the limits table; the output has the input's descriptor.
    pub fn triangular(&mut self, input: &Operand, options: &TriangularOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Triangular, &options.label, &[Some(input)])?;
        let attrs = Attrs::Triangular { upper: options.upper, diagonal: options.diagonal };
        self.finish_one(call, &[Some(input)], attrs, input.descriptor.clone())
    }

    /// `where(condition, trueValue, falseValue, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-where)).
    pub fn where_(
        &mut self,
        condition: &Operand,
        true_value: &Operand,
        false_value: &Operand,
        options: &OperatorOptions,
    ) -> Result<Operand> {
        let call =
            self.begin(OpKind::Where, &options.label, &[Some(condition), Some(true_value), Some(false_value)])?;
        let out = v::where_(&call, &condition.descriptor, &true_value.descriptor, &false_value.descriptor)?;
        self.finish_one(call, &[Some(condition), Some(true_value), Some(false_value)], Attrs::None, out)
    }
}
