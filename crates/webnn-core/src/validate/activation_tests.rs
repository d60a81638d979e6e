//! Table tests of cast, clamp, (de)quantizeLinear, elu, gelu, hardSigmoid, hardSwish,
//! leakyRelu, linear, prelu, relu, sigmoid, softmax, softplus, softsign, tanh.

use super::OpCall;
use crate::graph::Attrs;
use crate::limits::{member_limits, QUANTIZED};
use crate::testing::*;
use crate::types::Scalar;
use crate::validate::test_support::{assert_allowed_types, AXIS_ROWS};
use crate::DataType::*;
use half::f16;

const SHAPES: [&[u32]; 4] = [&[], &[5], &[2, 3], &[1, 2, 3, 4, 5, 6, 7, 8]];
const PLAIN: [OpKind; 7] =
    [OpKind::Gelu, OpKind::HardSwish, OpKind::Relu, OpKind::Sigmoid, OpKind::Softplus, OpKind::Softsign, OpKind::Tanh];

/// Builds `out` and returns the attributes of the operation that produced it.
fn attrs_of(mut b: GraphBuilder, out: &Operand) -> Attrs {
    let g = b.build(&[("out", out)]).unwrap();
    let id = g.outputs[0].1;
    let op = g.operations.iter().find(|o| o.outputs.contains(&id)).unwrap();
    op.attrs.clone()
}

fn allowed(op: OpKind, member: &str) -> &'static [DataType] {
    member_limits(op, member).unwrap().data_types
}

/// The single-input ops that [`call_single`] calls.
const SINGLE_INPUT_OPS: [OpKind; 14] = [
    OpKind::Gelu,
    OpKind::HardSwish,
    OpKind::Relu,
    OpKind::Sigmoid,
    OpKind::Softplus,
    OpKind::Softsign,
    OpKind::Tanh,
    OpKind::Elu,
    OpKind::HardSigmoid,
    OpKind::LeakyRelu,
    OpKind::Linear,
    OpKind::Clamp,
    OpKind::Cast,
    OpKind::Softmax,
];

/// Calls the option-less form of a single-input op of this file by kind.
fn call_single(b: &mut GraphBuilder, op: OpKind, x: &Operand, label: &str) -> Result<Operand> {
    let o = labeled(label);
    match op {
        OpKind::Gelu => b.gelu(x, &o),
        OpKind::HardSwish => b.hard_swish(x, &o),
        OpKind::Relu => b.relu(x, &o),
        OpKind::Sigmoid => b.sigmoid(x, &o),
        OpKind::Softplus => b.softplus(x, &o),
        OpKind::Softsign => b.softsign(x, &o),
        OpKind::Tanh => b.tanh(x, &o),
        OpKind::Elu => b.elu(x, &EluOptions { label: label.into(), ..Default::default() }),
        OpKind::HardSigmoid => b.hard_sigmoid(x, &HardSigmoidOptions { label: label.into(), ..Default::default() }),
        OpKind::LeakyRelu => b.leaky_relu(x, &LeakyReluOptions { label: label.into(), ..Default::default() }),
        OpKind::Linear => b.linear(x, &LinearOptions { label: label.into(), ..Default::default() }),
        OpKind::Clamp => b.clamp(x, &ClampOptions { label: label.into(), ..Default::default() }),
        OpKind::Cast => b.cast(x, Float32, &o),
        OpKind::Softmax => b.softmax(x, 0, &o),
        _ => unreachable!("not a single-input op of this file: {op}"),
    }
}

#[test]
fn plain_activations_allowed_types_and_ranks() {
    // 7 ops x 8 types x 4 shapes = 224 rows.
    for op in PLAIN {
        let ok = allowed(op, "input");
        for t in DataType::ALL {
            for shape in SHAPES {
                let mut b = builder();
                let x = b.input("x", &desc(t, shape)).unwrap();
                let r = call_single(&mut b, op, &x, "");
                if ok.contains(&t) {
                    assert_eq!(r.unwrap().descriptor(), &desc(t, shape), "{op} {t} {shape:?}");
                    assert_eq!(b.operation_count(), 1);
                } else {
                    assert_type_error(r, &format!("{op}: input data type {t} is not supported"));
                    assert_eq!(b.operation_count(), 0, "a throwing call adds nothing");
                }
            }
        }
    }
}

