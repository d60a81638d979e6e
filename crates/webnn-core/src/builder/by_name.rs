//! Any `MLGraphBuilder` operation by its [`OpKind`], with its non-operand arguments as one
//! [`OpParams`] record: the single mapping from a dynamic call to the typed builder methods,
//! used by the Node and Python bindings (whose WebIDL layers convert the arguments first)
//! and by the WPT conformance harness.
//!
//! Operands come in the op's slot order, [`LimitsKind::inputs`](crate::LimitsKind::inputs):
//! the positional operand arguments, then the operand members of the options dictionary
//! (`None` where absent); for `concat`, the list of inputs. An absent option member takes the
//! IDL default held by the options struct's `Default` (its one home).

use super::GraphBuilder;
use crate::error::{Error, Result};
use crate::operand::Operand;
use crate::ops::OpKind;
use crate::types::options::*;
use crate::types::{DataType, MLNumber, RecurrentNetworkActivation};
use serde::Deserialize;

/// The non-operand positional arguments and option members of one builder call, by IDL name
/// (`keepDimensions`, `dataType`, ...). Absent is `None`. `split()`'s `splits` argument is
/// `splitsCount` or `splitsSizes`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpParams {
    /// `MLOperatorOptions.label`
    pub label: Option<String>,
    // Positional arguments.
    /// `axis` (argMin/argMax, concat, cumulativeSum, softmax) or the option member `axis`.
    pub axis: Option<u32>,
    /// cast()'s `type`.
    pub data_type: Option<String>,
    /// expand()'s and reshape()'s `newShape`.
    pub new_shape: Option<Vec<u32>>,
    /// pad()'s `beginningPadding`.
    pub beginning_padding: Option<Vec<u32>>,
    /// pad()'s `endingPadding`.
    pub ending_padding: Option<Vec<u32>>,
    /// slice()'s `starts`.
    pub starts: Option<Vec<u32>>,
    /// slice()'s `sizes`, or resample2d()'s option member `sizes`.
    pub sizes: Option<Vec<u32>>,
    /// tile()'s `repetitions`.
    pub repetitions: Option<Vec<u32>>,
    /// gru()'s and lstm()'s `steps`.
    pub steps: Option<u32>,
    /// The recurrent ops' `hiddenSize`.
    pub hidden_size: Option<u32>,
    /// split()'s `splits` as a count.
    pub splits_count: Option<u32>,
    /// split()'s `splits` as sizes.
    pub splits_sizes: Option<Vec<u32>>,
    // Option members.
    /// `keepDimensions`
    pub keep_dimensions: Option<bool>,
    /// `outputDataType`
    pub output_data_type: Option<String>,
    /// `epsilon`
    pub epsilon: Option<f64>,
    /// `alpha`
    pub alpha: Option<f64>,
    /// `beta`
    pub beta: Option<f64>,
    /// clamp()'s `minValue`
    pub min_value: Option<NumberParam>,
    /// clamp()'s `maxValue`
    pub max_value: Option<NumberParam>,
    /// pad()'s `value`
    pub value: Option<NumberParam>,
    /// `exclusive`
    pub exclusive: Option<bool>,
    /// `reversed`
    pub reversed: Option<bool>,
    /// `aTranspose`
    pub a_transpose: Option<bool>,
    /// `bTranspose`
    pub b_transpose: Option<bool>,
    /// `resetAfter`
    pub reset_after: Option<bool>,
    /// `returnSequence`
    pub return_sequence: Option<bool>,
    /// `upper`
    pub upper: Option<bool>,
    /// `diagonal`
    pub diagonal: Option<i32>,
    /// `groups`
    pub groups: Option<u32>,
    /// `padding`
    pub padding: Option<Vec<u32>>,
    /// `strides`
    pub strides: Option<Vec<u32>>,
    /// `dilations`
    pub dilations: Option<Vec<u32>>,
    /// `outputPadding`
    pub output_padding: Option<Vec<u32>>,
    /// `outputSizes`
    pub output_sizes: Option<Vec<u32>>,
    /// `windowDimensions`
    pub window_dimensions: Option<Vec<u32>>,
    /// `axes`
    pub axes: Option<Vec<u32>>,
    /// `permutation`
    pub permutation: Option<Vec<u32>>,
    /// resample2d()'s `scales` (`sequence<float>`: each item already a float32 value).
    pub scales: Option<Vec<f64>>,
    /// `inputLayout`
    pub input_layout: Option<String>,
    /// `filterLayout`
    pub filter_layout: Option<String>,
    /// `layout`
    pub layout: Option<String>,
    /// `outputShapeRounding`
    pub output_shape_rounding: Option<String>,
    /// `mode`
    pub mode: Option<String>,
    /// `direction`
    pub direction: Option<String>,
    /// `activations`
    pub activations: Option<Vec<String>>,
}

