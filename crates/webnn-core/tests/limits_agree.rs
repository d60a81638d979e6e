//! `opSupportLimits()` and the builder agree: for every op and every data type, the builder
//! accepts an operand group of that type exactly when the limits table lists it.
//!
//! Each op has a canonical valid call whose operands are split into "type groups" (operands
//! that the spec requires to share a data type, e.g. conv2d's input, filter and bias). For each
//! group and each of the 8 data types, the call is made with that group at that type and the
//! other groups at a valid type; it must succeed iff every member of the group allows the type
//! in `op_limits(op)`, and its output type must be allowed by the output limits.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use webnn_core::limits::op_limits;
use webnn_core::*;

fn builder() -> GraphBuilder {
    GraphBuilder::new(ContextLink { id: 7, lost: Arc::new(AtomicBool::new(false)), limits: None }).unwrap()
}

/// Type of each group for one call.
struct Types<'a>(&'a HashMap<&'static str, DataType>);
impl Types<'_> {
    fn of(&self, group: &str) -> DataType {
        self.0[group]
    }
}

fn input(b: &mut GraphBuilder, name: &str, t: DataType, shape: &[u32]) -> Operand {
    b.input(name, &OperandDescriptor::new(t, shape.to_vec())).unwrap()
}

fn index_const(b: &mut GraphBuilder, t: DataType, shape: &[u32]) -> Operand {
    let n: usize = shape.iter().map(|&d| d as usize).product();
    let bytes = vec![0u8; n * t.byte_size()];
    b.constant(&OperandDescriptor::new(t, shape.to_vec()), &bytes).unwrap()
}

fn one(r: Result<Operand>) -> Result<Vec<Operand>> {
    r.map(|o| vec![o])
}

/// A call of an op with the data types of its type groups.
type Dyn = Box<dyn Fn(&mut GraphBuilder, &Types) -> Result<Vec<Operand>>>;
/// An op's type groups: (name, members, default data type).
type Groups = Vec<(&'static str, Vec<&'static str>, DataType)>;
/// One op of the table: (op, type groups, call).
type Row = (OpKind, Groups, Dyn);

/// The [`Row`] of an op whose one type group "x" is the single operand `member` (of data
/// type `default` in the canonical call): an input of `shape` that `call` passes to the op.
fn single_operand(
    op: OpKind,
    member: &'static str,
    default: DataType,
    shape: &'static [u32],
    call: impl Fn(&mut GraphBuilder, &Operand) -> Result<Vec<Operand>> + 'static,
) -> Row {
    let call = move |b: &mut GraphBuilder, t: &Types| {
        let x = input(b, "a", t.of("x"), shape);
        call(b, &x)
    };
    (op, vec![("x", vec![member], default)], Box::new(call))
}