#[test]
fn plain_activation_type_lists_follow_the_spec() {
    for op in PLAIN {
        let expected: &[DataType] =
            if op == OpKind::Relu { &[Float32, Float16, Int64, Int32, Int8] } else { &[Float32, Float16] };
        assert_allowed_types(op, "input", expected);
    }
}

#[test]
fn activation_by_kind_rejects_other_ops() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2])).unwrap();
    for op in [OpKind::Softmax, OpKind::Elu, OpKind::Abs, OpKind::Clamp, OpKind::ReduceSum, OpKind::Cast] {
        assert_type_error(b.activation(op, &x, &OperatorOptions::default()), "not an option-less activation");
    }
    for op in PLAIN {
        assert_eq!(b.activation(op, &x, &OperatorOptions::default()).unwrap().shape(), &[2]);
    }
}

#[test]
fn alpha_beta_activations_allowed_types() {
    // 4 ops x 8 types x 4 shapes = 128 rows.
    for op in [OpKind::Elu, OpKind::HardSigmoid, OpKind::LeakyRelu, OpKind::Linear] {
        for t in DataType::ALL {
            for shape in SHAPES {
                let mut b = builder();
                let x = b.input("x", &desc(t, shape)).unwrap();
                let r = call_single(&mut b, op, &x, "act");
                if t.is_float() {
                    assert_eq!(r.unwrap().descriptor(), &desc(t, shape), "{op} {t}");
                } else {
                    assert_type_error(r, &format!("[act] {op}: input data type {t}"));
                }
            }
        }
    }
}

#[test]
fn alpha_beta_defaults_are_cast_to_the_input_type() {
    // (op, type, expected alpha, expected beta) with the IDL defaults.
    let rows: [(OpKind, DataType, f64, f64); 8] = [
        (OpKind::Elu, Float32, 1.0, 0.0),
        (OpKind::Elu, Float16, 1.0, 0.0),
        (OpKind::HardSigmoid, Float32, 0.2f32 as f64, 0.5),
        (OpKind::HardSigmoid, Float16, f16::from_f64(0.2).to_f64(), 0.5),
        (OpKind::LeakyRelu, Float32, 0.01f32 as f64, 0.0),
        (OpKind::LeakyRelu, Float16, f16::from_f64(0.01).to_f64(), 0.0),
        (OpKind::Linear, Float32, 1.0, 0.0),
        (OpKind::Linear, Float16, 1.0, 0.0),
    ];
    for (op, t, alpha, beta) in rows {
        let mut b = builder();
        let x = b.input("x", &desc(t, &[2, 2])).unwrap();
        let out = call_single(&mut b, op, &x, "").unwrap();
        assert_eq!(attrs_of(b, &out), Attrs::AlphaBeta { alpha, beta }, "{op} {t}");
    }
}

