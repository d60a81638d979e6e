//! Builder methods of conv2d ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)),
//! convTranspose2d ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)), gemm
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm)), matmul
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul)), pooling
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d)) and resample2d
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method)).

use super::GraphBuilder;
use crate::error::{label_prefix, Error, Result};
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{
    Conv2dOptions, ConvTranspose2dOptions, GemmOptions, OperatorOptions, Pool2dOptions, Resample2dOptions,
};
use crate::validate::conv as v;

impl GraphBuilder {
    /// `conv2d(input, filter, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)): grouped 2-D convolution.
    pub fn conv2d(&mut self, input: &Operand, filter: &Operand, options: &Conv2dOptions) -> Result<Operand> {
        let bias = options.bias.as_ref();
        let call = self.begin(OpKind::Conv2d, &options.label, &[Some(input), Some(filter), bias])?;
        let (out, attrs) =
            v::conv2d(&call, &input.descriptor, &filter.descriptor, bias.map(|b| &b.descriptor), options)?;
        self.finish_one(call, &[Some(input), Some(filter), bias], attrs, out)
    }

    /// `convTranspose2d(input, filter, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)): 2-D transposed
    /// convolution.
    pub fn conv_transpose2d(
        &mut self,
        input: &Operand,
        filter: &Operand,
        options: &ConvTranspose2dOptions,
    ) -> Result<Operand> {
        let bias = options.bias.as_ref();
        let call = self.begin(OpKind::ConvTranspose2d, &options.label, &[Some(input), Some(filter), bias])?;
        let (out, attrs) =
            v::conv_transpose2d(&call, &input.descriptor, &filter.descriptor, bias.map(|b| &b.descriptor), options)?;
        self.finish_one(call, &[Some(input), Some(filter), bias], attrs, out)
    }

    /// Any pooling op of [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-pool2d)
    /// (`averagePool2d`, `l2Pool2d`, `maxPool2d`) by kind; another kind is a TypeError.
    pub fn pool2d(&mut self, op: OpKind, input: &Operand, options: &Pool2dOptions) -> Result<Operand> {
        if op.builder_family() != Some("pool2d") {
            return Err(Error::type_error(format!(
                "{}pool2d: {op} is not a pooling operation",
                label_prefix(&options.label)
            )));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        let (out, attrs) = v::pool2d(&call, &input.descriptor, options)?;
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// `resample2d(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-resample2d-method))
    pub fn resample2d(&mut self, input: &Operand, options: &Resample2dOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Resample2d, &options.label, &[Some(input)])?;
        let (out, attrs) = v::resample2d(&call, &input.descriptor, options)?;
        self.finish_one(call, &[Some(input)], attrs, out)
    }

    /// `gemm(a, b, options)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-gemm)): `alpha
    /// * A' * B' + beta * C`. `options.c` must come from this builder (decisions.md D12).
    pub fn gemm(&mut self, a: &Operand, b: &Operand, options: &GemmOptions) -> Result<Operand> {
        let c = options.c.as_ref();
        let call = self.begin(OpKind::Gemm, &options.label, &[Some(a), Some(b), c])?;
        let (out, attrs) = v::gemm(&call, &a.descriptor, &b.descriptor, c.map(|c| &c.descriptor), options)?;
        self.finish_one(call, &[Some(a), Some(b), c], attrs, out)
    }

    /// `matmul(a, b, options)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-matmul)):
    /// batched matrix product with broadcast batch dimensions.
    pub fn matmul(&mut self, a: &Operand, b: &Operand, options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Matmul, &options.label, &[Some(a), Some(b)])?;
        let out = v::matmul(&call, &a.descriptor, &b.descriptor)?;
        self.finish_one(call, &[Some(a), Some(b)], Attrs::None, out)
    }
}
