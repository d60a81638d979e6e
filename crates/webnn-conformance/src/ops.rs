//! Maps one operator of a vector (`name` + `argList`) to the matching `MLGraphBuilder` call.

use crate::values::{integer, number};
use serde_json::{Map, Value};
use std::collections::HashMap;
use webnn::*;

/// The operands of a graph by name.
pub type Operands = HashMap<String, Operand>;

/// The arguments of one operator call, with typed accessors.
pub struct Args<'a> {
    list: &'a [Value],
    operands: &'a Operands,
}

fn err(msg: impl Into<String>) -> String {
    msg.into()
}

impl<'a> Args<'a> {
    fn entry(&self, name: &str) -> Option<&'a Value> {
        self.list.iter().find(|a| a["name"] == name).map(|a| &a["value"])
    }
    fn operand(&self, name: &str) -> Result<&'a Operand, String> {
        let key = self.entry(name).and_then(Value::as_str).ok_or_else(|| err(format!("missing operand {name}")))?;
        self.operands.get(key).ok_or_else(|| err(format!("unknown operand {key}")))
    }
    fn operand_list(&self, name: &str) -> Result<Vec<&'a Operand>, String> {
        let list = self.entry(name).and_then(Value::as_array).ok_or_else(|| err(format!("missing list {name}")))?;
        list.iter()
            .map(|v| {
                let key = v.as_str().ok_or("operand list item is not a name")?;
                self.operands.get(key).ok_or_else(|| format!("unknown operand {key}"))
            })
            .collect()
    }
    fn u32(&self, name: &str) -> Result<u32, String> {
        self.entry(name).ok_or_else(|| err(format!("missing {name}"))).and_then(to_u32)
    }
    fn u32_list(&self, name: &str) -> Result<Vec<u32>, String> {
        self.entry(name).ok_or_else(|| err(format!("missing {name}"))).and_then(to_u32_list)
    }
    fn options(&self) -> Opts<'a> {
        let map = self.list.iter().find(|a| a["kind"] == "options").and_then(|a| a["value"].as_object());
        Opts { map, operands: self.operands }
    }
}

/// The options dictionary of a call.
pub struct Opts<'a> {
    map: Option<&'a Map<String, Value>>,
    operands: &'a Operands,
}

impl Opts<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.map.and_then(|m| m.get(key)).filter(|v| !v.is_null())
    }
    fn operand(&self, key: &str) -> Result<Option<Operand>, String> {
        match self.get(key).and_then(Value::as_str) {
            None => Ok(None),
            Some(name) => self.operands.get(name).cloned().map(Some).ok_or_else(|| format!("unknown operand {name}")),
        }
    }
    fn u32_list(&self, key: &str) -> Result<Option<Vec<u32>>, String> {
        self.get(key).map(to_u32_list).transpose()
    }
    fn u32_or(&self, key: &str, default: u32) -> Result<u32, String> {
        self.get(key).map(to_u32).transpose().map(|v| v.unwrap_or(default))
    }
    fn f64_or(&self, key: &str, default: f64) -> Result<f64, String> {
        self.get(key).map(number).transpose().map(|v| v.unwrap_or(default))
    }
    fn bool_or(&self, key: &str, default: bool) -> bool {
        self.get(key).and_then(Value::as_bool).unwrap_or(default)
    }
    fn parse<T: std::str::FromStr<Err = Error> + Default>(&self, key: &str) -> Result<T, String> {
        match self.get(key).and_then(Value::as_str) {
            None => Ok(T::default()),
            Some(s) => s.parse().map_err(|e: Error| e.message),
        }
    }
    fn number(&self, key: &str) -> Result<Option<MLNumber>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if s.parse::<i128>().is_ok() => Ok(Some(MLNumber::BigInt(s.parse().unwrap_or(0)))),
            Some(v) => number(v).map(|n| Some(MLNumber::Double(n))),
        }
    }
    fn activations(&self) -> Result<Option<Vec<RecurrentNetworkActivation>>, String> {
        match self.get("activations").and_then(Value::as_array) {
            None => Ok(None),
            Some(list) => list
                .iter()
                .map(|v| v.as_str().ok_or("activation is not a string".to_string())?.parse().map_err(|e: Error| e.message))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
        }
    }
    fn label(&self) -> String {
        self.get("label").and_then(Value::as_str).unwrap_or_default().to_string()
    }
}