#[test]
fn alpha_beta_values_are_cast_to_the_input_type() {
    // (type, given value, value after the https://www.w3.org/TR/webnn/#algorithms-casting cast)
    let rows: [(DataType, f64, f64); 12] = [
        (Float32, 0.1, 0.1f32 as f64),
        (Float16, 0.1, f16::from_f64(0.1).to_f64()),
        (Float32, 1e40, f64::INFINITY),
        (Float32, -1e40, f64::NEG_INFINITY),
        (Float16, 70000.0, f64::INFINITY),
        (Float16, -70000.0, f64::NEG_INFINITY),
        (Float16, 65504.0, 65504.0),
        (Float16, 1e-8, 0.0),
        (Float32, -0.0, -0.0),
        (Float32, 3.0, 3.0),
        (Float16, 2049.0, 2048.0),
        (Float32, 16777217.0, 16777216.0),
    ];
    for (t, given, want) in rows {
        // elu and leakyRelu: alpha only, beta 0.
        let mut b = builder();
        let x = b.input("x", &desc(t, &[3])).unwrap();
        let out = b.elu(&x, &EluOptions { alpha: given, ..Default::default() }).unwrap();
        assert_eq!(attrs_of(b, &out), Attrs::AlphaBeta { alpha: want, beta: 0.0 }, "elu {t} {given}");
        let mut b = builder();
        let x = b.input("x", &desc(t, &[3])).unwrap();
        let out = b.leaky_relu(&x, &LeakyReluOptions { alpha: given, ..Default::default() }).unwrap();
        assert_eq!(attrs_of(b, &out), Attrs::AlphaBeta { alpha: want, beta: 0.0 }, "leakyRelu {t} {given}");
        // hardSigmoid and linear: alpha and beta.
        let mut b = builder();
        let x = b.input("x", &desc(t, &[3])).unwrap();
        let out = b.hard_sigmoid(&x, &HardSigmoidOptions { alpha: given, beta: given, ..Default::default() }).unwrap();
        assert_eq!(attrs_of(b, &out), Attrs::AlphaBeta { alpha: want, beta: want }, "hardSigmoid {t} {given}");
        let mut b = builder();
        let x = b.input("x", &desc(t, &[3])).unwrap();
        let out = b.linear(&x, &LinearOptions { alpha: 2.0, beta: given, ..Default::default() }).unwrap();
        assert_eq!(attrs_of(b, &out), Attrs::AlphaBeta { alpha: 2.0, beta: want }, "linear {t} {given}");
    }
    // NaN stays NaN (compared by hand since NaN != NaN).
    let mut b = builder();
    let x = b.input("x", &desc(Float16, &[3])).unwrap();
    let out = b.elu(&x, &EluOptions { alpha: f64::NAN, ..Default::default() }).unwrap();
    match attrs_of(b, &out) {
        Attrs::AlphaBeta { alpha, beta } => assert!(alpha.is_nan() && beta == 0.0),
        a => panic!("unexpected {a:?}"),
    }
}

#[test]
fn clamp_accepts_every_type_and_rank() {
    // 8 types x 4 shapes = 32 rows; absent bounds become the type's extremes (decisions.md D4).
    for t in DataType::ALL {
        for shape in SHAPES {
            let mut b = builder();
            let x = b.input("x", &desc(t, shape)).unwrap();
            let out = b.clamp(&x, &ClampOptions::default()).unwrap();
            assert_eq!(out.descriptor(), &desc(t, shape), "{t}");
            let (min, max) = match attrs_of(b, &out) {
                Attrs::Clamp { min, max } => (min, max),
                a => panic!("unexpected {a:?}"),
            };
            assert_eq!(min, MLNumber::Double(f64::NEG_INFINITY).cast(t), "{t}");
            assert_eq!(max, MLNumber::Double(f64::INFINITY).cast(t), "{t}");
            assert_eq!(min.data_type(), t);
        }
    }
}

