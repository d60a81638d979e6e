//! The operation methods of `MLGraphBuilder`, reached through one native entry point
//! (https://www.w3.org/TR/webnn/#api-mlgraphbuilder), as in the Node.js binding.
//!
//! The Python layer (`webnn/_builder.py`, from the table in `webnn/_ops.py`) converts every
//! argument and sends, for an op:
//! - `operands`: the operand arguments in the op's slot order (positional operands, then the
//!   operand members of its options, absent ones as `None`) — the order of
//!   `LimitsKind::inputs()`; for `concat`, the list of inputs;
//! - `params`: every other positional argument and option member, by its snake_case name
//!   (absent options are missing or `None`: the Rust option structs then hold the IDL
//!   defaults).

use crate::builder::Number;
use crate::errors::{to_py, UnknownError};
use pyo3::prelude::*;
use webnn::*;

type Result<T> = PyResult<T>;

/// The non-operand arguments and option members of one builder call.
#[derive(FromPyObject, Default)]
#[pyo3(from_item_all)]
pub struct OpParams {
    pub label: String,
    // Positional arguments.
    #[pyo3(default)]
    pub axis: Option<u32>,
    #[pyo3(default)]
    pub data_type: Option<String>,
    #[pyo3(default)]
    pub new_shape: Option<Vec<u32>>,
    #[pyo3(default)]
    pub beginning_padding: Option<Vec<u32>>,
    #[pyo3(default)]
    pub ending_padding: Option<Vec<u32>>,
    #[pyo3(default)]
    pub starts: Option<Vec<u32>>,
    #[pyo3(default)]
    pub sizes: Option<Vec<u32>>,
    #[pyo3(default)]
    pub repetitions: Option<Vec<u32>>,
    #[pyo3(default)]
    pub steps: Option<u32>,
    #[pyo3(default)]
    pub hidden_size: Option<u32>,
    #[pyo3(default)]
    pub splits_count: Option<u32>,
    #[pyo3(default)]
    pub splits_sizes: Option<Vec<u32>>,
    // Option members.
    #[pyo3(default)]
    pub keep_dimensions: Option<bool>,
    #[pyo3(default)]
    pub output_data_type: Option<String>,
    #[pyo3(default)]
    pub epsilon: Option<f64>,
    #[pyo3(default)]
    pub alpha: Option<f64>,
    #[pyo3(default)]
    pub beta: Option<f64>,
    #[pyo3(default)]
    pub min_value: Option<Number>,
    #[pyo3(default)]
    pub max_value: Option<Number>,
    #[pyo3(default)]
    pub value: Option<Number>,
    #[pyo3(default)]
    pub exclusive: Option<bool>,
    #[pyo3(default)]
    pub reversed: Option<bool>,
    #[pyo3(default)]
    pub a_transpose: Option<bool>,
    #[pyo3(default)]
    pub b_transpose: Option<bool>,
    #[pyo3(default)]
    pub reset_after: Option<bool>,
    #[pyo3(default)]
    pub return_sequence: Option<bool>,
    #[pyo3(default)]
    pub upper: Option<bool>,
    #[pyo3(default)]
    pub diagonal: Option<i32>,
    #[pyo3(default)]
    pub groups: Option<u32>,
    #[pyo3(default)]
    pub padding: Option<Vec<u32>>,
    #[pyo3(default)]
    pub strides: Option<Vec<u32>>,
    #[pyo3(default)]
    pub dilations: Option<Vec<u32>>,
    #[pyo3(default)]
    pub output_padding: Option<Vec<u32>>,
    #[pyo3(default)]
    pub output_sizes: Option<Vec<u32>>,
    #[pyo3(default)]
    pub window_dimensions: Option<Vec<u32>>,
    #[pyo3(default)]
    pub axes: Option<Vec<u32>>,
    #[pyo3(default)]
    pub permutation: Option<Vec<u32>>,
    #[pyo3(default)]
    pub scales: Option<Vec<f64>>,
    #[pyo3(default)]
    pub input_layout: Option<String>,
    #[pyo3(default)]
    pub filter_layout: Option<String>,
    #[pyo3(default)]
    pub layout: Option<String>,
    #[pyo3(default)]
    pub output_shape_rounding: Option<String>,
    #[pyo3(default)]
    pub mode: Option<String>,
    #[pyo3(default)]
    pub direction: Option<String>,
    #[pyo3(default)]
    pub activations: Option<Vec<String>>,
}

/// A malformed call from the Python layer (a bug there, never a spec error).
fn internal(msg: impl std::fmt::Display) -> PyErr {
    UnknownError::new_err(format!("webnn internal: {msg}"))
}

fn data_type(s: &str) -> PyResult<DataType> {
    s.parse().map_err(to_py)
}