fn to_u32(v: &Value) -> Result<u32, String> {
    let i = integer(v)?;
    u32::try_from(i).map_err(|_| format!("{i} is not an unsigned long"))
}

fn to_u32_list(v: &Value) -> Result<Vec<u32>, String> {
    v.as_array().ok_or_else(|| format!("expected a list, got {v}"))?.iter().map(to_u32).collect()
}

/// Calls the builder method named `name` with `arg_list`; returns its output operand(s). Takes
/// the core builder, so a `webnn::GraphBuilder` (which derefs to it) and a backend-less one
/// both work.
pub fn call(builder: &mut webnn::webnn_core::GraphBuilder, name: &str, arg_list: &[Value], operands: &Operands) -> Result<Vec<Operand>, String> {
    let args = Args { list: arg_list, operands };
    let o = args.options();
    let plain = OperatorOptions { label: o.label() };
    let one = |r: webnn::Result<Operand>| r.map(|x| vec![x]).map_err(|e| e.to_string());
    let many = |r: webnn::Result<Vec<Operand>>| r.map_err(|e| e.to_string());
    let reduce = ReduceOptions { label: o.label(), axes: o.u32_list("axes")?, keep_dimensions: o.bool_or("keepDimensions", false) };
    let pool = || -> Result<Pool2dOptions, String> {
        Ok(Pool2dOptions {
            label: o.label(),
            window_dimensions: o.u32_list("windowDimensions")?,
            padding: o.u32_list("padding")?,
            strides: o.u32_list("strides")?,
            dilations: o.u32_list("dilations")?,
            layout: o.parse("layout")?,
            output_shape_rounding: o.parse("outputShapeRounding")?,
            output_sizes: o.u32_list("outputSizes")?,
        })
    };
    if let Some(kind) = OpKind::from_idl_name(name) {
        use OpKind::*;
        match kind {
            Add | Sub | Mul | Div | Max | Min | Pow | Equal | NotEqual | Greater | GreaterOrEqual | Lesser
            | LesserOrEqual | LogicalAnd | LogicalOr | LogicalXor => {
                return one(builder.binary(kind, args.operand("a")?, args.operand("b")?, &plain))
            }
            LogicalNot | IsNaN | IsInfinite => {
                let x = args.operand("a").or_else(|_| args.operand("input"))?;
                return one(builder.unary(kind, x, &plain));
            }
            Abs | Ceil | Cos | Erf | Exp | Floor | Identity | Log | Neg | Reciprocal | RoundEven | Sin | Sign | Sqrt
            | Tan => return one(builder.unary(kind, args.operand("input")?, &plain)),
            _ => {}
        }
    }
    match name {
        "argMin" | "argMax" => {
            let options = ArgMinMaxOptions {
                label: o.label(),
                keep_dimensions: o.bool_or("keepDimensions", false),
                output_data_type: match o.get("outputDataType").and_then(Value::as_str) {
                    Some(s) => s.parse().map_err(|e: Error| e.message)?,
                    None => DataType::Int32,
                },
            };
            let (x, axis) = (args.operand("input")?, args.u32("axis")?);
            one(if name == "argMin" { builder.arg_min(x, axis, &options) } else { builder.arg_max(x, axis, &options) })
        }
        "batchNormalization" => one(builder.batch_normalization(
            args.operand("input")?,
            args.operand("mean")?,
            args.operand("variance")?,
            &BatchNormalizationOptions {
                label: o.label(),
                scale: o.operand("scale")?,
                bias: o.operand("bias")?,
                axis: o.u32_or("axis", 1)?,
                epsilon: o.f64_or("epsilon", 1e-5)?,
            },
        )),
        "cast" => {
            let t = args.entry("type").or_else(|| args.entry("dataType")).and_then(Value::as_str).ok_or("cast type")?;
            one(builder.cast(args.operand("input")?, t.parse().map_err(|e: Error| e.message)?, &plain))
        }
        "clamp" => one(builder.clamp(
            args.operand("input")?,
            &ClampOptions { label: o.label(), min_value: o.number("minValue")?, max_value: o.number("maxValue")? },
        )),
        "concat" => one(builder.concat(&args.operand_list("inputs")?, args.u32("axis")?, &plain)),
        "conv2d" => one(builder.conv2d(
            args.operand("input")?,
            args.operand("filter")?,
            &Conv2dOptions {
                label: o.label(),
                padding: o.u32_list("padding")?,
                strides: o.u32_list("strides")?,
                dilations: o.u32_list("dilations")?,
                groups: o.u32_or("groups", 1)?,
                input_layout: o.parse("inputLayout")?,
                filter_layout: o.parse("filterLayout")?,
                bias: o.operand("bias")?,
            },
        )),
        "convTranspose2d" => one(builder.conv_transpose2d(
            args.operand("input")?,
            args.operand("filter")?,
            &ConvTranspose2dOptions {
                label: o.label(),
                padding: o.u32_list("padding")?,
                strides: o.u32_list("strides")?,
                dilations: o.u32_list("dilations")?,
                output_padding: o.u32_list("outputPadding")?,
                output_sizes: o.u32_list("outputSizes")?,
                groups: o.u32_or("groups", 1)?,
                input_layout: o.parse("inputLayout")?,
                filter_layout: o.parse("filterLayout")?,
                bias: o.operand("bias")?,
            },
        )),
        "cumulativeSum" => one(builder.cumulative_sum(
            args.operand("input")?,
            args.u32("axis")?,
            &CumulativeSumOptions { label: o.label(), exclusive: o.bool_or("exclusive", false), reversed: o.bool_or("reversed", false) },
        )),
        "dequantizeLinear" | "quantizeLinear" => {
            let (x, s, z) = (args.operand("input")?, args.operand("scale")?, args.operand("zeroPoint")?);
            one(if name == "quantizeLinear" { builder.quantize_linear(x, s, z, &plain) } else { builder.dequantize_linear(x, s, z, &plain) })
        }
        "elu" => one(builder.elu(args.operand("input")?, &EluOptions { label: o.label(), alpha: o.f64_or("alpha", 1.0)? })),
        "expand" => one(builder.expand(args.operand("input")?, &args.u32_list("newShape")?, &plain)),
        "gather" | "gatherElements" => {
            let options = GatherOptions { label: o.label(), axis: o.u32_or("axis", 0)? };
            let (x, i) = (args.operand("input")?, args.operand("indices")?);
            one(if name == "gather" { builder.gather(x, i, &options) } else { builder.gather_elements(x, i, &options) })
        }
        "gatherND" => one(builder.gather_nd(args.operand("input")?, args.operand("indices")?, &plain)),
        "gelu" => one(builder.gelu(args.operand("input")?, &plain)),
        "gemm" => one(builder.gemm(
            args.operand("a")?,
            args.operand("b")?,
            &GemmOptions {
                label: o.label(),
                c: o.operand("c")?,
                alpha: o.f64_or("alpha", 1.0)?,
                beta: o.f64_or("beta", 1.0)?,
                a_transpose: o.bool_or("aTranspose", false),
                b_transpose: o.bool_or("bTranspose", false),
            },
        )),
        "gru" => many(builder.gru(
            args.operand("input")?,
            args.operand("weight")?,
            args.operand("recurrentWeight")?,
            args.u32("steps")?,
            args.u32("hiddenSize")?,
            &GruOptions {
                label: o.label(),
                bias: o.operand("bias")?,
                recurrent_bias: o.operand("recurrentBias")?,
                initial_hidden_state: o.operand("initialHiddenState")?,
                reset_after: o.bool_or("resetAfter", true),
                return_sequence: o.bool_or("returnSequence", false),
                direction: o.parse("direction")?,
                layout: o.parse("layout")?,
                activations: o.activations()?,
            },
        )),
        "gruCell" => one(builder.gru_cell(
            args.operand("input")?,
            args.operand("weight")?,
            args.operand("recurrentWeight")?,
            args.operand("hiddenState")?,
            args.u32("hiddenSize")?,
            &GruCellOptions {
                label: o.label(),
                bias: o.operand("bias")?,
                recurrent_bias: o.operand("recurrentBias")?,
                reset_after: o.bool_or("resetAfter", true),
                layout: o.parse("layout")?,
                activations: o.activations()?,
            },
        )),
        "hardSigmoid" => one(builder.hard_sigmoid(
            args.operand("input")?,
            &HardSigmoidOptions { label: o.label(), alpha: o.f64_or("alpha", 0.2)?, beta: o.f64_or("beta", 0.5)? },
        )),
        "hardSwish" => one(builder.hard_swish(args.operand("input")?, &plain)),
        "instanceNormalization" => one(builder.instance_normalization(
            args.operand("input")?,
            &InstanceNormalizationOptions {
                label: o.label(),
                scale: o.operand("scale")?,
                bias: o.operand("bias")?,
                epsilon: o.f64_or("epsilon", 1e-5)?,
                layout: o.parse("layout")?,
            },
        )),
        "layerNormalization" => one(builder.layer_normalization(
            args.operand("input")?,
            &LayerNormalizationOptions {
                label: o.label(),
                scale: o.operand("scale")?,
                bias: o.operand("bias")?,
                axes: o.u32_list("axes")?,
                epsilon: o.f64_or("epsilon", 1e-5)?,
            },
        )),
        "leakyRelu" => one(builder.leaky_relu(args.operand("input")?, &LeakyReluOptions { label: o.label(), alpha: o.f64_or("alpha", 0.01)? })),
        "linear" => one(builder.linear(
            args.operand("input")?,
            &LinearOptions { label: o.label(), alpha: o.f64_or("alpha", 1.0)?, beta: o.f64_or("beta", 0.0)? },
        )),
        "lstm" => many(builder.lstm(
            args.operand("input")?,
            args.operand("weight")?,
            args.operand("recurrentWeight")?,
            args.u32("steps")?,
            args.u32("hiddenSize")?,
            &LstmOptions {
                label: o.label(),
                bias: o.operand("bias")?,
                recurrent_bias: o.operand("recurrentBias")?,
                peephole_weight: o.operand("peepholeWeight")?,
                initial_hidden_state: o.operand("initialHiddenState")?,
                initial_cell_state: o.operand("initialCellState")?,
                return_sequence: o.bool_or("returnSequence", false),
                direction: o.parse("direction")?,
                layout: o.parse("layout")?,
                activations: o.activations()?,
            },
        )),
        "lstmCell" => many(builder.lstm_cell(
            args.operand("input")?,
            args.operand("weight")?,
            args.operand("recurrentWeight")?,
            args.operand("hiddenState")?,
            args.operand("cellState")?,
            args.u32("hiddenSize")?,
            &LstmCellOptions {
                label: o.label(),
                bias: o.operand("bias")?,
                recurrent_bias: o.operand("recurrentBias")?,
                peephole_weight: o.operand("peepholeWeight")?,
                layout: o.parse("layout")?,
                activations: o.activations()?,
            },
        )),
        "matmul" => one(builder.matmul(args.operand("a")?, args.operand("b")?, &plain)),
        "pad" => one(builder.pad(
            args.operand("input")?,
            &args.u32_list("beginningPadding")?,
            &args.u32_list("endingPadding")?,
            &PadOptions { label: o.label(), mode: o.parse("mode")?, value: o.number("value")?.unwrap_or(MLNumber::Double(0.0)) },
        )),
        "averagePool2d" => one(builder.average_pool2d(args.operand("input")?, &pool()?)),
        "l2Pool2d" => one(builder.l2_pool2d(args.operand("input")?, &pool()?)),
        "maxPool2d" => one(builder.max_pool2d(args.operand("input")?, &pool()?)),
        "prelu" => one(builder.prelu(args.operand("input")?, args.operand("slope")?, &plain)),
        "reduceL1" => one(builder.reduce_l1(args.operand("input")?, &reduce)),
        "reduceL2" => one(builder.reduce_l2(args.operand("input")?, &reduce)),
        "reduceLogSum" => one(builder.reduce_log_sum(args.operand("input")?, &reduce)),
        "reduceLogSumExp" => one(builder.reduce_log_sum_exp(args.operand("input")?, &reduce)),
        "reduceMax" => one(builder.reduce_max(args.operand("input")?, &reduce)),
        "reduceMean" => one(builder.reduce_mean(args.operand("input")?, &reduce)),
        "reduceMin" => one(builder.reduce_min(args.operand("input")?, &reduce)),
        "reduceProduct" => one(builder.reduce_product(args.operand("input")?, &reduce)),
        "reduceSum" => one(builder.reduce_sum(args.operand("input")?, &reduce)),
        "reduceSumSquare" => one(builder.reduce_sum_square(args.operand("input")?, &reduce)),
        "relu" => one(builder.relu(args.operand("input")?, &plain)),
        "resample2d" => one(builder.resample2d(
            args.operand("input")?,
            &Resample2dOptions {
                label: o.label(),
                mode: o.parse("mode")?,
                scales: match o.get("scales").and_then(Value::as_array) {
                    None => None,
                    Some(list) => Some(list.iter().map(|v| number(v).map(|x| x as f32)).collect::<Result<Vec<_>, _>>()?),
                },
                sizes: o.u32_list("sizes")?,
                axes: o.u32_list("axes")?,
            },
        )),
        "reshape" => one(builder.reshape(args.operand("input")?, &args.u32_list("newShape")?, &plain)),
        "reverse" => one(builder.reverse(args.operand("input")?, &ReverseOptions { label: o.label(), axes: o.u32_list("axes")? })),
        "scatterElements" => one(builder.scatter_elements(
            args.operand("input")?,
            args.operand("indices")?,
            args.operand("updates")?,
            &ScatterOptions { label: o.label(), axis: o.u32_or("axis", 0)? },
        )),
        "scatterND" => one(builder.scatter_nd(args.operand("input")?, args.operand("indices")?, args.operand("updates")?, &plain)),
        "sigmoid" => one(builder.sigmoid(args.operand("input")?, &plain)),
        "slice" => one(builder.slice(
            args.operand("input")?,
            &args.u32_list("starts")?,
            &args.u32_list("sizes")?,
            &SliceOptions { label: o.label(), strides: o.u32_list("strides")? },
        )),
        "softmax" => {
            // The 2025 vectors call softmax(input) on rank-2 inputs, from before `axis` became
            // required; their tolerance function then uses axis 1 (the last axis), and so do we.
            let axis = match args.entry("axis") {
                Some(v) => to_u32(v)?,
                None => 1,
            };
            one(builder.softmax(args.operand("input")?, axis, &plain))
        }
        "softplus" => one(builder.softplus(args.operand("input")?, &plain)),
        "softsign" => one(builder.softsign(args.operand("input")?, &plain)),
        "split" => {
            let splits = match args.entry("splits") {
                Some(Value::Array(_)) => Splits::Sizes(args.u32_list("splits")?),
                Some(v) => Splits::Count(to_u32(v)?),
                None => return Err("split: missing splits".into()),
            };
            many(builder.split(args.operand("input")?, &splits, &SplitOptions { label: o.label(), axis: o.u32_or("axis", 0)? }))
        }
        "tanh" => one(builder.tanh(args.operand("input")?, &plain)),
        "tile" => one(builder.tile(args.operand("input")?, &args.u32_list("repetitions")?, &plain)),
        "transpose" => one(builder.transpose(
            args.operand("input")?,
            &TransposeOptions { label: o.label(), permutation: o.u32_list("permutation")? },
        )),
        "triangular" => one(builder.triangular(
            args.operand("input")?,
            &TriangularOptions {
                label: o.label(),
                upper: o.bool_or("upper", true),
                diagonal: match o.get("diagonal") {
                    Some(v) => i32::try_from(integer(v)?).map_err(|_| "diagonal out of range")?,
                    None => 0,
                },
            },
        )),
        "where" => one(builder.where_(args.operand("condition")?, args.operand("trueValue")?, args.operand("falseValue")?, &plain)),
        other => Err(format!("unknown operator {other}")),
    }
}