#[test]
fn clamp_bounds_table() {
    use Scalar::*;
    type Row = (DataType, Option<MLNumber>, Option<MLNumber>, std::result::Result<(Scalar, Scalar), &'static str>);
    let d = |v: f64| Some(MLNumber::Double(v));
    let big = |v: i128| Some(MLNumber::BigInt(v));
    let rows: Vec<Row> = vec![
        (Float32, d(0.0), d(6.0), Ok((F32(0.0), F32(6.0)))),
        (Float32, d(-1.0), None, Ok((F32(-1.0), F32(f32::INFINITY)))),
        (Float32, None, d(1.0), Ok((F32(f32::NEG_INFINITY), F32(1.0)))),
        (Float32, d(2.0), d(2.0), Ok((F32(2.0), F32(2.0)))),
        (Float32, d(3.0), d(2.0), Err("minValue (3) must not be greater than maxValue (2)")),
        (Float32, d(1e40), None, Ok((F32(f32::INFINITY), F32(f32::INFINITY)))),
        (Float32, d(0.1), d(0.1), Ok((F32(0.1), F32(0.1)))),
        (Float16, d(0.0), d(6.0), Ok((F16(f16::from_f64(0.0)), F16(f16::from_f64(6.0))))),
        (Float16, d(70000.0), None, Ok((F16(f16::INFINITY), F16(f16::INFINITY)))),
        (Float16, d(1.0001), d(1.0), Ok((F16(f16::ONE), F16(f16::ONE)))),
        (Float16, d(1.01), d(1.0), Err("clamp: minValue")),
        (Int32, d(-5.5), d(5.5), Ok((I32(-6), I32(6)))),
        (Int32, d(2.5), d(2.4), Ok((I32(2), I32(2)))),
        (Int32, d(3.5), d(3.4), Err("minValue (4) must not be greater than maxValue (3)")),
        (Int32, None, None, Ok((I32(i32::MIN), I32(i32::MAX)))),
        (Int32, d(1e20), None, Ok((I32(i32::MAX), I32(i32::MAX)))),
        (Uint32, d(-5.0), None, Ok((U32(0), U32(u32::MAX)))),
        (Uint32, d(4294967295.0), d(4294967295.0), Ok((U32(u32::MAX), U32(u32::MAX)))),
        (Uint32, d(-1.0), d(-2.0), Ok((U32(0), U32(0)))),
        (Int64, big(9007199254740993), big(9007199254740993), Ok((I64(9007199254740993), I64(9007199254740993)))),
        (Int64, big(9007199254740993), big(9007199254740992), Err("must not be greater")),
        (Int64, None, None, Ok((I64(i64::MIN), I64(i64::MAX)))),
        (Uint64, big(-1), big(u64::MAX as i128), Ok((U64(0), U64(u64::MAX)))),
        (Uint64, big(u64::MAX as i128 + 5), None, Ok((U64(u64::MAX), U64(u64::MAX)))),
        (Int8, d(-300.0), d(300.0), Ok((I8(-128), I8(127)))),
        (Int8, d(200.0), d(100.0), Err("minValue (127) must not be greater than maxValue (100)")),
        (Int8, d(f64::NAN), d(0.0), Ok((I8(0), I8(0)))),
        (Uint8, d(-5.0), None, Ok((U8(0), U8(255)))),
        (Uint8, d(10.0), d(5.0), Err("minValue (10) must not be greater than maxValue (5)")),
        (Uint8, d(256.0), d(300.0), Ok((U8(255), U8(255)))),
        (Float32, d(f64::NAN), d(1.0), Ok((F32(f32::NAN), F32(1.0)))),
    ];
    for (t, min_value, max_value, want) in rows {
        let mut b = builder();
        let x = b.input("x", &desc(t, &[2, 3])).unwrap();
        let r = b.clamp(&x, &ClampOptions { label: String::new(), min_value, max_value });
        match want {
            Ok((min, max)) => {
                let out = r.unwrap_or_else(|e| panic!("{t} {min_value:?} {max_value:?}: {e}"));
                assert_eq!(out.descriptor(), &desc(t, &[2, 3]));
                match attrs_of(b, &out) {
                    Attrs::Clamp { min: got_min, max: got_max } => {
                        if let (F32(a), F32(b)) = (min, got_min) {
                            assert!(a.is_nan() && b.is_nan() || a == b, "{t} min {got_min:?}");
                        } else {
                            assert_eq!(got_min, min, "{t} min");
                        }
                        assert_eq!(got_max, max, "{t} max");
                    }
                    a => panic!("unexpected {a:?}"),
                }
            }
            Err(needle) => {
                assert_type_error(r, needle);
                assert_eq!(b.operation_count(), 0);
            }
        }
    }
}

#[test]
fn clamp_label_and_message() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2])).unwrap();
    let o = ClampOptions { label: "clip".into(), min_value: Some(1.0.into()), max_value: Some(0.0.into()) };
    assert_type_error(b.clamp(&x, &o), "[clip] clamp: minValue (1) must not be greater than maxValue (0)");
}

#[test]
fn cast_every_pair_of_types() {
    // 8 x 8 types x 4 shapes = 256 rows: output is (dataType, input shape), decisions.md D3.
    for from in DataType::ALL {
        for to in DataType::ALL {
            for shape in SHAPES {
                let mut b = builder();
                let x = b.input("x", &desc(from, shape)).unwrap();
                let out = b.cast(&x, to, &OperatorOptions::default()).unwrap();
                assert_eq!(out.descriptor(), &desc(to, shape), "{from} -> {to}");
                assert_eq!(attrs_of(b, &out), Attrs::None);
            }
        }
    }
}