#[test]
fn builder_accepts_exactly_the_limits_data_types() {
    use DataType::*;
    let mut checked = 0;
    let mut ops_seen = std::collections::BTreeSet::new();

    // One closure per op family: (op, groups, call).
    let mut table: Vec<Row> = Vec::new();
    let o = OperatorOptions::default;
    let g = |name: &'static str, members: &[&'static str], t: DataType| (name, members.to_vec(), t);

    use OpKind::*;
    // The element-wise binary ops: the binary limits kind but matmul.
    for op in OpKind::ALL.iter().copied().filter(|&op| op.limits_kind() == LimitsKind::Binary && op != Matmul) {
        table.push((
            op,
            vec![g("x", &["a", "b"], Uint8)],
            Box::new(move |b, t| {
                let x = input(b, "a", t.of("x"), &[2, 3]);
                let y = input(b, "b", t.of("x"), &[3]);
                one(b.binary(op, &x, &y, &o()))
            }),
        ));
    }
    for op in [LogicalNot, IsNaN, IsInfinite] {
        let default = if op == LogicalNot { Uint8 } else { Float32 };
        table.push(single_operand(op, "a", default, &[2, 3], move |b, x| one(b.unary(op, x, &o()))));
    }
    for op in [Abs, Ceil, Cos, Erf, Exp, Floor, Identity, Log, Neg, Reciprocal, RoundEven, Sin, Sign, Sqrt, Tan] {
        table.push(single_operand(op, "input", Float32, &[2, 3], move |b, x| one(b.unary(op, x, &o()))));
    }
    for op in [Gelu, HardSwish, Relu, Sigmoid, Softplus, Softsign, Tanh] {
        table.push(single_operand(op, "input", Float32, &[2, 3], move |b, x| one(b.activation(op, x, &o()))));
    }
    table.push(single_operand(Elu, "input", Float32, &[2, 3], move |b, x| one(b.elu(x, &EluOptions::default()))));
    table.push(single_operand(HardSigmoid, "input", Float32, &[2, 3], move |b, x| {
        one(b.hard_sigmoid(x, &HardSigmoidOptions::default()))
    }));
    table.push(single_operand(LeakyRelu, "input", Float32, &[2, 3], move |b, x| {
        one(b.leaky_relu(x, &LeakyReluOptions::default()))
    }));
    table.push(single_operand(Linear, "input", Float32, &[2, 3], move |b, x| {
        one(b.linear(x, &LinearOptions::default()))
    }));
    table.push(single_operand(Clamp, "input", Float32, &[2, 3], move |b, x| one(b.clamp(x, &ClampOptions::default()))));
    table.push((
        Prelu,
        vec![g("x", &["input", "slope"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let s = input(b, "s", t.of("x"), &[3]);
            one(b.prelu(&x, &s, &o()))
        }),
    ));
    table.push(single_operand(Softmax, "input", Float32, &[2, 3], move |b, x| one(b.softmax(x, 1, &o()))));
    table.push((
        Cast,
        vec![g("x", &["input"], Float32), g("to", &["output"], Int32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            one(b.cast(&x, t.of("to"), &o()))
        }),
    ));
    for op in [ArgMin, ArgMax] {
        table.push((
            op,
            vec![g("x", &["input"], Float32), g("out", &["output"], Int32)],
            Box::new(move |b, t| {
                let x = input(b, "a", t.of("x"), &[2, 3]);
                let options = ArgMinMaxOptions { output_data_type: t.of("out"), ..Default::default() };
                one(b.arg_min_max(op, &x, 1, &options))
            }),
        ));
    }
    // The ten reductions (reduceL1 … reduceSumSquare).
    for op in OpKind::ALL.iter().copied().filter(|op| op.idl_name().starts_with("reduce")) {
        table.push(single_operand(op, "input", Float32, &[2, 3], move |b, x| {
            one(b.reduce(op, x, &ReduceOptions::default()))
        }));
    }
    table.push(single_operand(CumulativeSum, "input", Float32, &[2, 3], move |b, x| {
        one(b.cumulative_sum(x, 0, &CumulativeSumOptions::default()))
    }));
    table.push((
        QuantizeLinear,
        vec![g("x", &["input", "scale"], Float32), g("zp", &["zeroPoint"], Uint8)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 4]);
            let s = input(b, "s", t.of("x"), &[1, 2]);
            let z = input(b, "z", t.of("zp"), &[1, 2]);
            one(b.quantize_linear(&x, &s, &z, &o()))
        }),
    ));
    table.push((
        DequantizeLinear,
        vec![g("x", &["input", "zeroPoint"], Uint8), g("s", &["scale"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 4]);
            let s = input(b, "s", t.of("s"), &[1, 2]);
            let z = input(b, "z", t.of("x"), &[1, 2]);
            one(b.dequantize_linear(&x, &s, &z, &o()))
        }),
    ));
    // Data movement.
    table.push((
        Concat,
        vec![g("x", &["inputs"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let y = input(b, "b", t.of("x"), &[1, 3]);
            one(b.concat(&[&x, &y], 0, &o()))
        }),
    ));
    table.push(single_operand(Expand, "input", Float32, &[1, 3], move |b, x| one(b.expand(x, &[2, 3], &o()))));
    table.push(single_operand(Pad, "input", Float32, &[2, 3], move |b, x| {
        one(b.pad(x, &[1, 0], &[0, 1], &PadOptions::default()))
    }));
    table.push(single_operand(Reshape, "input", Float32, &[2, 3], move |b, x| one(b.reshape(x, &[3, 2], &o()))));
    table.push(single_operand(Reverse, "input", Float32, &[2, 3], move |b, x| {
        one(b.reverse(x, &ReverseOptions::default()))
    }));
    table.push(single_operand(Slice, "input", Float32, &[2, 3], move |b, x| {
        one(b.slice(x, &[0, 1], &[2, 2], &SliceOptions::default()))
    }));
    table.push(single_operand(Split, "input", Float32, &[2, 4], move |b, x| {
        b.split(x, &Splits::Count(2), &SplitOptions { axis: 1, ..Default::default() })
    }));
    table.push(single_operand(Tile, "input", Float32, &[2, 3], move |b, x| one(b.tile(x, &[2, 1], &o()))));
    table.push(single_operand(Transpose, "input", Float32, &[2, 3], move |b, x| {
        one(b.transpose(x, &TransposeOptions::default()))
    }));
    table.push(single_operand(Triangular, "input", Float32, &[3, 3], move |b, x| {
        one(b.triangular(x, &TriangularOptions::default()))
    }));
    table.push((
        Where,
        vec![g("c", &["condition"], Uint8), g("x", &["trueValue", "falseValue"], Float32)],
        Box::new(move |b, t| {
            let c = input(b, "c", t.of("c"), &[2, 3]);
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let y = input(b, "b", t.of("x"), &[3]);
            one(b.where_(&c, &x, &y, &o()))
        }),
    ));
    for op in [Gather, GatherElements, GatherNd] {
        table.push((
            op,
            vec![g("x", &["input"], Float32), g("i", &["indices"], Int32)],
            Box::new(move |b, t| {
                let x = input(b, "a", t.of("x"), &[2, 3]);
                let i = index_const(b, t.of("i"), if op == GatherNd { &[2, 1] } else { &[2, 3] });
                one(match op {
                    Gather => b.gather(&x, &i, &GatherOptions::default()),
                    GatherElements => b.gather_elements(&x, &i, &GatherOptions::default()),
                    _ => b.gather_nd(&x, &i, &o()),
                })
            }),
        ));
    }
    table.push((
        ScatterElements,
        vec![g("x", &["input", "updates"], Float32), g("i", &["indices"], Int32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let i = index_const(b, t.of("i"), &[1, 3]);
            let u = input(b, "u", t.of("x"), &[1, 3]);
            one(b.scatter_elements(&x, &i, &u, &ScatterOptions::default()))
        }),
    ));
    table.push((
        ScatterNd,
        vec![g("x", &["input", "updates"], Float32), g("i", &["indices"], Int32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let i = index_const(b, t.of("i"), &[1, 1]);
            let u = input(b, "u", t.of("x"), &[1, 3]);
            one(b.scatter_nd(&x, &i, &u, &o()))
        }),
    ));
    // Matrix multiply, convolution, pooling, resampling, normalization, recurrent.
    table.push((
        Matmul,
        vec![g("x", &["a", "b"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let y = input(b, "b", t.of("x"), &[3, 4]);
            one(b.matmul(&x, &y, &o()))
        }),
    ));
    table.push((
        Gemm,
        vec![g("x", &["a", "b", "c"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let y = input(b, "b", t.of("x"), &[3, 4]);
            let c = input(b, "c", t.of("x"), &[4]);
            one(b.gemm(&x, &y, &GemmOptions { c: Some(c), ..Default::default() }))
        }),
    ));
    table.push((
        Conv2d,
        vec![g("x", &["input", "filter", "bias"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[1, 2, 5, 5]);
            let f = input(b, "f", t.of("x"), &[4, 2, 3, 3]);
            let bias = input(b, "bias", t.of("x"), &[4]);
            one(b.conv2d(&x, &f, &Conv2dOptions { bias: Some(bias), ..Conv2dOptions::new() }))
        }),
    ));
    table.push((
        ConvTranspose2d,
        vec![g("x", &["input", "filter", "bias"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[1, 2, 5, 5]);
            let f = input(b, "f", t.of("x"), &[2, 4, 3, 3]);
            let bias = input(b, "bias", t.of("x"), &[4]);
            one(b.conv_transpose2d(
                &x,
                &f,
                &ConvTranspose2dOptions { bias: Some(bias), ..ConvTranspose2dOptions::new() },
            ))
        }),
    ));
    for op in [AveragePool2d, L2Pool2d, MaxPool2d] {
        table.push((
            op,
            vec![g("x", &["input"], Float32)],
            Box::new(move |b, t| {
                let x = input(b, "a", t.of("x"), &[1, 2, 4, 4]);
                let options = Pool2dOptions { window_dimensions: Some(vec![2, 2]), ..Default::default() };
                one(match op {
                    AveragePool2d => b.average_pool2d(&x, &options),
                    L2Pool2d => b.l2_pool2d(&x, &options),
                    _ => b.max_pool2d(&x, &options),
                })
            }),
        ));
    }
    table.push(single_operand(Resample2d, "input", Float32, &[1, 2, 4, 4], move |b, x| {
        one(b.resample2d(x, &Resample2dOptions { scales: Some(vec![2.0, 2.0]), ..Default::default() }))
    }));
    table.push((
        BatchNormalization,
        vec![g("x", &["input", "mean", "variance", "scale", "bias"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[1, 2, 3]);
            let m = input(b, "m", t.of("x"), &[2]);
            let v = input(b, "v", t.of("x"), &[2]);
            let s = input(b, "s", t.of("x"), &[2]);
            let bias = input(b, "bias", t.of("x"), &[2]);
            one(b.batch_normalization(
                &x,
                &m,
                &v,
                &BatchNormalizationOptions { scale: Some(s), bias: Some(bias), ..Default::default() },
            ))
        }),
    ));
    table.push((
        InstanceNormalization,
        vec![g("x", &["input", "scale", "bias"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[1, 2, 3, 3]);
            let s = input(b, "s", t.of("x"), &[2]);
            let bias = input(b, "bias", t.of("x"), &[2]);
            one(b.instance_normalization(
                &x,
                &InstanceNormalizationOptions { scale: Some(s), bias: Some(bias), ..Default::default() },
            ))
        }),
    ));
    table.push((
        LayerNormalization,
        vec![g("x", &["input", "scale", "bias"], Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 3]);
            let s = input(b, "s", t.of("x"), &[3]);
            let bias = input(b, "bias", t.of("x"), &[3]);
            one(b.layer_normalization(
                &x,
                &LayerNormalizationOptions { scale: Some(s), bias: Some(bias), ..Default::default() },
            ))
        }),
    ));
    table.push((
        Gru,
        vec![g("x", Gru.limits_kind().inputs(), Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 1, 3]);
            let w = input(b, "w", t.of("x"), &[1, 12, 3]);
            let r = input(b, "r", t.of("x"), &[1, 12, 4]);
            let bias = input(b, "bias", t.of("x"), &[1, 12]);
            let rb = input(b, "rb", t.of("x"), &[1, 12]);
            let h = input(b, "h", t.of("x"), &[1, 1, 4]);
            b.gru(
                &x,
                &w,
                &r,
                2,
                4,
                &GruOptions {
                    bias: Some(bias),
                    recurrent_bias: Some(rb),
                    initial_hidden_state: Some(h),
                    return_sequence: true,
                    ..Default::default()
                },
            )
        }),
    ));
    table.push((
        GruCell,
        vec![g("x", GruCell.limits_kind().inputs(), Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[1, 3]);
            let w = input(b, "w", t.of("x"), &[12, 3]);
            let r = input(b, "r", t.of("x"), &[12, 4]);
            let h = input(b, "h", t.of("x"), &[1, 4]);
            let bias = input(b, "bias", t.of("x"), &[12]);
            let rb = input(b, "rb", t.of("x"), &[12]);
            one(b.gru_cell(
                &x,
                &w,
                &r,
                &h,
                4,
                &GruCellOptions { bias: Some(bias), recurrent_bias: Some(rb), ..Default::default() },
            ))
        }),
    ));
    table.push((
        Lstm,
        vec![g("x", Lstm.limits_kind().inputs(), Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[2, 1, 3]);
            let w = input(b, "w", t.of("x"), &[1, 16, 3]);
            let r = input(b, "r", t.of("x"), &[1, 16, 4]);
            let bias = input(b, "bias", t.of("x"), &[1, 16]);
            let rb = input(b, "rb", t.of("x"), &[1, 16]);
            let p = input(b, "p", t.of("x"), &[1, 12]);
            let h = input(b, "h", t.of("x"), &[1, 1, 4]);
            let c = input(b, "c", t.of("x"), &[1, 1, 4]);
            b.lstm(
                &x,
                &w,
                &r,
                2,
                4,
                &LstmOptions {
                    bias: Some(bias),
                    recurrent_bias: Some(rb),
                    peephole_weight: Some(p),
                    initial_hidden_state: Some(h),
                    initial_cell_state: Some(c),
                    return_sequence: true,
                    ..Default::default()
                },
            )
        }),
    ));
    table.push((
        LstmCell,
        vec![g("x", LstmCell.limits_kind().inputs(), Float32)],
        Box::new(move |b, t| {
            let x = input(b, "a", t.of("x"), &[1, 3]);
            let w = input(b, "w", t.of("x"), &[16, 3]);
            let r = input(b, "r", t.of("x"), &[16, 4]);
            let h = input(b, "h", t.of("x"), &[1, 4]);
            let c = input(b, "c", t.of("x"), &[1, 4]);
            let bias = input(b, "bias", t.of("x"), &[16]);
            let rb = input(b, "rb", t.of("x"), &[16]);
            let p = input(b, "p", t.of("x"), &[12]);
            b.lstm_cell(
                &x,
                &w,
                &r,
                &h,
                &c,
                4,
                &LstmCellOptions {
                    bias: Some(bias),
                    recurrent_bias: Some(rb),
                    peephole_weight: Some(p),
                    ..Default::default()
                },
            )
        }),
    ));

    for (op, groups, call) in &table {
        ops_seen.insert(*op);
        let limits: HashMap<&str, webnn_core::TensorLimits> = op_limits(*op).into_iter().collect();
        let defaults: HashMap<&'static str, DataType> = groups.iter().map(|(n, _, t)| (*n, *t)).collect();
        // The canonical call is valid.
        let mut b = builder();
        let outs = call(&mut b, &Types(&defaults)).unwrap_or_else(|e| panic!("{op}: canonical call fails: {e}"));
        for (i, out) in outs.iter().enumerate() {
            let members = op.limits_kind().outputs();
            let member = if members.len() == 1 { members[0] } else { members[i] };
            assert!(limits[member].data_types.contains(&out.data_type()), "{op}: output type {}", out.data_type());
        }
        for (group, members, _) in groups {
            for t in DataType::ALL {
                let allowed_by: Vec<bool> = members.iter().map(|m| limits[m].data_types.contains(&t)).collect();
                let expect_ok = allowed_by.iter().all(|&a| a);
                let mut types = defaults.clone();
                types.insert(group, t);
                let mut b = builder();
                let result = call(&mut b, &Types(&types));
                match (&result, expect_ok) {
                    (Ok(_), true) => {}
                    (Err(e), false) => assert_eq!(e.kind, ErrorKind::Type, "{op} {group}={t}: {e}"),
                    (Ok(_), false) => {
                        panic!("{op}: builder accepts {group}={t} but the limits of {members:?} say {allowed_by:?}")
                    }
                    (Err(e), true) => panic!("{op}: limits allow {group}={t} but the builder says: {e}"),
                }
                checked += 1;
            }
        }
    }
    let missing: Vec<_> = OpKind::ALL.iter().filter(|o| !ops_seen.contains(o)).collect();
    assert!(missing.is_empty(), "ops without a limits-agreement case: {missing:?}");
    assert!(checked >= 95 * 8, "{checked}");
}