/// An `MLNumber` argument as bindings send it: a number (an `unrestricted double`) or a
/// string — a decimal integer is a `bigint`; `"NaN"`, `"Infinity"`, `"-Infinity"` and `"-0"`
/// are doubles (JSON has no literals for them).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum NumberParam {
    /// A double.
    Number(f64),
    /// A `bigint` in decimal, or a special double's name.
    Text(String),
}

impl NumberParam {
    /// The `MLNumber`; TypeError for a string that is neither an integer nor a special double.
    pub fn to_ml(&self) -> Result<MLNumber> {
        match self {
            NumberParam::Number(x) => Ok(MLNumber::Double(*x)),
            NumberParam::Text(s) => match s.as_str() {
                "NaN" => Ok(MLNumber::Double(f64::NAN)),
                "Infinity" => Ok(MLNumber::Double(f64::INFINITY)),
                "-Infinity" => Ok(MLNumber::Double(f64::NEG_INFINITY)),
                "-0" => Ok(MLNumber::Double(-0.0)),
                _ => s
                    .parse::<i128>()
                    .map(MLNumber::BigInt)
                    .map_err(|_| Error::type_error(format!("'{s}' is not an MLNumber (a number or an integer)"))),
            },
        }
    }
}

/// The operand arguments of one call, by slot.
struct Slots<'a> {
    op: OpKind,
    operands: &'a [Option<&'a Operand>],
}

impl<'a> Slots<'a> {
    /// The required operand of slot `i`; TypeError if absent.
    fn req(&self, i: usize) -> Result<&'a Operand> {
        self.operands.get(i).copied().flatten().ok_or_else(|| {
            let name = self.op.limits_kind().inputs().get(i).copied().unwrap_or("operand");
            Error::type_error(format!("{}: the required argument '{name}' is missing", self.op))
        })
    }
    /// The optional operand of slot `i`.
    fn opt(&self, i: usize) -> Option<Operand> {
        self.operands.get(i).copied().flatten().cloned()
    }
}

impl OpParams {
    /// A required argument; TypeError naming it if absent.
    fn req<T: Clone>(&self, op: OpKind, value: &Option<T>, name: &str) -> Result<T> {
        value.clone().ok_or_else(|| Error::type_error(format!("{op}: the required argument '{name}' is missing")))
    }
}

/// An IDL enum member; `None` keeps `default` (the options struct's IDL default).
fn parse_or<T: std::str::FromStr<Err = Error>>(value: &Option<String>, default: T) -> Result<T> {
    match value {
        None => Ok(default),
        Some(s) => s.parse(),
    }
}

fn data_type(s: &str) -> Result<DataType> {
    s.parse()
}

fn activations(list: &Option<Vec<String>>) -> Result<Option<Vec<RecurrentNetworkActivation>>> {
    list.as_ref().map(|l| l.iter().map(|s| s.parse()).collect()).transpose()
}

fn number(value: &Option<NumberParam>) -> Result<Option<MLNumber>> {
    value.as_ref().map(NumberParam::to_ml).transpose()
}