#[test]
fn cast_rejects_a_data_type_outside_the_output_limits() {
    // The table allows any type; the check is exercised through the pure validator with an
    // op whose output limits are narrower (argMin's output: int32/int64).
    let call = OpCall { op: OpKind::ArgMin, label: "c" };
    let input = desc(Float32, &[2, 3]);
    for t in DataType::ALL {
        let r = super::cast(&call, &input, t);
        if matches!(t, Int32 | Int64) {
            assert_eq!(r.unwrap(), desc(t, &[2, 3]));
        } else {
            assert_type_error(r, &format!("[c] argMin: dataType {t} is not an allowed output data type"));
        }
    }
    let call = OpCall { op: OpKind::Cast, label: "" };
    for t in DataType::ALL {
        assert_eq!(super::cast(&call, &input, t).unwrap(), desc(t, &[2, 3]));
    }
}

#[test]
fn prelu_shapes() {
    type Row = (&'static [u32], &'static [u32], Option<&'static [u32]>);
    let rows: [Row; 18] = [
        (&[2, 3], &[2, 3], Some(&[2, 3])),
        (&[2, 3], &[3], Some(&[2, 3])),
        (&[2, 3], &[1], Some(&[2, 3])),
        (&[2, 3], &[], Some(&[2, 3])),
        (&[], &[], Some(&[])),
        (&[], &[4], Some(&[4])),
        (&[3], &[2, 3], Some(&[2, 3])),
        (&[2, 1, 4], &[3, 1], Some(&[2, 3, 4])),
        (&[1, 3, 1], &[5, 1, 2], Some(&[5, 3, 2])),
        (&[4, 5, 6], &[5, 1], Some(&[4, 5, 6])),
        (&[1, 2, 3, 4, 5, 6, 7, 8], &[8], Some(&[1, 2, 3, 4, 5, 6, 7, 8])),
        (&[2, 3], &[2], None),
        (&[2, 3], &[4, 3], None),
        (&[2, 3], &[3, 2], None),
        (&[4, 5, 6], &[5, 2], None),
        (&[5], &[4], None),
        (&[2, 3, 4], &[2, 3, 5], None),
        (&[1, 2, 3, 4, 5, 6, 7, 8], &[7], None),
    ];
    for (input, slope, want) in rows {
        for t in [Float32, Float16, Int32, Int64, Int8] {
            let mut b = builder();
            let x = b.input("x", &desc(t, input)).unwrap();
            let s = b.input("s", &desc(t, slope)).unwrap();
            let r = b.prelu(&x, &s, &labeled("p"));
            match want {
                Some(shape) => assert_eq!(r.unwrap().descriptor(), &desc(t, shape), "{input:?} {slope:?}"),
                None => {
                    assert_type_error(r, &format!("[p] prelu: slope shape {slope:?} is not broadcastable"));
                    assert_eq!(b.operation_count(), 0);
                }
            }
        }
    }
}

#[test]
fn prelu_data_types() {
    // 8 x 8 pairs: input and slope in the table, slope's type equal to input's.
    let ok = allowed(OpKind::Prelu, "input");
    for ti in DataType::ALL {
        for ts in DataType::ALL {
            let mut b = builder();
            let x = b.input("x", &desc(ti, &[2, 3])).unwrap();
            let s = b.input("s", &desc(ts, &[3])).unwrap();
            let r = b.prelu(&x, &s, &OperatorOptions::default());
            if !ok.contains(&ti) {
                assert_type_error(r, &format!("prelu: input data type {ti} is not supported"));
            } else if !ok.contains(&ts) {
                assert_type_error(r, &format!("prelu: slope data type {ts} is not supported"));
            } else if ti != ts {
                assert_type_error(r, &format!("slope data type {ts} must equal input data type {ti}"));
            } else {
                assert_eq!(r.unwrap().descriptor(), &desc(ti, &[2, 3]));
            }
        }
    }
}

#[test]
fn prelu_operands_from_another_builder() {
    let mut b = builder();
    let mut other = builder();
    let x = b.input("x", &desc(Float32, &[2])).unwrap();
    let s = other.input("s", &desc(Float32, &[2])).unwrap();
    assert_type_error(b.prelu(&x, &s, &labeled("p")), "[p] prelu: slope was created by another MLGraphBuilder");
    assert_type_error(b.prelu(&s, &x, &OperatorOptions::default()), "prelu: input was created by another");
    // The same-builder check comes before the data type check.
    let i = other.input("i", &desc(Uint8, &[2])).unwrap();
    assert_type_error(b.prelu(&i, &x, &OperatorOptions::default()), "another MLGraphBuilder");
    assert_eq!(b.operation_count(), 0);
}

#[test]
fn softmax_types_ranks_and_axes() {
    for (shape, axis, ok) in AXIS_ROWS {
        for t in DataType::ALL {
            let mut b = builder();
            let x = b.input("x", &desc(t, shape)).unwrap();
            let r = b.softmax(&x, axis, &labeled("sm"));
            if !t.is_float() {
                assert_type_error(r, &format!("[sm] softmax: input data type {t} is not supported"));
            } else if ok {
                let out = r.unwrap();
                assert_eq!(out.descriptor(), &desc(t, shape));
                assert_eq!(attrs_of(b, &out), Attrs::Axis { axis });
            } else {
                assert_type_error(r, &format!("[sm] softmax: axis {axis} must be less than the input rank"));
            }
        }
    }
    // Rank 0 is outside the table (rank 1 to N).
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[])).unwrap();
    assert_type_error(b.softmax(&x, 0, &OperatorOptions::default()), "softmax: input rank 0");
}

