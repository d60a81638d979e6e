//! Builder methods of the activations and element-wise conversions with steps of their own
//! (cast, clamp, dequantizeLinear, quantizeLinear, elu, hardSigmoid, leakyRelu, linear,
//! prelu, softmax), and [`GraphBuilder::activation`], which the table rows `by activation`
//! (the option-less activations whose output copies the input descriptor) call.

use super::GraphBuilder;
use crate::error::{Error, Result};
use crate::graph::Attrs;
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::{
    ClampOptions, EluOptions, HardSigmoidOptions, LeakyReluOptions, LinearOptions, OperatorOptions,
};
use crate::types::DataType;
use crate::validate::activation as v;

impl GraphBuilder {
    /// Any option-less activation by kind (the op table's rows `by activation`: gelu, relu,
    /// sigmoid, ...).
    /// The output has the input's descriptor. Another `op` is a TypeError.
    pub fn activation(&mut self, op: OpKind, input: &Operand, options: &OperatorOptions) -> Result<Operand> {
        if op.builder_family() != Some("activation") {
            return Err(Error::type_error(format!("{op} is not an option-less activation")));
        }
        let call = self.begin(op, &options.label, &[Some(input)])?;
        self.finish_one(call, &[Some(input)], Attrs::None, input.descriptor.clone())
    }

    /// `cast(input, dataType)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-cast)):
    /// output (dataType, input's shape) — decisions.md D3.
    pub fn cast(&mut self, input: &Operand, data_type: DataType, options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Cast, &options.label, &[Some(input)])?;
        let out = v::cast(&call, &input.descriptor, data_type)?;
        self.finish_one(call, &[Some(input)], Attrs::None, out)
    }

    /// `clamp(input, options)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-clamp)):
    /// bounds default to ∓∞ and are cast to the input's data type (decisions.md D4).
    pub fn clamp(&mut self, input: &Operand, options: &ClampOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Clamp, &options.label, &[Some(input)])?;
        let (min, max) = v::clamp(&call, &input.descriptor, options.min_value, options.max_value)?;
        self.finish_one(call, &[Some(input)], Attrs::Clamp { min, max }, input.descriptor.clone())
    }

    /// `elu(input, options)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-elu)): alpha
    /// cast to the input's data type.
    pub fn elu(&mut self, input: &Operand, options: &EluOptions) -> Result<Operand> {
        self.scalar_activation(OpKind::Elu, input, &options.label, options.alpha, 0.0)
    }

    /// `hardSigmoid(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-hard-sigmoid)): alpha and beta cast
    /// to the input's data type.
    pub fn hard_sigmoid(&mut self, input: &Operand, options: &HardSigmoidOptions) -> Result<Operand> {
        self.scalar_activation(OpKind::HardSigmoid, input, &options.label, options.alpha, options.beta)
    }

    /// `leakyRelu(input, options)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-leakyrelu)): alpha cast to the
    /// input's data type.
    pub fn leaky_relu(&mut self, input: &Operand, options: &LeakyReluOptions) -> Result<Operand> {
        self.scalar_activation(OpKind::LeakyRelu, input, &options.label, options.alpha, 0.0)
    }

    /// `linear(input, options)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-linear)):
    /// alpha and beta cast to the input's data type.
    pub fn linear(&mut self, input: &Operand, options: &LinearOptions) -> Result<Operand> {
        self.scalar_activation(OpKind::Linear, input, &options.label, options.alpha, options.beta)
    }

    /// An activation with scalar attributes (alpha, beta) cast to the input's data type; the
    /// output has the input's descriptor.
    fn scalar_activation(
        &mut self,
        op: OpKind,
        input: &Operand,
        label: &str,
        alpha: f64,
        beta: f64,
    ) -> Result<Operand> {
        let call = self.begin(op, label, &[Some(input)])?;
        let attrs = v::alpha_beta(&input.descriptor, alpha, beta);
        self.finish_one(call, &[Some(input)], attrs, input.descriptor.clone())
    }

    /// `prelu(input, slope)` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-prelu)): slope
    /// of the input's type, shapes broadcast bidirectionally.
    pub fn prelu(&mut self, input: &Operand, slope: &Operand, options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Prelu, &options.label, &[Some(input), Some(slope)])?;
        let out = v::prelu(&call, &input.descriptor, &slope.descriptor)?;
        self.finish_one(call, &[Some(input), Some(slope)], Attrs::None, out)
    }

    /// `softmax(input, axis)`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-softmax-method))
    pub fn softmax(&mut self, input: &Operand, axis: u32, options: &OperatorOptions) -> Result<Operand> {
        let call = self.begin(OpKind::Softmax, &options.label, &[Some(input)])?;
        let out = v::softmax(&call, &input.descriptor, axis)?;
        self.finish_one(call, &[Some(input)], Attrs::Axis { axis }, out)
    }

    /// `dequantizeLinear`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-dequantizelinear); output: scale's
    /// type, input's shape) and `quantizeLinear`
    /// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-quantizelinear); output: zeroPoint's
    /// type, input's shape), the op table's rows `by quantize_dequantize`. Starts with *can build*
    /// like every method (decisions.md D6).
    pub(crate) fn quantize_dequantize(
        &mut self,
        op: OpKind,
        input: &Operand,
        scale: &Operand,
        zero_point: &Operand,
        options: &OperatorOptions,
    ) -> Result<Operand> {
        let call = self.begin(op, &options.label, &[Some(input), Some(scale), Some(zero_point)])?;
        let out = v::quantize_dequantize(&call, &input.descriptor, &scale.descriptor, &zero_point.descriptor)?;
        self.finish_one(call, &[Some(input), Some(scale), Some(zero_point)], Attrs::None, out)
    }
}