/// An IDL enum member, or its default when absent.
fn parse_enum<T: std::str::FromStr<Err = webnn::Error> + Default>(s: &Option<String>) -> PyResult<T> {
    match s {
        None => Ok(T::default()),
        Some(s) => s.parse().map_err(to_py),
    }
}

fn activations(list: &Option<Vec<String>>) -> PyResult<Option<Vec<RecurrentNetworkActivation>>> {
    list.as_ref()
        .map(|l| l.iter().map(|s| s.parse::<RecurrentNetworkActivation>().map_err(to_py)).collect())
        .transpose()
}

/// The operand arguments of a call, by slot.
struct Slots<'a>(&'a [Option<&'a Operand>]);

impl<'a> Slots<'a> {
    fn req(&self, i: usize) -> Result<&'a Operand> {
        self.0.get(i).copied().flatten().ok_or_else(|| internal(format!("missing operand argument {i}")))
    }
    fn opt(&self, i: usize) -> Option<Operand> {
        self.0.get(i).copied().flatten().cloned()
    }
}

fn req<T: Clone>(v: &Option<T>, name: &str) -> Result<T> {
    v.clone().ok_or_else(|| internal(format!("missing argument {name}")))
}

/// Calls the builder method `op` (its IDL name); returns its output operand(s).
pub fn call(builder: &mut GraphBuilder, op: &str, operands: &[Option<&Operand>], p: &OpParams) -> Result<Vec<Operand>> {
    let kind = OpKind::from_idl_name(op).ok_or_else(|| internal(format!("unknown operation {op}")))?;
    let s = Slots(operands);
    let label = p.label.clone();
    let plain = OperatorOptions { label: label.clone() };
    let one = |r: webnn::Result<Operand>| r.map(|o| vec![o]).map_err(to_py);
    let many = |r: webnn::Result<Vec<Operand>>| r.map_err(to_py);
    let pool = || -> Result<Pool2dOptions> {
        Ok(Pool2dOptions {
            label: label.clone(),
            window_dimensions: p.window_dimensions.clone(),
            padding: p.padding.clone(),
            strides: p.strides.clone(),
            dilations: p.dilations.clone(),
            layout: parse_enum(&p.layout)?,
            output_shape_rounding: parse_enum(&p.output_shape_rounding)?,
            output_sizes: p.output_sizes.clone(),
        })
    };
    use OpKind::*;
    match kind {
        Add | Sub | Mul | Div | Max | Min | Pow | Equal | NotEqual | Greater | GreaterOrEqual | Lesser
        | LesserOrEqual | LogicalAnd | LogicalOr | LogicalXor => {
            one(builder.binary(kind, s.req(0)?, s.req(1)?, &plain))
        }
        LogicalNot | IsNaN | IsInfinite | Abs | Ceil | Cos | Erf | Exp | Floor | Identity | Log | Neg | Reciprocal
        | RoundEven | Sin | Sign | Sqrt | Tan => one(builder.unary(kind, s.req(0)?, &plain)),
        Gelu | HardSwish | Relu | Sigmoid | Softplus | Softsign | Tanh => {
            one(builder.activation(kind, s.req(0)?, &plain))
        }
        ArgMin | ArgMax => {
            let options = ArgMinMaxOptions {
                label,
                keep_dimensions: p.keep_dimensions.unwrap_or(false),
                output_data_type: match &p.output_data_type {
                    Some(t) => data_type(t)?,
                    None => DataType::Int32,
                },
            };
            one(builder.arg_min_max(kind, s.req(0)?, req(&p.axis, "axis")?, &options))
        }
        BatchNormalization => one(builder.batch_normalization(
            s.req(0)?,
            s.req(1)?,
            s.req(2)?,
            &BatchNormalizationOptions {
                label,
                scale: s.opt(3),
                bias: s.opt(4),
                axis: p.axis.unwrap_or(1),
                epsilon: p.epsilon.unwrap_or(1e-5),
            },
        )),
        Cast => one(builder.cast(s.req(0)?, data_type(&req(&p.data_type, "data_type")?)?, &plain)),
        Clamp => one(builder.clamp(
            s.req(0)?,
            &ClampOptions {
                label,
                min_value: p.min_value.as_ref().map(Number::to_ml).transpose()?,
                max_value: p.max_value.as_ref().map(Number::to_ml).transpose()?,
            },
        )),
        Concat => {
            let inputs = operands
                .iter()
                .map(|o| o.ok_or_else(|| internal("concat: missing input")))
                .collect::<Result<Vec<&Operand>>>()?;
            one(builder.concat(&inputs, req(&p.axis, "axis")?, &plain))
        }
        Conv2d => one(builder.conv2d(
            s.req(0)?,
            s.req(1)?,
            &Conv2dOptions {
                label,
                padding: p.padding.clone(),
                strides: p.strides.clone(),
                dilations: p.dilations.clone(),
                groups: p.groups.unwrap_or(1),
                input_layout: parse_enum(&p.input_layout)?,
                filter_layout: parse_enum(&p.filter_layout)?,
                bias: s.opt(2),
            },
        )),
        ConvTranspose2d => one(builder.conv_transpose2d(
            s.req(0)?,
            s.req(1)?,
            &ConvTranspose2dOptions {
                label,
                padding: p.padding.clone(),
                strides: p.strides.clone(),
                dilations: p.dilations.clone(),
                output_padding: p.output_padding.clone(),
                output_sizes: p.output_sizes.clone(),
                groups: p.groups.unwrap_or(1),
                input_layout: parse_enum(&p.input_layout)?,
                filter_layout: parse_enum(&p.filter_layout)?,
                bias: s.opt(2),
            },
        )),
        CumulativeSum => one(builder.cumulative_sum(
            s.req(0)?,
            req(&p.axis, "axis")?,
            &CumulativeSumOptions {
                label,
                exclusive: p.exclusive.unwrap_or(false),
                reversed: p.reversed.unwrap_or(false),
            },
        )),
        DequantizeLinear => one(builder.dequantize_linear(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
        QuantizeLinear => one(builder.quantize_linear(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
        Elu => one(builder.elu(s.req(0)?, &EluOptions { label, alpha: p.alpha.unwrap_or(1.0) })),
        Expand => one(builder.expand(s.req(0)?, &req(&p.new_shape, "new_shape")?, &plain)),
        Gather => one(builder.gather(s.req(0)?, s.req(1)?, &GatherOptions { label, axis: p.axis.unwrap_or(0) })),
        GatherElements => {
            one(builder.gather_elements(s.req(0)?, s.req(1)?, &GatherOptions { label, axis: p.axis.unwrap_or(0) }))
        }
        GatherNd => one(builder.gather_nd(s.req(0)?, s.req(1)?, &plain)),
        Gemm => one(builder.gemm(
            s.req(0)?,
            s.req(1)?,
            &GemmOptions {
                label,
                c: s.opt(2),
                alpha: p.alpha.unwrap_or(1.0),
                beta: p.beta.unwrap_or(1.0),
                a_transpose: p.a_transpose.unwrap_or(false),
                b_transpose: p.b_transpose.unwrap_or(false),
            },
        )),
        Gru => many(builder.gru(
            s.req(0)?,
            s.req(1)?,
            s.req(2)?,
            req(&p.steps, "steps")?,
            req(&p.hidden_size, "hidden_size")?,
            &GruOptions {
                label,
                bias: s.opt(3),
                recurrent_bias: s.opt(4),
                initial_hidden_state: s.opt(5),
                reset_after: p.reset_after.unwrap_or(true),
                return_sequence: p.return_sequence.unwrap_or(false),
                direction: parse_enum(&p.direction)?,
                layout: parse_enum(&p.layout)?,
                activations: activations(&p.activations)?,
            },
        )),
        GruCell => one(builder.gru_cell(
            s.req(0)?,
            s.req(1)?,
            s.req(2)?,
            s.req(3)?,
            req(&p.hidden_size, "hidden_size")?,
            &GruCellOptions {
                label,
                bias: s.opt(4),
                recurrent_bias: s.opt(5),
                reset_after: p.reset_after.unwrap_or(true),
                layout: parse_enum(&p.layout)?,
                activations: activations(&p.activations)?,
            },
        )),
        HardSigmoid => one(builder.hard_sigmoid(
            s.req(0)?,
            &HardSigmoidOptions { label, alpha: p.alpha.unwrap_or(0.2), beta: p.beta.unwrap_or(0.5) },
        )),
        InstanceNormalization => one(builder.instance_normalization(
            s.req(0)?,
            &InstanceNormalizationOptions {
                label,
                scale: s.opt(1),
                bias: s.opt(2),
                epsilon: p.epsilon.unwrap_or(1e-5),
                layout: parse_enum(&p.layout)?,
            },
        )),
        LayerNormalization => one(builder.layer_normalization(
            s.req(0)?,
            &LayerNormalizationOptions {
                label,
                scale: s.opt(1),
                bias: s.opt(2),
                axes: p.axes.clone(),
                epsilon: p.epsilon.unwrap_or(1e-5),
            },
        )),
        LeakyRelu => one(builder.leaky_relu(s.req(0)?, &LeakyReluOptions { label, alpha: p.alpha.unwrap_or(0.01) })),
        Linear => one(builder
            .linear(s.req(0)?, &LinearOptions { label, alpha: p.alpha.unwrap_or(1.0), beta: p.beta.unwrap_or(0.0) })),
        Lstm => many(builder.lstm(
            s.req(0)?,
            s.req(1)?,
            s.req(2)?,
            req(&p.steps, "steps")?,
            req(&p.hidden_size, "hidden_size")?,
            &LstmOptions {
                label,
                bias: s.opt(3),
                recurrent_bias: s.opt(4),
                peephole_weight: s.opt(5),
                initial_hidden_state: s.opt(6),
                initial_cell_state: s.opt(7),
                return_sequence: p.return_sequence.unwrap_or(false),
                direction: parse_enum(&p.direction)?,
                layout: parse_enum(&p.layout)?,
                activations: activations(&p.activations)?,
            },
        )),
        LstmCell => many(builder.lstm_cell(
            s.req(0)?,
            s.req(1)?,
            s.req(2)?,
            s.req(3)?,
            s.req(4)?,
            req(&p.hidden_size, "hidden_size")?,
            &LstmCellOptions {
                label,
                bias: s.opt(5),
                recurrent_bias: s.opt(6),
                peephole_weight: s.opt(7),
                layout: parse_enum(&p.layout)?,
                activations: activations(&p.activations)?,
            },
        )),
        Matmul => one(builder.matmul(s.req(0)?, s.req(1)?, &plain)),
        Pad => one(builder.pad(
            s.req(0)?,
            &req(&p.beginning_padding, "beginning_padding")?,
            &req(&p.ending_padding, "ending_padding")?,
            &PadOptions {
                label,
                mode: parse_enum(&p.mode)?,
                value: p.value.as_ref().map(Number::to_ml).transpose()?.unwrap_or(MLNumber::Double(0.0)),
            },
        )),
        AveragePool2d | L2Pool2d | MaxPool2d => one(builder.pool2d(kind, s.req(0)?, &pool()?)),
        Prelu => one(builder.prelu(s.req(0)?, s.req(1)?, &plain)),
        ReduceL1 | ReduceL2 | ReduceLogSum | ReduceLogSumExp | ReduceMax | ReduceMean | ReduceMin | ReduceProduct
        | ReduceSum | ReduceSumSquare => one(builder.reduce(
            kind,
            s.req(0)?,
            &ReduceOptions { label, axes: p.axes.clone(), keep_dimensions: p.keep_dimensions.unwrap_or(false) },
        )),
        Resample2d => one(builder.resample2d(
            s.req(0)?,
            &Resample2dOptions {
                label,
                mode: parse_enum(&p.mode)?,
                // `sequence<float>`: the Python layer already rounded each item to float32.
                scales: p.scales.as_ref().map(|v| v.iter().map(|&x| x as f32).collect()),
                sizes: p.sizes.clone(),
                axes: p.axes.clone(),
            },
        )),
        Reshape => one(builder.reshape(s.req(0)?, &req(&p.new_shape, "new_shape")?, &plain)),
        Reverse => one(builder.reverse(s.req(0)?, &ReverseOptions { label, axes: p.axes.clone() })),
        ScatterElements => one(builder.scatter_elements(
            s.req(0)?,
            s.req(1)?,
            s.req(2)?,
            &ScatterOptions { label, axis: p.axis.unwrap_or(0) },
        )),
        ScatterNd => one(builder.scatter_nd(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
        Slice => one(builder.slice(
            s.req(0)?,
            &req(&p.starts, "starts")?,
            &req(&p.sizes, "sizes")?,
            &SliceOptions { label, strides: p.strides.clone() },
        )),
        Softmax => one(builder.softmax(s.req(0)?, req(&p.axis, "axis")?, &plain)),
        Split => {
            let splits = match (&p.splits_count, &p.splits_sizes) {
                (Some(n), None) => Splits::Count(*n),
                (None, Some(sizes)) => Splits::Sizes(sizes.clone()),
                _ => return Err(internal("split: give exactly one of splits_count and splits_sizes")),
            };
            many(builder.split(s.req(0)?, &splits, &SplitOptions { label, axis: p.axis.unwrap_or(0) }))
        }
        Tile => one(builder.tile(s.req(0)?, &req(&p.repetitions, "repetitions")?, &plain)),
        Transpose => one(builder.transpose(s.req(0)?, &TransposeOptions { label, permutation: p.permutation.clone() })),
        Triangular => one(builder.triangular(
            s.req(0)?,
            &TriangularOptions { label, upper: p.upper.unwrap_or(true), diagonal: p.diagonal.unwrap_or(0) },
        )),
        Where => one(builder.where_(s.req(0)?, s.req(1)?, s.req(2)?, &plain)),
    }
}