/// Expected outcome of (de)quantizeLinear for the data types, per the spec steps in order.
fn quant_types_expectation(
    op: OpKind,
    ti: DataType,
    ts: DataType,
    tz: DataType,
) -> std::result::Result<DataType, String> {
    let name = op.idl_name();
    let quantize = op == OpKind::QuantizeLinear;
    let input_ok = if quantize { ti.is_float() } else { QUANTIZED.contains(&ti) };
    if !input_ok {
        return Err(format!("{name}: input data type {ti} is not supported"));
    }
    if !ts.is_float() {
        return Err(format!("{name}: scale data type {ts} is not supported"));
    }
    if !QUANTIZED.contains(&tz) {
        return Err(format!("{name}: zeroPoint data type {tz} is not supported"));
    }
    if quantize && ts != ti {
        return Err(format!("scale data type {ts} must equal input data type {ti}"));
    }
    if !quantize && tz != ti {
        return Err(format!("zeroPoint data type {tz} must equal input data type {ti}"));
    }
    Ok(if quantize { tz } else { ts })
}

#[test]
fn quantize_dequantize_data_types() {
    // 2 ops x 8 x 8 x 8 = 1024 rows.
    for op in [OpKind::QuantizeLinear, OpKind::DequantizeLinear] {
        for ti in DataType::ALL {
            for ts in DataType::ALL {
                for tz in DataType::ALL {
                    let mut b = builder();
                    let x = b.input("x", &desc(ti, &[4, 6])).unwrap();
                    let s = b.input("s", &desc(ts, &[2, 1])).unwrap();
                    let z = b.input("z", &desc(tz, &[2, 1])).unwrap();
                    let r = if op == OpKind::QuantizeLinear {
                        b.quantize_linear(&x, &s, &z, &OperatorOptions::default())
                    } else {
                        b.dequantize_linear(&x, &s, &z, &OperatorOptions::default())
                    };
                    match quant_types_expectation(op, ti, ts, tz) {
                        Ok(t) => {
                            let out = r.unwrap_or_else(|e| panic!("{op} {ti} {ts} {tz}: {e}"));
                            assert_eq!(out.descriptor(), &desc(t, &[4, 6]));
                        }
                        Err(needle) => assert_type_error(r, &needle),
                    }
                }
            }
        }
    }
}