impl GraphBuilder {
    /// Calls the builder method of `op` with `operands` in its slot order (see the module
    /// documentation) and the other arguments in `p`; returns its output operand(s). The
    /// errors are the method's; a missing required argument is a TypeError.
    pub fn call(&mut self, op: OpKind, operands: &[Option<&Operand>], p: &OpParams) -> Result<Vec<Operand>> {
        let s = Slots { op, operands };
        let label = p.label.clone().unwrap_or_default();
        let plain = OperatorOptions { label: label.clone() };
        let one = |r: Result<Operand>| r.map(|o| vec![o]);
        use OpKind::*;
        match op {
            Add | Sub | Mul | Div | Max | Min | Pow | Equal | NotEqual | Greater | GreaterOrEqual | Lesser
            | LesserOrEqual | LogicalAnd | LogicalOr | LogicalXor => one(self.binary(op, s.req(0)?, s.req(1)?, &plain)),
            LogicalNot | IsNaN | IsInfinite | Abs | Ceil | Cos | Erf | Exp | Floor | Identity | Log | Neg
            | Reciprocal | RoundEven | Sin | Sign | Sqrt | Tan => one(self.unary(op, s.req(0)?, &plain)),
            Gelu | HardSwish | Relu | Sigmoid | Softplus | Softsign | Tanh => {
                one(self.activation(op, s.req(0)?, &plain))
            }
            ArgMin | ArgMax => {
                let d = ArgMinMaxOptions::default();
                let options = ArgMinMaxOptions {
                    label,
                    keep_dimensions: p.keep_dimensions.unwrap_or(d.keep_dimensions),
                    output_data_type: match &p.output_data_type {
                        Some(t) => data_type(t)?,
                        None => d.output_data_type,
                    },
                };
                one(self.arg_min_max(op, s.req(0)?, p.req(op, &p.axis, "axis")?, &options))
            }
            BatchNormalization => {
                let d = BatchNormalizationOptions::default();
                let options = BatchNormalizationOptions {
                    label,
                    scale: s.opt(3),
                    bias: s.opt(4),
                    axis: p.axis.unwrap_or(d.axis),
                    epsilon: p.epsilon.unwrap_or(d.epsilon),
                };
                one(self.batch_normalization(s.req(0)?, s.req(1)?, s.req(2)?, &options))
            }
            Cast => one(self.cast(s.req(0)?, data_type(&p.req(op, &p.data_type, "type")?)?, &plain)),
            Clamp => {
                let options =
                    ClampOptions { label, min_value: number(&p.min_value)?, max_value: number(&p.max_value)? };
                one(self.clamp(s.req(0)?, &options))
            }
            Concat => {
                let inputs = (0..operands.len()).map(|i| s.req(i)).collect::<Result<Vec<&Operand>>>()?;
                one(self.concat(&inputs, p.req(op, &p.axis, "axis")?, &plain))
            }
            Conv2d => {
                let d = Conv2dOptions::default();
                let options = Conv2dOptions {
                    label,
                    padding: p.padding.clone(),
                    strides: p.strides.clone(),
                    dilations: p.dilations.clone(),
                    groups: p.groups.unwrap_or(d.groups),
                    input_layout: parse_or(&p.input_layout, d.input_layout)?,
                    filter_layout: parse_or(&p.filter_layout, d.filter_layout)?,
                    bias: s.opt(2),
                };
                one(self.conv2d(s.req(0)?, s.req(1)?, &options))
            }
            ConvTranspose2d => {
                let d = ConvTranspose2dOptions::default();
                let options = ConvTranspose2dOptions {
                    label,
                    padding: p.padding.clone(),
                    strides: p.strides.clone(),
                    dilations: p.dilations.clone(),
                    output_padding: p.output_padding.clone(),
                    output_sizes: p.output_sizes.clone(),
                    groups: p.groups.unwrap_or(d.groups),
                    input_layout: parse_or(&p.input_layout, d.input_layout)?,
                    filter_layout: parse_or(&p.filter_layout, d.filter_layout)?,
                    bias: s.opt(2),
                };
                one(self.conv_transpose2d(s.req(0)?, s.req(1)?, &options))
            }
            CumulativeSum => {
                let d = CumulativeSumOptions::default();
                let options = CumulativeSumOptions {
                    label,
                    exclusive: p.exclusive.unwrap_or(d.exclusive),
                    reversed: p.reversed.unwrap_or(d.reversed),
                };
                one(self.cumulative_sum(s.req(0)?, p.req(op, &p.axis, "axis")?, &options))
            }
            DequantizeLinear => one(self.dequantize_linear(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
            QuantizeLinear => one(self.quantize_linear(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
            Elu => {
                let alpha = p.alpha.unwrap_or(EluOptions::default().alpha);
                one(self.elu(s.req(0)?, &EluOptions { label, alpha }))
            }
            Expand => one(self.expand(s.req(0)?, &p.req(op, &p.new_shape, "newShape")?, &plain)),
            Gather | GatherElements => {
                let options = GatherOptions { label, axis: p.axis.unwrap_or(GatherOptions::default().axis) };
                match op {
                    Gather => one(self.gather(s.req(0)?, s.req(1)?, &options)),
                    _ => one(self.gather_elements(s.req(0)?, s.req(1)?, &options)),
                }
            }
            GatherNd => one(self.gather_nd(s.req(0)?, s.req(1)?, &plain)),
            Gemm => {
                let d = GemmOptions::default();
                let options = GemmOptions {
                    label,
                    c: s.opt(2),
                    alpha: p.alpha.unwrap_or(d.alpha),
                    beta: p.beta.unwrap_or(d.beta),
                    a_transpose: p.a_transpose.unwrap_or(d.a_transpose),
                    b_transpose: p.b_transpose.unwrap_or(d.b_transpose),
                };
                one(self.gemm(s.req(0)?, s.req(1)?, &options))
            }
            Gru => {
                let d = GruOptions::default();
                let options = GruOptions {
                    label,
                    bias: s.opt(3),
                    recurrent_bias: s.opt(4),
                    initial_hidden_state: s.opt(5),
                    reset_after: p.reset_after.unwrap_or(d.reset_after),
                    return_sequence: p.return_sequence.unwrap_or(d.return_sequence),
                    direction: parse_or(&p.direction, d.direction)?,
                    layout: parse_or(&p.layout, d.layout)?,
                    activations: activations(&p.activations)?,
                };
                let (steps, hidden_size) = (p.req(op, &p.steps, "steps")?, p.req(op, &p.hidden_size, "hiddenSize")?);
                self.gru(s.req(0)?, s.req(1)?, s.req(2)?, steps, hidden_size, &options)
            }
            GruCell => {
                let d = GruCellOptions::default();
                let options = GruCellOptions {
                    label,
                    bias: s.opt(4),
                    recurrent_bias: s.opt(5),
                    reset_after: p.reset_after.unwrap_or(d.reset_after),
                    layout: parse_or(&p.layout, d.layout)?,
                    activations: activations(&p.activations)?,
                };
                let hidden_size = p.req(op, &p.hidden_size, "hiddenSize")?;
                one(self.gru_cell(s.req(0)?, s.req(1)?, s.req(2)?, s.req(3)?, hidden_size, &options))
            }
            HardSigmoid => {
                let d = HardSigmoidOptions::default();
                let options =
                    HardSigmoidOptions { label, alpha: p.alpha.unwrap_or(d.alpha), beta: p.beta.unwrap_or(d.beta) };
                one(self.hard_sigmoid(s.req(0)?, &options))
            }
            InstanceNormalization => {
                let d = InstanceNormalizationOptions::default();
                let options = InstanceNormalizationOptions {
                    label,
                    scale: s.opt(1),
                    bias: s.opt(2),
                    epsilon: p.epsilon.unwrap_or(d.epsilon),
                    layout: parse_or(&p.layout, d.layout)?,
                };
                one(self.instance_normalization(s.req(0)?, &options))
            }
            LayerNormalization => {
                let d = LayerNormalizationOptions::default();
                let options = LayerNormalizationOptions {
                    label,
                    scale: s.opt(1),
                    bias: s.opt(2),
                    axes: p.axes.clone(),
                    epsilon: p.epsilon.unwrap_or(d.epsilon),
                };
                one(self.layer_normalization(s.req(0)?, &options))
            }
            LeakyRelu => {
                let alpha = p.alpha.unwrap_or(LeakyReluOptions::default().alpha);
                one(self.leaky_relu(s.req(0)?, &LeakyReluOptions { label, alpha }))
            }
            Linear => {
                let d = LinearOptions::default();
                let options =
                    LinearOptions { label, alpha: p.alpha.unwrap_or(d.alpha), beta: p.beta.unwrap_or(d.beta) };
                one(self.linear(s.req(0)?, &options))
            }
            Lstm => {
                let d = LstmOptions::default();
                let options = LstmOptions {
                    label,
                    bias: s.opt(3),
                    recurrent_bias: s.opt(4),
                    peephole_weight: s.opt(5),
                    initial_hidden_state: s.opt(6),
                    initial_cell_state: s.opt(7),
                    return_sequence: p.return_sequence.unwrap_or(d.return_sequence),
                    direction: parse_or(&p.direction, d.direction)?,
                    layout: parse_or(&p.layout, d.layout)?,
                    activations: activations(&p.activations)?,
                };
                let (steps, hidden_size) = (p.req(op, &p.steps, "steps")?, p.req(op, &p.hidden_size, "hiddenSize")?);
                self.lstm(s.req(0)?, s.req(1)?, s.req(2)?, steps, hidden_size, &options)
            }
            LstmCell => {
                let d = LstmCellOptions::default();
                let options = LstmCellOptions {
                    label,
                    bias: s.opt(5),
                    recurrent_bias: s.opt(6),
                    peephole_weight: s.opt(7),
                    layout: parse_or(&p.layout, d.layout)?,
                    activations: activations(&p.activations)?,
                };
                let hidden_size = p.req(op, &p.hidden_size, "hiddenSize")?;
                self.lstm_cell(s.req(0)?, s.req(1)?, s.req(2)?, s.req(3)?, s.req(4)?, hidden_size, &options)
            }
            Matmul => one(self.matmul(s.req(0)?, s.req(1)?, &plain)),
            Pad => {
                let d = PadOptions::default();
                let options =
                    PadOptions { label, mode: parse_or(&p.mode, d.mode)?, value: number(&p.value)?.unwrap_or(d.value) };
                let beginning = p.req(op, &p.beginning_padding, "beginningPadding")?;
                let ending = p.req(op, &p.ending_padding, "endingPadding")?;
                one(self.pad(s.req(0)?, &beginning, &ending, &options))
            }
            AveragePool2d | L2Pool2d | MaxPool2d => {
                let d = Pool2dOptions::default();
                let options = Pool2dOptions {
                    label,
                    window_dimensions: p.window_dimensions.clone(),
                    padding: p.padding.clone(),
                    strides: p.strides.clone(),
                    dilations: p.dilations.clone(),
                    layout: parse_or(&p.layout, d.layout)?,
                    output_shape_rounding: parse_or(&p.output_shape_rounding, d.output_shape_rounding)?,
                    output_sizes: p.output_sizes.clone(),
                };
                one(self.pool2d(op, s.req(0)?, &options))
            }
            Prelu => one(self.prelu(s.req(0)?, s.req(1)?, &plain)),
            ReduceL1 | ReduceL2 | ReduceLogSum | ReduceLogSumExp | ReduceMax | ReduceMean | ReduceMin
            | ReduceProduct | ReduceSum | ReduceSumSquare => {
                let d = ReduceOptions::default();
                let options = ReduceOptions {
                    label,
                    axes: p.axes.clone(),
                    keep_dimensions: p.keep_dimensions.unwrap_or(d.keep_dimensions),
                };
                one(self.reduce(op, s.req(0)?, &options))
            }
            Resample2d => {
                let d = Resample2dOptions::default();
                let options = Resample2dOptions {
                    label,
                    mode: parse_or(&p.mode, d.mode)?,
                    // `sequence<float>`: the bindings already rounded each item to float32.
                    scales: p.scales.as_ref().map(|v| v.iter().map(|&x| x as f32).collect()),
                    sizes: p.sizes.clone(),
                    axes: p.axes.clone(),
                };
                one(self.resample2d(s.req(0)?, &options))
            }
            Reshape => one(self.reshape(s.req(0)?, &p.req(op, &p.new_shape, "newShape")?, &plain)),
            Reverse => one(self.reverse(s.req(0)?, &ReverseOptions { label, axes: p.axes.clone() })),
            ScatterElements => {
                let options = ScatterOptions { label, axis: p.axis.unwrap_or(ScatterOptions::default().axis) };
                one(self.scatter_elements(s.req(0)?, s.req(1)?, s.req(2)?, &options))
            }
            ScatterNd => one(self.scatter_nd(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
            Slice => {
                let (starts, sizes) = (p.req(op, &p.starts, "starts")?, p.req(op, &p.sizes, "sizes")?);
                one(self.slice(s.req(0)?, &starts, &sizes, &SliceOptions { label, strides: p.strides.clone() }))
            }
            Softmax => one(self.softmax(s.req(0)?, p.req(op, &p.axis, "axis")?, &plain)),
            Split => {
                let splits = match (&p.splits_count, &p.splits_sizes) {
                    (Some(n), None) => Splits::Count(*n),
                    (None, Some(sizes)) => Splits::Sizes(sizes.clone()),
                    _ => return Err(Error::type_error("split: give 'splits' as either a count or a list of sizes")),
                };
                let options = SplitOptions { label, axis: p.axis.unwrap_or(SplitOptions::default().axis) };
                self.split(s.req(0)?, &splits, &options)
            }
            Tile => one(self.tile(s.req(0)?, &p.req(op, &p.repetitions, "repetitions")?, &plain)),
            Transpose => {
                one(self.transpose(s.req(0)?, &TransposeOptions { label, permutation: p.permutation.clone() }))
            }
            Triangular => {
                let d = TriangularOptions::default();
                let options = TriangularOptions {
                    label,
                    upper: p.upper.unwrap_or(d.upper),
                    diagonal: p.diagonal.unwrap_or(d.diagonal),
                };
                one(self.triangular(s.req(0)?, &options))
            }
            Where => one(self.where_(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
        }
    }
}

#[cfg(test)]
#[path = "by_name_tests.rs"]
mod tests;
