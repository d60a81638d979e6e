//! Builder methods of batchNormalization
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm)), instanceNormalization
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm)) and layerNormalization
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm)).

use super::{GraphBuilder, OpCall};
use crate::error::Result;
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{BatchNormalizationOptions, InstanceNormalizationOptions, LayerNormalizationOptions};
use crate::types::OperandDescriptor;
use crate::validate::normalization as v;

impl GraphBuilder {
    /// `batchNormalization(input, mean, variance, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-batchnorm))
    pub fn batch_normalization(
        &mut self,
        input: &Operand,
        mean: &Operand,
        variance: &Operand,
        options: &BatchNormalizationOptions,
    ) -> Result<Operand> {
        let (scale, bias) = (options.scale.as_ref(), options.bias.as_ref());
        let call = self.begin(
            OpKind::BatchNormalization,
            &options.label,
            &[Some(input), Some(mean), Some(variance), scale, bias],
        )?;
        let (out, attrs) = v::batch_normalization(
            &call,
            &input.descriptor,
            &mean.descriptor,
            &variance.descriptor,
            scale.map(|s| &s.descriptor),
            bias.map(|b| &b.descriptor),
            options,
        )?;
        self.finish_one(call, &[Some(input), Some(mean), Some(variance), scale, bias], attrs, out)
    }

    /// `instanceNormalization(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-instancenorm))
    pub fn instance_normalization(
        &mut self,
        input: &Operand,
        options: &InstanceNormalizationOptions,
    ) -> Result<Operand> {
        let operands = [options.scale.as_ref(), options.bias.as_ref()];
        self.scaled_normalization(OpKind::InstanceNormalization, input, operands, &options.label, |call, x, s, b| {
            v::instance_normalization(call, x, s, b, options)
        })
    }

    /// `layerNormalization(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-layernorm))
    pub fn layer_normalization(&mut self, input: &Operand, options: &LayerNormalizationOptions) -> Result<Operand> {
        let operands = [options.scale.as_ref(), options.bias.as_ref()];
        self.scaled_normalization(OpKind::LayerNormalization, input, operands, &options.label, |call, x, s, b| {
            v::layer_normalization(call, x, s, b, options)
        })
    }

    /// A normalization of `input` with optional `[scale, bias]` operands: `validate` gets the
    /// descriptors and gives the output and attributes.
    fn scaled_normalization(
        &mut self,
        op: OpKind,
        input: &Operand,
        [scale, bias]: [Option<&Operand>; 2],
        label: &str,
        validate: impl FnOnce(
            &OpCall,
            &OperandDescriptor,
            Option<&OperandDescriptor>,
            Option<&OperandDescriptor>,
        ) -> Result<(OperandDescriptor, Attrs)>,
    ) -> Result<Operand> {
        let call = self.begin(op, label, &[Some(input), scale, bias])?;
        let (out, attrs) =
            validate(&call, &input.descriptor, scale.map(|s| &s.descriptor), bias.map(|b| &b.descriptor))?;
        self.finish_one(call, &[Some(input), scale, bias], attrs, out)
    }
}