#[test]
fn quantize_dequantize_shapes() {
    type Row = (&'static [u32], &'static [u32], &'static [u32], Option<&'static str>);
    let rows: [Row; 24] = [
        // per-tensor, per-axis and blockwise
        (&[], &[], &[], None),
        (&[4], &[1], &[1], None),
        (&[4], &[4], &[4], None),
        (&[4], &[2], &[2], None),
        (&[2, 3], &[1, 1], &[1, 1], None),
        (&[2, 3], &[2, 1], &[2, 1], None),
        (&[2, 3], &[1, 3], &[1, 3], None),
        (&[2, 3], &[2, 3], &[2, 3], None),
        (&[16, 10], &[4, 5], &[4, 5], None),
        (&[1, 2, 3, 4], &[1, 2, 1, 2], &[1, 2, 1, 2], None),
        (&[3, 8, 8, 8, 8, 8, 8, 2], &[1, 4, 2, 1, 8, 1, 1, 2], &[1, 4, 2, 1, 8, 1, 1, 2], None),
        // rank mismatches
        (&[4], &[], &[], Some("scale rank 0 and zeroPoint rank 0 must equal input rank 1")),
        (&[2, 3], &[3], &[1, 3], Some("scale rank 1 and zeroPoint rank 2 must equal input rank 2")),
        (&[2, 3], &[1, 3], &[3], Some("scale rank 2 and zeroPoint rank 1 must equal input rank 2")),
        (&[], &[1], &[1], Some("must equal input rank 0")),
        (&[2, 3], &[1, 2, 3], &[1, 2, 3], Some("scale rank 3 and zeroPoint rank 3")),
        // scale shape != zeroPoint shape (decisions.md D8)
        (&[2, 3], &[2, 1], &[1, 3], Some("scale shape [2, 1] must equal zeroPoint shape [1, 3]")),
        (&[4], &[1], &[4], Some("scale shape [1] must equal zeroPoint shape [4]")),
        (&[4], &[2], &[4], Some("must equal zeroPoint shape")),
        // not blockwise broadcastable
        (&[4], &[3], &[3], Some("scale shape [3] is not blockwise broadcastable to input shape [4]")),
        (&[9, 3], &[4, 5], &[4, 5], Some("scale shape [4, 5] is not blockwise broadcastable")),
        (&[2, 3], &[4, 3], &[4, 3], Some("not blockwise broadcastable")),
        (&[2, 3], &[2, 2], &[2, 2], Some("not blockwise broadcastable")),
        (&[5, 7], &[5, 6], &[5, 6], Some("not blockwise broadcastable")),
    ];
    for (input, scale, zp, err) in rows {
        for op in [OpKind::QuantizeLinear, OpKind::DequantizeLinear] {
            for tz in [Uint8, Int8, Uint32, Int32] {
                for tf in [Float32, Float16] {
                    let (ti, ts) = if op == OpKind::QuantizeLinear { (tf, tf) } else { (tz, tf) };
                    let mut b = builder();
                    let x = b.input("x", &desc(ti, input)).unwrap();
                    let s = b.input("s", &desc(ts, scale)).unwrap();
                    let z = b.input("z", &desc(tz, zp)).unwrap();
                    let r = if op == OpKind::QuantizeLinear {
                        b.quantize_linear(&x, &s, &z, &labeled("q"))
                    } else {
                        b.dequantize_linear(&x, &s, &z, &labeled("q"))
                    };
                    match err {
                        None => {
                            let out = r.unwrap_or_else(|e| panic!("{op} {input:?} {scale:?}: {e}"));
                            let t = if op == OpKind::QuantizeLinear { tz } else { tf };
                            assert_eq!(out.descriptor(), &desc(t, input));
                            assert_eq!(attrs_of(b, &out), Attrs::None);
                        }
                        Some(needle) => {
                            let e = r.unwrap_err();
                            assert_eq!(e.kind, ErrorKind::Type);
                            assert!(e.message.starts_with(&format!("[q] {op}: ")), "{}", e.message);
                            assert!(e.message.contains(needle), "{} should contain {needle}", e.message);
                            assert_eq!(b.operation_count(), 0);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn scale_checks_come_before_zero_point_checks() {
    // scale.shape == zeroPoint.shape is checked first, so with equal shapes the scale's
    // blockwise check is the one that reports.
    for op in [OpKind::QuantizeLinear, OpKind::DequantizeLinear] {
        let call = OpCall { op, label: "" };
        let (ti, tz) = if op == OpKind::QuantizeLinear { (Float32, Uint8) } else { (Int8, Int8) };
        let r = super::quantize_dequantize(&call, &desc(ti, &[4]), &desc(Float32, &[3]), &desc(tz, &[3]));
        assert_type_error(r, "scale shape [3] is not blockwise broadcastable");
        // The data type equality step comes before the rank step.
        let r = super::quantize_dequantize(&call, &desc(ti, &[4]), &desc(Float16, &[]), &desc(Uint32, &[]));
        assert_type_error(r, "data type");
    }
}

#[test]
fn quantize_dequantize_operands_from_another_builder() {
    let mut b = builder();
    let mut other = builder();
    let x = b.input("x", &desc(Float32, &[4])).unwrap();
    let s = b.input("s", &desc(Float32, &[1])).unwrap();
    let z = b.input("z", &desc(Uint8, &[1])).unwrap();
    let x2 = other.input("x", &desc(Float32, &[4])).unwrap();
    let s2 = other.input("s", &desc(Float32, &[1])).unwrap();
    let z2 = other.input("z", &desc(Uint8, &[1])).unwrap();
    let o = OperatorOptions::default();
    assert_type_error(b.quantize_linear(&x2, &s, &z, &o), "quantizeLinear: input was created by another");
    assert_type_error(b.quantize_linear(&x, &s2, &z, &o), "quantizeLinear: scale was created by another");
    assert_type_error(b.quantize_linear(&x, &s, &z2, &o), "quantizeLinear: zeroPoint was created by another");
    let q = b.input("q", &desc(Uint8, &[4])).unwrap();
    assert_type_error(b.dequantize_linear(&q, &s2, &z, &o), "dequantizeLinear: scale was created by another");
    assert_type_error(b.dequantize_linear(&q, &s, &z2, &labeled("d")), "[d] dequantizeLinear: zeroPoint was");
    assert_eq!(b.quantize_linear(&x, &s, &z, &o).unwrap().descriptor(), &desc(Uint8, &[4]));
    assert_eq!(b.dequantize_linear(&q, &s, &z, &o).unwrap().descriptor(), &desc(Float32, &[4]));
}

#[test]
fn every_op_fails_with_invalid_state_after_build() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2, 2])).unwrap();
    let s = b.input("s", &desc(Float32, &[1, 1])).unwrap();
    let z = b.input("z", &desc(Uint8, &[1, 1])).unwrap();
    let q = b.input("q", &desc(Uint8, &[2, 2])).unwrap();
    let out = b.relu(&x, &OperatorOptions::default()).unwrap();
    b.build(&[("out", &out)]).unwrap();
    for op in SINGLE_INPUT_OPS {
        assert_kind(call_single(&mut b, op, &x, "l"), ErrorKind::InvalidState);
    }
    let o = OperatorOptions::default();
    assert_kind(b.prelu(&x, &x, &o), ErrorKind::InvalidState);
    assert_kind(b.quantize_linear(&x, &s, &z, &o), ErrorKind::InvalidState);
    assert_kind(b.dequantize_linear(&q, &s, &z, &o), ErrorKind::InvalidState);
    // decisions.md D6: a lost context also blocks (de)quantizeLinear.
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2, 2])).unwrap();
    let s = b.input("s", &desc(Float32, &[1, 1])).unwrap();
    let z = b.input("z", &desc(Uint8, &[1, 1])).unwrap();
    b.context().lost.store(true, std::sync::atomic::Ordering::Release);
    assert_kind(b.quantize_linear(&x, &s, &z, &o), ErrorKind::InvalidState);
    assert_kind(b.gelu(&x, &o), ErrorKind::InvalidState);
    // The can-build check comes before the same-builder check.
    let mut other = builder();
    let y = other.input("y", &desc(Float32, &[2])).unwrap();
    assert_kind(b.relu(&y, &o), ErrorKind::InvalidState);
}

#[test]
fn single_input_ops_reject_operands_of_another_builder_with_label() {
    let mut other = builder();
    let y = other.input("y", &desc(Float32, &[2, 2])).unwrap();
    for op in SINGLE_INPUT_OPS {
        let mut b = builder();
        let r = call_single(&mut b, op, &y, "mine");
        assert_type_error(r, &format!("[mine] {op}: input was created by another MLGraphBuilder"));
        assert_eq!(b.operation_count(), 0);
    }
}

#[test]
fn labels_are_recorded_on_the_operation() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2])).unwrap();
    let out = b.tanh(&x, &labeled("t1")).unwrap();
    let g = b.build(&[("out", &out)]).unwrap();
    assert_eq!(g.operations[0].label, "t1");
    assert_eq!(g.operations[0].kind, OpKind::Tanh);
    assert_eq!(g.operations[0].inputs.len(), 1);
}
