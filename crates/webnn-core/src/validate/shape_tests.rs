//! Table tests of concat, expand, pad, reshape, reverse, slice, split, tile, transpose,
//! triangular and where: every valid row checks the exact output descriptor and the resolved
//! attributes; every throwing step of each algorithm has rows checking the TypeError and a
//! needle of its message.

#![allow(clippy::type_complexity)] // table rows are tuples of slices

use crate::graph::Attrs;
use crate::testing::*;
use crate::types::{PaddingMode, Scalar};
use crate::validate::test_support::run_row;
use crate::DataType::*;

/// The expected result of a row: the output shape, or a needle of the TypeError message.
type Expect<'a> = Result<&'a [u32], &'a str>;

const MAXD: u32 = i32::MAX as u32;

#[test]
fn concat_table() {
    let big = 0x4000_0000u32;
    let rows: &[(&[&[u32]], u32, Expect)] = &[
        (&[&[2, 3], &[2, 3]], 0, Ok(&[4, 3])),
        (&[&[2, 3], &[2, 3]], 1, Ok(&[2, 6])),
        (&[&[1], &[1]], 0, Ok(&[2])),
        (&[&[5]], 0, Ok(&[5])),
        (&[&[2, 3, 4]], 2, Ok(&[2, 3, 4])),
        (&[&[2, 3], &[4, 3], &[1, 3]], 0, Ok(&[7, 3])),
        (&[&[2, 1], &[2, 5], &[2, 2]], 1, Ok(&[2, 8])),
        (&[&[1, 2, 3, 4], &[1, 2, 5, 4]], 2, Ok(&[1, 2, 8, 4])),
        (&[&[1, 2, 3, 4], &[7, 2, 3, 4]], 0, Ok(&[8, 2, 3, 4])),
        (&[&[1, 2, 3, 4], &[1, 2, 3, 1]], 3, Ok(&[1, 2, 3, 5])),
        (&[&[1; 8], &[1; 8]], 7, Ok(&[1, 1, 1, 1, 1, 1, 1, 2])),
        (&[&[1; 8], &[1; 8], &[1; 8]], 0, Ok(&[3, 1, 1, 1, 1, 1, 1, 1])),
        (&[&[2, 3, 4], &[2, 3, 4], &[2, 3, 4], &[2, 3, 4]], 1, Ok(&[2, 12, 4])),
        (&[&[big - 1], &[big]], 0, Ok(&[MAXD])),
        (&[&[MAXD - 1], &[1]], 0, Ok(&[MAXD])),
        (&[&[1, 3], &[1, 3], &[1, 3], &[1, 3], &[1, 3]], 0, Ok(&[5, 3])),
        (&[&[2, 3, 4], &[2, 1, 4]], 1, Ok(&[2, 4, 4])),
        (&[&[1], &[2], &[3]], 0, Ok(&[6])),
        (&[&[2, 3], &[2, 3]], 2, Err("axis 2 must be less than the rank 2")),
        // inputs size is not a valid tensor count
        (&[], 0, Err("inputs size 0 is not a valid tensor count")),
        // axis >= first rank
        (&[&[2, 3]], 2, Err("axis 2 must be less than the rank 2")),
        (&[&[2, 3], &[2, 3]], 5, Err("axis 5")),
        (&[&[4]], 1, Err("axis 1")),
        (&[&[4], &[4]], u32::MAX, Err("axis 4294967295")),
        // rank differs
        (&[&[2, 3], &[2]], 0, Err("inputs[1] rank 1")),
        (&[&[2, 3], &[2, 3, 1]], 0, Err("inputs[1] rank 3")),
        (&[&[2, 3], &[2, 3], &[6]], 0, Err("inputs[2] rank 1")),
        (&[&[2], &[2, 3]], 0, Err("inputs[1] rank 2")),
        // sizes off the axis differ
        (&[&[2, 3], &[2, 4]], 0, Err("in dimension 1")),
        (&[&[2, 3], &[3, 3]], 1, Err("in dimension 0")),
        (&[&[2, 3, 4], &[2, 3, 5]], 1, Err("in dimension 2")),
        (&[&[2, 3], &[2, 3], &[2, 4]], 0, Err("inputs[2] shape [2, 4]")),
        // the running sum along axis is not a valid dimension
        (&[&[MAXD], &[1]], 0, Err("concatenated size 2147483648")),
        (&[&[big], &[big]], 0, Err("not a valid dimension")),
        (&[&[big - 1], &[big], &[1]], 0, Err("through inputs[2]")),
        // output element count beyond a valid dimension (check dimensions of the output)
        (&[&[1, big], &[1, big]], 0, Err("elements")),
        // items outside the limits table (rank 0)
        (&[&[]], 0, Err("inputs rank 0")),
        (&[&[3], &[]], 0, Err("inputs rank 0")),
    ];
    for (i, (shapes, axis, expect)) in rows.iter().enumerate() {
        for t in [Float32, Int8] {
            let r = run_row(t, *expect, (i, shapes, axis), |b| {
                let ops: Vec<Operand> =
                    shapes.iter().enumerate().map(|(k, s)| b.input(&format!("x{k}"), &desc(t, s)).unwrap()).collect();
                let refs: Vec<&Operand> = ops.iter().collect();
                b.concat(&refs, *axis, &OperatorOptions::default())
            });
            if let Some(op) = r {
                assert_eq!(op.kind, OpKind::Concat);
                assert_eq!(op.attrs, Attrs::Axis { axis: *axis });
                assert_eq!(op.inputs.len(), shapes.len(), "one input slot per item");
            }
        }
    }
}

#[test]
fn concat_types_and_counts() {
    for a in DataType::ALL {
        for c in DataType::ALL {
            let mut b = builder();
            let x = b.input("x", &desc(a, &[2])).unwrap();
            let y = b.input("y", &desc(c, &[3])).unwrap();
            let r = b.concat(&[&x, &y], 0, &OperatorOptions::default());
            if a == c {
                assert_eq!(r.unwrap().descriptor(), &desc(a, &[5]));
            } else {
                assert_type_error(r, "inputs[1] data type");
            }
        }
    }
    // 8192 inputs are a valid tensor count, 8193 are not.
    let mut b = builder();
    let x = b.input("x", &desc(Uint8, &[1])).unwrap();
    let many = vec![&x; 8192];
    assert_eq!(b.concat(&many, 0, &OperatorOptions::default()).unwrap().shape(), &[8192]);
    let too_many = vec![&x; 8193];
    assert_type_error(
        b.concat(&too_many, 0, &labeled("c")),
        "[c] concat: inputs size 8193 is not a valid tensor count",
    );
}

/// Runs the (input shape, new shape, expect) `rows` of the single-input op `kind` (expand or
/// reshape, with no attributes) under each data type of `types`.
fn new_shape_table(
    rows: &[(&[u32], &[u32], Expect)],
    types: &[DataType],
    kind: OpKind,
    call: fn(&mut GraphBuilder, &Operand, &[u32]) -> Result<Operand>,
) {
    for (i, (shape, new_shape, expect)) in rows.iter().enumerate() {
        for &t in types {
            let r = run_row(t, *expect, (i, kind, shape, new_shape), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                call(b, &x, new_shape)
            });
            if let Some(op) = r {
                assert_eq!((op.kind, op.attrs), (kind, Attrs::None));
            }
        }
    }
}

#[test]
fn expand_table() {
    let rows: &[(&[u32], &[u32], Expect)] = &[
        (&[], &[], Ok(&[])),
        (&[], &[3], Ok(&[3])),
        (&[], &[2, 3], Ok(&[2, 3])),
        (&[1], &[5], Ok(&[5])),
        (&[1], &[1], Ok(&[1])),
        (&[3], &[3], Ok(&[3])),
        (&[3], &[2, 3], Ok(&[2, 3])),
        (&[3, 1], &[3, 4], Ok(&[3, 4])),
        (&[3, 1], &[2, 3, 4], Ok(&[2, 3, 4])),
        (&[1, 1], &[1, 1], Ok(&[1, 1])),
        (&[2, 1, 4], &[2, 3, 4], Ok(&[2, 3, 4])),
        (&[1, 2, 1], &[5, 2, 7], Ok(&[5, 2, 7])),
        (&[1, 2, 1], &[3, 5, 2, 7], Ok(&[3, 5, 2, 7])),
        (&[1], &[1, 1, 1, 1, 1, 1, 1, 1], Ok(&[1, 1, 1, 1, 1, 1, 1, 1])),
        (&[4], &[1, 1, 1, 1, 1, 1, 2, 4], Ok(&[1, 1, 1, 1, 1, 1, 2, 4])),
        (&[1], &[MAXD], Ok(&[MAXD])),
        (&[2, 2], &[2, 2], Ok(&[2, 2])),
        (&[2, 1], &[2, 5], Ok(&[2, 5])),
        (&[1, 1, 1], &[4, 5, 6], Ok(&[4, 5, 6])),
        (&[4, 1], &[1, 4, 6], Ok(&[1, 4, 6])),
        (&[2], &[1, 2], Ok(&[1, 2])),
        (&[2], &[2, 1], Err("input shape [2] is not unidirectionally broadcastable to newShape [2, 1]")),
        // not unidirectionally broadcastable
        (&[3], &[], Err("is not unidirectionally broadcastable")),
        (&[3], &[4], Err("input shape [3] is not unidirectionally broadcastable to newShape [4]")),
        (&[2, 3], &[3], Err("not unidirectionally broadcastable")),
        (&[2, 3], &[3, 2], Err("not unidirectionally broadcastable")),
        (&[3, 1], &[3, 4, 1], Err("not unidirectionally broadcastable")),
        (&[2, 1], &[1, 1], Err("not unidirectionally broadcastable")),
        (&[5], &[5, 1], Err("not unidirectionally broadcastable")),
        // output rank not allowed
        (&[1], &[1; 9], Err("rank 9, which is not an allowed output rank [0, 8]")),
        (&[], &[2; 12], Err("rank 12")),
        // newShape items must be valid dimensions (decisions.md D9)
        (&[1], &[0], Err("item 0 (0) is not a valid dimension")),
        (&[1], &[2, 0], Err("item 1 (0) is not a valid dimension")),
        (&[2], &[0, 2], Err("item 0 (0) is not a valid dimension")),
        (&[], &[0], Err("not a valid dimension")),
        (&[1], &[MAXD + 1], Err("(2147483648) is not a valid dimension")),
        (&[1], &[u32::MAX], Err("not a valid dimension")),
        // output element count
        (&[1, 1], &[65536, 65536], Err("4294967296 elements")),
        (&[1], &[2, MAXD], Err("elements")),
    ];
    new_shape_table(rows, &[Float16, Uint64], OpKind::Expand, |b, x, new_shape| {
        b.expand(x, new_shape, &OperatorOptions::default())
    });
}

#[test]
fn pad_table() {
    use PaddingMode::*;
    let rows: &[(&[u32], &[u32], &[u32], PaddingMode, Expect)] = &[
        (&[], &[], &[], Constant, Ok(&[])),
        (&[], &[], &[], Reflection, Ok(&[])),
        (&[3], &[1], &[1], Constant, Ok(&[5])),
        (&[3], &[2], &[2], Reflection, Ok(&[7])),
        (&[3], &[7], &[9], Edge, Ok(&[19])),
        (&[2, 3], &[1, 2], &[1, 2], Constant, Ok(&[4, 7])),
        (&[2, 3], &[1, 2], &[1, 2], Edge, Ok(&[4, 7])),
        (&[2, 3], &[1, 2], &[1, 2], Reflection, Ok(&[4, 7])),
        (&[2, 3], &[0, 0], &[0, 0], Constant, Ok(&[2, 3])),
        (&[2, 3], &[0, 0], &[0, 0], Reflection, Ok(&[2, 3])),
        (&[1], &[5], &[0], Constant, Ok(&[6])),
        (&[1], &[5], &[0], Edge, Ok(&[6])),
        (&[1], &[0], &[0], Reflection, Ok(&[1])),
        (&[4, 4], &[3, 3], &[3, 3], Reflection, Ok(&[10, 10])),
        (&[2, 3, 4], &[0, 1, 2], &[3, 2, 1], Constant, Ok(&[5, 6, 7])),
        (&[1, 1, 1, 1, 1, 1, 1, 1], &[1; 8], &[0; 8], Edge, Ok(&[2; 8])),
        (&[MAXD - 1], &[1], &[0], Constant, Ok(&[MAXD])),
        (&[5], &[MAXD - 6], &[1], Edge, Ok(&[MAXD])),
        // sizes of beginningPadding / endingPadding differ from the rank (decisions.md D13)
        (&[2, 3], &[1], &[1, 2], Constant, Err("beginningPadding size 1 and endingPadding size 2")),
        (&[2, 3], &[1, 2], &[1], Constant, Err("endingPadding size 1")),
        (&[2, 3], &[1, 2, 3], &[1, 2, 3], Constant, Err("must both equal the input rank 2")),
        (&[2, 3], &[], &[], Edge, Err("must both equal the input rank 2")),
        (&[], &[1], &[1], Constant, Err("must both equal the input rank 0")),
        (&[4], &[1], &[], Reflection, Err("must both equal")),
        // reflection: padding must be less than the input size
        (
            &[2, 3],
            &[2, 0],
            &[0, 0],
            Reflection,
            Err("reflection beginningPadding[0] (2) must be less than the input size 2"),
        ),
        (&[2, 3], &[0, 0], &[0, 3], Reflection, Err("reflection endingPadding[1] (3)")),
        (&[2, 3], &[1, 3], &[0, 0], Reflection, Err("beginningPadding[1] (3)")),
        (&[2, 3], &[1, 2], &[2, 2], Reflection, Err("endingPadding[0] (2)")),
        (&[1], &[1], &[0], Reflection, Err("beginningPadding[0] (1)")),
        (&[1], &[0], &[1], Reflection, Err("endingPadding[0] (1)")),
        (&[5], &[u32::MAX], &[0], Reflection, Err("beginningPadding[0] (4294967295)")),
        // output size not a valid dimension
        (&[MAXD], &[1], &[0], Constant, Err("output size 2147483648 of dimension 0 is not a valid dimension")),
        (&[1], &[u32::MAX], &[u32::MAX], Edge, Err("output size 8589934591")),
        (&[2, 3], &[0, MAXD], &[0, 0], Constant, Err("of dimension 1")),
        // output element count (check dimensions of the output)
        (&[2, 0x3fff_ffff], &[1, 0], &[0, 0], Constant, Err("elements")),
    ];
    for (i, (shape, begin, end, mode, expect)) in rows.iter().enumerate() {
        for t in [Float32, Int32, Uint8] {
            let r = run_row(t, *expect, (i, shape, begin, end, mode), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let options = PadOptions { mode: *mode, ..Default::default() };
                b.pad(&x, begin, end, &options)
            });
            if let Some(op) = r {
                let value = MLNumber::Double(0.0).cast(t);
                let want = Attrs::Pad { beginning: begin.to_vec(), ending: end.to_vec(), mode: *mode, value };
                assert_eq!((op.kind, op.attrs), (OpKind::Pad, want));
            }
        }
    }
}

#[test]
fn pad_value_is_cast_to_the_input_type() {
    let rows: &[(DataType, MLNumber, Scalar)] = &[
        (Float32, MLNumber::Double(0.0), Scalar::F32(0.0)),
        (Float32, MLNumber::Double(1.5), Scalar::F32(1.5)),
        (Float32, MLNumber::Double(1e40), Scalar::F32(f32::INFINITY)),
        (Float32, MLNumber::BigInt(7), Scalar::F32(7.0)),
        (Float16, MLNumber::Double(70000.0), Scalar::F16(half::f16::INFINITY)),
        (Float16, MLNumber::Double(-2.0), Scalar::F16(half::f16::from_f32(-2.0))),
        (Int8, MLNumber::Double(300.0), Scalar::I8(127)),
        (Int8, MLNumber::Double(-300.0), Scalar::I8(-128)),
        (Uint8, MLNumber::Double(-1.0), Scalar::U8(0)),
        (Uint8, MLNumber::Double(2.5), Scalar::U8(2)),
        (Int32, MLNumber::Double(3.5), Scalar::I32(4)),
        (Int32, MLNumber::Double(f64::NAN), Scalar::I32(0)),
        (Uint32, MLNumber::Double(-5.0), Scalar::U32(0)),
        (Uint32, MLNumber::Double(4294967295.0), Scalar::U32(u32::MAX)),
        (Int64, MLNumber::BigInt(-9007199254740993), Scalar::I64(-9007199254740993)),
        (Uint64, MLNumber::BigInt(u64::MAX as i128), Scalar::U64(u64::MAX)),
        (Uint64, MLNumber::Double(f64::INFINITY), Scalar::U64(u64::MAX)),
    ];
    for (t, value, want) in rows {
        let mut b = builder();
        let x = b.input("x", &desc(*t, &[2])).unwrap();
        let options = PadOptions { value: *value, ..Default::default() };
        let o = b.pad(&x, &[1], &[2], &options).unwrap();
        assert_eq!(o.descriptor(), &desc(*t, &[5]));
        match built_attrs(&mut b, &[&o]).attrs {
            Attrs::Pad { value, mode, .. } => {
                assert_eq!((value, mode), (*want, PaddingMode::Constant), "{t} {value:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn reshape_table() {
    let rows: &[(&[u32], &[u32], Expect)] = &[
        (&[], &[], Ok(&[])),
        (&[], &[1], Ok(&[1])),
        (&[], &[1, 1, 1], Ok(&[1, 1, 1])),
        (&[1], &[], Ok(&[])),
        (&[1, 1], &[], Ok(&[])),
        (&[2, 3], &[6], Ok(&[6])),
        (&[2, 3], &[3, 2], Ok(&[3, 2])),
        (&[2, 3], &[1, 6, 1], Ok(&[1, 6, 1])),
        (&[2, 3], &[2, 3], Ok(&[2, 3])),
        (&[2, 3, 4], &[24], Ok(&[24])),
        (&[2, 3, 4], &[4, 6], Ok(&[4, 6])),
        (&[2, 3, 4], &[2, 12], Ok(&[2, 12])),
        (&[2, 3, 4], &[2, 2, 2, 3], Ok(&[2, 2, 2, 3])),
        (&[24], &[1, 1, 1, 1, 1, 1, 4, 6], Ok(&[1, 1, 1, 1, 1, 1, 4, 6])),
        (&[MAXD], &[MAXD], Ok(&[MAXD])),
        (&[MAXD], &[1, MAXD, 1], Ok(&[1, MAXD, 1])),
        (&[65536, 2], &[2, 65536], Ok(&[2, 65536])),
        // newShape size is not an allowed output rank
        (&[1], &[1; 9], Err("newShape has rank 9, which is not an allowed output rank")),
        (&[2, 3], &[0; 10], Err("rank 10")),
        // items not valid dimensions
        (&[2, 3], &[0, 6], Err("item 0 (0) is not a valid dimension")),
        (&[2, 3], &[6, 0], Err("item 1 (0) is not a valid dimension")),
        (&[2, 3], &[MAXD + 1], Err("(2147483648) is not a valid dimension")),
        (&[2, 3], &[u32::MAX, 2], Err("item 0 (4294967295)")),
        (&[], &[0], Err("not a valid dimension")),
        // element counts differ
        (&[2, 3], &[5], Err("newShape [5] has 5 elements but the input shape [2, 3] has 6")),
        (&[2, 3], &[7], Err("has 7 elements")),
        (&[6], &[], Err("newShape [] has 1 elements")),
        (&[], &[2], Err("has 2 elements but the input shape [] has 1")),
        (&[2, 3], &[65536, 65536], Err("has 4294967296 elements")),
        (&[2, 3], &[2, 3, 2], Err("has 12 elements")),
        (&[1], &[MAXD; 8], Err("more than 2^64 elements")),
    ];
    new_shape_table(rows, &[Float32, Int64], OpKind::Reshape, |b, x, new_shape| {
        b.reshape(x, new_shape, &OperatorOptions::default())
    });
}

#[test]
fn reverse_table() {
    let all8: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7];
    let rows: &[(&[u32], Option<&[u32]>, Result<&[u32], &str>)] = &[
        (&[], None, Ok(&[])),
        (&[], Some(&[]), Ok(&[])),
        (&[4], None, Ok(&[0])),
        (&[4], Some(&[0]), Ok(&[0])),
        (&[4], Some(&[]), Ok(&[])),
        (&[2, 3], None, Ok(&[0, 1])),
        (&[2, 3], Some(&[]), Ok(&[])),
        (&[2, 3], Some(&[0]), Ok(&[0])),
        (&[2, 3], Some(&[1]), Ok(&[1])),
        (&[2, 3], Some(&[1, 0]), Ok(&[0, 1])),
        (&[2, 3], Some(&[0, 1]), Ok(&[0, 1])),
        (&[2, 3, 4], Some(&[2, 0]), Ok(&[0, 2])),
        (&[2, 3, 4], None, Ok(&[0, 1, 2])),
        (&[1; 8], None, Ok(all8)),
        (&[1; 8], Some(&[7, 3]), Ok(&[3, 7])),
        (&[2, 3, 4], Some(&[1]), Ok(&[1])),
        (&[2, 3, 4], Some(&[2, 1, 0]), Ok(&[0, 1, 2])),
        (&[5], Some(&[0, 0]), Err("axis 0 is repeated")),
        (&[2, 3, 4], Some(&[3]), Err("axis 3 is not in the range [0, 3)")),
        (&[1; 8], Some(&[8]), Err("axis 8 is not in the range [0, 8)")),
        // out of range (decisions.md D18: TypeError)
        (&[], Some(&[0]), Err("axis 0 is not in the range [0, 0)")),
        (&[2, 3], Some(&[2]), Err("axis 2 is not in the range [0, 2)")),
        (&[2, 3, 4], Some(&[u32::MAX]), Err("axis 4294967295")),
        (&[2, 3], Some(&[0, 5]), Err("axis 5")),
        // duplicates
        (&[2, 3], Some(&[0, 0]), Err("axis 0 is repeated")),
        (&[2, 3], Some(&[1, 0, 1]), Err("axis 1 is repeated")),
        (&[2, 3, 4], Some(&[2, 1, 0, 2]), Err("axis 2 is repeated")),
    ];
    for (i, (shape, axes, expect)) in rows.iter().enumerate() {
        for t in [Float32, Uint32] {
            let shape_expect = expect.map(|_| *shape);
            let r = run_row(t, shape_expect, (i, shape, axes), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let options = ReverseOptions { axes: axes.map(<[u32]>::to_vec), ..Default::default() };
                b.reverse(&x, &options)
            });
            if let Some(op) = r {
                assert_eq!(op.kind, OpKind::Reverse);
                assert_eq!(op.attrs, Attrs::Reverse { axes: expect.unwrap().to_vec() }, "row {i}");
            }
        }
    }
}

#[test]
fn slice_table() {
    type Row<'a> = (&'a [u32], &'a [u32], &'a [u32], Option<&'a [u32]>, Expect<'a>);
    let rows: &[Row] = &[
        (&[], &[], &[], None, Ok(&[])),
        (&[], &[], &[], Some(&[]), Ok(&[])),
        (&[5], &[0], &[5], None, Ok(&[5])),
        (&[5], &[1], &[3], None, Ok(&[3])),
        (&[5], &[4], &[1], None, Ok(&[1])),
        (&[5], &[0], &[5], Some(&[1]), Ok(&[5])),
        (&[5], &[0], &[5], Some(&[2]), Ok(&[3])),
        (&[5], &[0], &[5], Some(&[5]), Ok(&[1])),
        (&[5], &[0], &[5], Some(&[6]), Ok(&[1])),
        (&[5], &[1], &[4], Some(&[2]), Ok(&[2])),
        (&[5], &[0], &[4], Some(&[3]), Ok(&[2])),
        (&[6], &[0], &[6], Some(&[4]), Ok(&[2])),
        (&[6], &[0], &[6], Some(&[3]), Ok(&[2])),
        (&[4, 5], &[1, 2], &[3, 3], None, Ok(&[3, 3])),
        (&[4, 5], &[0, 0], &[4, 5], Some(&[1, 2]), Ok(&[4, 3])),
        (&[4, 5], &[0, 0], &[4, 5], Some(&[4, 5]), Ok(&[1, 1])),
        (&[2, 3, 4], &[0, 1, 2], &[2, 2, 2], Some(&[2, 1, 2]), Ok(&[1, 2, 1])),
        (&[2, 3, 4], &[1, 0, 0], &[1, 3, 4], None, Ok(&[1, 3, 4])),
        (&[1; 8], &[0; 8], &[1; 8], Some(&[1; 8]), Ok(&[1; 8])),
        (&[MAXD], &[0], &[MAXD], Some(&[u32::MAX]), Ok(&[1])),
        (&[MAXD], &[MAXD - 1], &[1], None, Ok(&[1])),
        (&[MAXD], &[0], &[MAXD], Some(&[2]), Ok(&[0x4000_0000])),
        // any sizes item is 0 (checked before the sizes of the lists)
        (&[5], &[0], &[0], None, Err("sizes [0]: item 0 is 0")),
        (&[5], &[], &[0], None, Err("sizes [0]: item 0 is 0")),
        (&[4, 5], &[0, 0], &[4, 0], None, Err("item 1 is 0")),
        // starts / sizes sizes differ from the rank
        (&[5], &[], &[], None, Err("starts size 0 and sizes size 0 must both equal the input rank 1")),
        (&[5], &[0], &[], None, Err("sizes size 0")),
        (&[5], &[], &[1], None, Err("starts size 0")),
        (&[5], &[0, 0], &[1, 1], None, Err("must both equal the input rank 1")),
        (&[2, 3], &[0], &[1, 1], None, Err("starts size 1 and sizes size 2")),
        (&[], &[0], &[1], None, Err("must both equal the input rank 0")),
        // strides size differs from the rank
        (&[5], &[0], &[1], Some(&[]), Err("strides size 0 must equal the input rank 1")),
        (&[5], &[0], &[1], Some(&[1, 1]), Err("strides size 2")),
        (&[], &[], &[], Some(&[1]), Err("strides size 1 must equal the input rank 0")),
        // stride < 1
        (&[5], &[0], &[1], Some(&[0]), Err("item 0 is 0; strides must be at least 1")),
        (&[4, 5], &[0, 0], &[4, 5], Some(&[1, 0]), Err("item 1 is 0; strides")),
        // starts greater than the input size
        (&[5], &[6], &[1], None, Err("starts[0] (6) is greater than the input size 5")),
        (&[5], &[u32::MAX], &[u32::MAX], None, Err("starts[0] (4294967295) is greater")),
        (&[4, 5], &[0, 9], &[1, 1], None, Err("starts[1] (9)")),
        // the per-dimension checks run in order: dim 0's start before dim 1's stride
        (&[4, 5], &[5, 0], &[1, 1], Some(&[1, 0]), Err("starts[0] (5) is greater")),
        // start + size beyond the input size
        (&[5], &[5], &[1], None, Err("starts[0] (5) + sizes[0] (1) exceeds the input size 5")),
        (&[5], &[3], &[3], None, Err("starts[0] (3) + sizes[0] (3) exceeds")),
        (&[5], &[0], &[6], None, Err("sizes[0] (6) exceeds")),
        (&[5], &[1], &[u32::MAX], None, Err("sizes[0] (4294967295) exceeds")),
        (&[4, 5], &[1, 1], &[3, 5], Some(&[2, 2]), Err("starts[1] (1) + sizes[1] (5)")),
        (&[MAXD], &[MAXD], &[MAXD], None, Err("exceeds")),
    ];
    for (i, (shape, starts, sizes, strides, expect)) in rows.iter().enumerate() {
        for t in [Float16, Int8] {
            let r = run_row(t, *expect, (i, shape, starts, sizes, strides), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let options = SliceOptions { strides: strides.map(<[u32]>::to_vec), ..Default::default() };
                b.slice(&x, starts, sizes, &options)
            });
            if let Some(op) = r {
                let strides = strides.map_or_else(|| vec![1; shape.len()], <[u32]>::to_vec);
                let want = Attrs::Slice { starts: starts.to_vec(), sizes: sizes.to_vec(), strides };
                assert_eq!((op.kind, op.attrs), (OpKind::Slice, want), "row {i}");
            }
        }
    }
}

#[test]
fn split_table() {
    use Splits::*;
    let ones6: &[&[u32]] = &[&[1], &[1], &[1], &[1], &[1], &[1]];
    let rows: Vec<(&[u32], Splits, u32, Result<&[&[u32]], &str>)> = vec![
        (&[6], Count(1), 0, Ok(&[&[6]])),
        (&[6], Count(2), 0, Ok(&[&[3], &[3]])),
        (&[6], Count(3), 0, Ok(&[&[2], &[2], &[2]])),
        (&[6], Count(6), 0, Ok(ones6)),
        (&[2, 6], Count(3), 1, Ok(&[&[2, 2], &[2, 2], &[2, 2]])),
        (&[2, 6], Count(2), 0, Ok(&[&[1, 6], &[1, 6]])),
        (&[2, 6], Count(1), 1, Ok(&[&[2, 6]])),
        (&[6], Sizes(vec![6]), 0, Ok(&[&[6]])),
        (&[6], Sizes(vec![1, 2, 3]), 0, Ok(&[&[1], &[2], &[3]])),
        (&[6], Sizes(vec![1, 1, 1, 1, 1, 1]), 0, Ok(ones6)),
        (&[2, 6, 4], Sizes(vec![5, 1]), 1, Ok(&[&[2, 5, 4], &[2, 1, 4]])),
        (&[2, 3], Sizes(vec![1, 1]), 0, Ok(&[&[1, 3], &[1, 3]])),
        (&[2, 3, 8], Sizes(vec![4, 4]), 2, Ok(&[&[2, 3, 4], &[2, 3, 4]])),
        (&[1; 8], Count(1), 7, Ok(&[&[1; 8]])),
        (&[MAXD], Sizes(vec![MAXD - 1, 1]), 0, Ok(&[&[MAXD - 1], &[1]])),
        // axis out of range (checked before splits)
        (&[6], Count(2), 1, Err("axis 1 must be less than the input rank 1")),
        (&[6], Count(0), 1, Err("axis 1")),
        (&[2, 6], Sizes(vec![]), 2, Err("axis 2")),
        (&[6], Count(1), u32::MAX, Err("axis 4294967295")),
        // number: not a valid tensor count
        (&[6], Count(0), 0, Err("splits 0 is not a valid tensor count")),
        (&[6], Count(8193), 0, Err("splits 8193 is not a valid tensor count")),
        (&[6], Count(u32::MAX), 0, Err("not a valid tensor count")),
        // number: does not divide the axis size
        (&[6], Count(4), 0, Err("the input size 6 along axis 0 is not divisible by splits 4")),
        (&[6], Count(12), 0, Err("not divisible by splits 12")),
        (&[2, 7], Count(2), 1, Err("input size 7 along axis 1")),
        (&[8192], Count(8191), 0, Err("not divisible")),
        // sequence: size not a valid tensor count
        (&[6], Sizes(vec![]), 0, Err("splits size 0 is not a valid tensor count")),
        (&[6], Sizes(vec![1; 8193]), 0, Err("splits size 8193")),
        // sequence: an item is 0
        (&[6], Sizes(vec![3, 0, 3]), 0, Err("item 1 is 0")),
        (&[6], Sizes(vec![0, 6]), 0, Err("item 0 is 0")),
        // sequence: the sum differs from the axis size
        (&[6], Sizes(vec![3, 2]), 0, Err("the sum 5 of splits [3, 2] must equal the input size 6")),
        (&[6], Sizes(vec![3, 4]), 0, Err("the sum 7")),
        (&[6], Sizes(vec![u32::MAX, u32::MAX]), 0, Err("the sum 8589934590")),
        (&[2, 6], Sizes(vec![1, 1]), 1, Err("input size 6 along axis 1")),
    ];
    for (i, (shape, splits, axis, expect)) in rows.iter().enumerate() {
        for t in [Float32, Uint8] {
            let mut b = builder();
            let x = b.input("x", &desc(t, shape)).unwrap();
            let options = SplitOptions { axis: *axis, ..Default::default() };
            let r = b.split(&x, splits, &options);
            assert_nothing_added(&b, 0, &r);
            match (r, expect) {
                (Ok(outs), Ok(shapes)) => {
                    let got: Vec<_> = outs.iter().map(|o| o.descriptor().clone()).collect();
                    let want: Vec<_> = shapes.iter().map(|s| desc(t, s)).collect();
                    assert_eq!(got, want, "row {i}");
                    let refs: Vec<&Operand> = outs.iter().collect();
                    let op = built_attrs(&mut b, &refs);
                    let sizes = shapes.iter().map(|s| s[*axis as usize]).collect();
                    assert_eq!((op.kind, op.attrs), (OpKind::Split, Attrs::Split { axis: *axis, sizes }));
                    assert_eq!(op.outputs.len(), shapes.len());
                }
                (Err(e), Err(needle)) => {
                    assert_eq!(e.kind, ErrorKind::Type, "row {i}");
                    assert!(e.message.contains(needle), "row {i}: {:?} should contain {needle:?}", e.message);
                }
                (r, expect) => panic!("row {i}: expected {expect:?}, got {r:?}"),
            }
        }
    }
}

#[test]
fn split_into_8192_outputs() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[8192, 2])).unwrap();
    let outs = b.split(&x, &Splits::Count(8192), &SplitOptions::default()).unwrap();
    assert_eq!(outs.len(), 8192);
    assert!(outs.iter().all(|o| o.descriptor() == &desc(Float32, &[1, 2])));
    let outs = b.split(&x, &Splits::Sizes(vec![1; 8192]), &SplitOptions::default()).unwrap();
    assert_eq!(outs.len(), 8192);
    let outs = b.split(&x, &Splits::Sizes(vec![2]), &SplitOptions { axis: 1, ..Default::default() }).unwrap();
    assert_eq!(outs[0].shape(), &[8192, 2]);
}

#[test]
fn tile_table() {
    let rows: &[(&[u32], &[u32], Expect)] = &[
        (&[], &[], Ok(&[])),
        (&[3], &[1], Ok(&[3])),
        (&[3], &[2], Ok(&[6])),
        (&[2, 3], &[1, 1], Ok(&[2, 3])),
        (&[2, 3], &[2, 3], Ok(&[4, 9])),
        (&[2, 3, 4], &[1, 2, 1], Ok(&[2, 6, 4])),
        (&[1, 1, 1, 1, 1, 1, 1, 1], &[1, 2, 1, 2, 1, 2, 1, 2], Ok(&[1, 2, 1, 2, 1, 2, 1, 2])),
        (&[1], &[MAXD], Ok(&[MAXD])),
        (&[MAXD], &[1], Ok(&[MAXD])),
        (&[2], &[0x3fff_ffff], Ok(&[0x7fff_fffe])),
        (&[1, 1], &[3, 4], Ok(&[3, 4])),
        (&[5, 1, 2], &[2, 7, 1], Ok(&[10, 7, 2])),
        (&[1; 8], &[2; 8], Ok(&[2; 8])),
        (&[MAXD], &[2], Err("item 0 (4294967294) is not a valid dimension")),
        (&[3], &[1, 1], Err("repetitions size 2 must equal the input rank 1")),
        // repetitions size differs from the rank
        (&[], &[1], Err("repetitions size 1 must equal the input rank 0")),
        (&[3], &[], Err("repetitions size 0 must equal the input rank 1")),
        (&[2, 3], &[2], Err("repetitions size 1")),
        (&[2, 3], &[1, 2, 3], Err("repetitions size 3")),
        (&[2, 3], &[0], Err("repetitions size 1")),
        // a repetition is 0
        (&[3], &[0], Err("repetitions [0]: item 0 is 0")),
        (&[2, 3], &[1, 0], Err("item 1 is 0")),
        (&[2, 3], &[0, 0], Err("item 0 is 0")),
        // output dimension above 2^31-1 (decisions.md D20)
        (&[2], &[0x4000_0000], Err("item 0 (2147483648) is not a valid dimension")),
        (&[2], &[u32::MAX], Err("item 0 (8589934590)")),
        (&[3, 2], &[1, MAXD], Err("item 1")),
        // output element count above 2^31-1 (decisions.md D20)
        (&[2, 2], &[0x2000_0000, 2], Err("has 4294967296 elements")),
        (&[65536, 1], &[1, 65536], Err("elements")),
    ];
    for (i, (shape, reps, expect)) in rows.iter().enumerate() {
        for t in [Float32, Int32] {
            let r = run_row(t, *expect, (i, shape, reps), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                b.tile(&x, reps, &OperatorOptions::default())
            });
            if let Some(op) = r {
                assert_eq!((op.kind, op.attrs), (OpKind::Tile, Attrs::Tile { repetitions: reps.to_vec() }));
            }
        }
    }
}

#[test]
fn transpose_table() {
    let rev8: &[u32] = &[7, 6, 5, 4, 3, 2, 1, 0];
    let rows: &[(&[u32], Option<&[u32]>, Result<(&[u32], &[u32]), &str>)] = &[
        (&[], None, Ok((&[], &[]))),
        (&[], Some(&[]), Ok((&[], &[]))),
        (&[5], None, Ok((&[5], &[0]))),
        (&[5], Some(&[0]), Ok((&[5], &[0]))),
        (&[2, 3], None, Ok((&[3, 2], &[1, 0]))),
        (&[2, 3], Some(&[0, 1]), Ok((&[2, 3], &[0, 1]))),
        (&[2, 3], Some(&[1, 0]), Ok((&[3, 2], &[1, 0]))),
        (&[2, 3, 4], None, Ok((&[4, 3, 2], &[2, 1, 0]))),
        (&[2, 3, 4], Some(&[0, 2, 1]), Ok((&[2, 4, 3], &[0, 2, 1]))),
        (&[2, 3, 4], Some(&[1, 2, 0]), Ok((&[3, 4, 2], &[1, 2, 0]))),
        (&[2, 3, 4], Some(&[2, 0, 1]), Ok((&[4, 2, 3], &[2, 0, 1]))),
        (&[2, 3, 4], Some(&[1, 0, 2]), Ok((&[3, 2, 4], &[1, 0, 2]))),
        (&[2, 3, 4, 5], Some(&[0, 2, 3, 1]), Ok((&[2, 4, 5, 3], &[0, 2, 3, 1]))),
        (&[2, 3, 4, 5], Some(&[0, 3, 1, 2]), Ok((&[2, 5, 3, 4], &[0, 3, 1, 2]))),
        (&[1, 2, 3, 4, 5, 6, 7, 8], None, Ok((&[8, 7, 6, 5, 4, 3, 2, 1], rev8))),
        // permutation size differs from the rank
        (&[2, 3], Some(&[0]), Err("permutation [0] has size 1 but the input rank is 2")),
        (&[2, 3], Some(&[0, 1, 2]), Err("has size 3")),
        (&[], Some(&[0]), Err("input rank is 0")),
        (&[2, 3], Some(&[]), Err("has size 0")),
        // items out of range
        (&[2, 3], Some(&[0, 2]), Err("item 2 is not in the range [0, 2)")),
        (&[2, 3], Some(&[u32::MAX, 0]), Err("item 4294967295")),
        (&[2, 3, 4], Some(&[2, 2, 3]), Err("item 3 is not in the range")),
        // duplicates
        (&[2, 3], Some(&[1, 1]), Err("permutation [1, 1]: 1 is repeated")),
        (&[2, 3, 4], Some(&[0, 0, 1]), Err("0 is repeated")),
        (&[2, 3, 4], Some(&[2, 1, 2]), Err("2 is repeated")),
    ];
    for (i, (shape, perm, expect)) in rows.iter().enumerate() {
        for t in [Float32, Uint64] {
            let r = run_row(t, expect.map(|(s, _)| s), (i, shape, perm), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let options = TransposeOptions { permutation: perm.map(<[u32]>::to_vec), ..Default::default() };
                b.transpose(&x, &options)
            });
            if let Some(op) = r {
                let permutation = expect.unwrap().1.to_vec();
                assert_eq!((op.kind, op.attrs), (OpKind::Transpose, Attrs::Transpose { permutation }));
            }
        }
    }
}

#[test]
fn triangular_table() {
    let rows: &[(&[u32], bool, i32, Expect)] = &[
        (&[3, 3], true, 0, Ok(&[3, 3])),
        (&[3, 3], true, 1, Ok(&[3, 3])),
        (&[3, 3], true, -1, Ok(&[3, 3])),
        (&[3, 3], false, 0, Ok(&[3, 3])),
        (&[3, 3], false, 1, Ok(&[3, 3])),
        (&[3, 3], false, -1, Ok(&[3, 3])),
        (&[2, 3, 3], false, 0, Ok(&[2, 3, 3])),
        (&[1, 5], true, i32::MAX, Ok(&[1, 5])),
        (&[5, 1], false, i32::MIN, Ok(&[5, 1])),
        (&[2, 3, 4, 5], true, 2, Ok(&[2, 3, 4, 5])),
        (&[2, 2], true, 5, Ok(&[2, 2])),
        (&[4, 7], false, -3, Ok(&[4, 7])),
        (&[7, 4], true, -10, Ok(&[7, 4])),
        (&[1, 1], false, 0, Ok(&[1, 1])),
        (&[3, 2, 1], true, 1, Ok(&[3, 2, 1])),
        (&[2; 8], false, 1, Ok(&[2; 8])),
        (&[1, 1, 1, 1, 1, 1, 2, 2], true, 0, Ok(&[1, 1, 1, 1, 1, 1, 2, 2])),
        // rank below 2 is not an allowed rank
        (&[], true, 0, Err("input rank 0 (shape []) is not in [2, 8]")),
        (&[3], true, 0, Err("input rank 1")),
        (&[3], false, -1, Err("input rank 1")),
    ];
    for (i, (shape, upper, diagonal, expect)) in rows.iter().enumerate() {
        for t in DataType::ALL {
            let r = run_row(t, *expect, (i, shape), |b| {
                let x = b.input("x", &desc(t, shape)).unwrap();
                let options = TriangularOptions { upper: *upper, diagonal: *diagonal, ..Default::default() };
                b.triangular(&x, &options)
            });
            if let Some(op) = r {
                let want = Attrs::Triangular { upper: *upper, diagonal: *diagonal };
                assert_eq!((op.kind, op.attrs), (OpKind::Triangular, want));
            }
        }
    }
    let d = TriangularOptions::default();
    assert!(d.upper && d.diagonal == 0, "IDL defaults");
}

#[test]
fn where_table() {
    let rows: &[(&[u32], &[u32], &[u32], Expect)] = &[
        (&[], &[], &[], Ok(&[])),
        (&[3], &[3], &[3], Ok(&[3])),
        (&[2, 3], &[3], &[1], Ok(&[2, 3])),
        (&[], &[2, 3], &[2, 3], Ok(&[2, 3])),
        (&[2, 1], &[1, 3], &[], Ok(&[2, 3])),
        (&[4, 1, 1], &[1, 5, 1], &[1, 1, 6], Ok(&[4, 5, 6])),
        (&[1], &[2, 3], &[3], Ok(&[2, 3])),
        (&[2, 3, 4], &[4], &[3, 1], Ok(&[2, 3, 4])),
        (&[5], &[1], &[1], Ok(&[5])),
        (&[5], &[], &[], Ok(&[5])),
        (&[], &[], &[7], Ok(&[7])),
        (&[2, 1, 2], &[3, 1], &[1, 1, 1, 1], Ok(&[1, 2, 3, 2])),
        (&[1, 1, 1, 1, 1, 1, 1, 2], &[2], &[], Ok(&[1, 1, 1, 1, 1, 1, 1, 2])),
        (&[1], &[1], &[1], Ok(&[1])),
        (&[2, 3], &[2, 3], &[2, 3], Ok(&[2, 3])),
        (&[3, 1], &[1, 4], &[1], Ok(&[3, 4])),
        (&[1, 4], &[3, 1], &[3, 4], Ok(&[3, 4])),
        (&[2, 1, 1], &[], &[1, 3, 1], Ok(&[2, 3, 1])),
        (&[1; 8], &[1; 8], &[1; 8], Ok(&[1; 8])),
        (&[2], &[3], &[], Err("condition shape [2] is not broadcastable with the value shape [3]")),
        (&[], &[2, 3], &[3, 2], Err("trueValue shape [2, 3] and falseValue shape [3, 2]")),
        (&[2, 2], &[3, 1], &[1], Err("condition shape [2, 2]")),
        // trueValue and falseValue not broadcastable
        (&[3], &[2], &[3], Err("trueValue shape [2] and falseValue shape [3] are not broadcastable")),
        (&[3], &[2, 3], &[2, 4], Err("trueValue shape [2, 3]")),
        (&[], &[4, 1], &[3, 1], Err("are not broadcastable")),
        // condition not broadcastable with the value shape
        (&[4], &[3], &[3], Err("condition shape [4] is not broadcastable with the value shape [3]")),
        (&[2, 3], &[3, 3], &[3], Err("condition shape [2, 3]")),
        (&[2], &[2, 3], &[1], Err("value shape [2, 3]")),
        (&[3, 2, 1], &[4, 1], &[1, 5], Err("condition shape [3, 2, 1]")),
        // output element count
        (&[65536, 1], &[1, 65536], &[], Err("elements")),
    ];
    for (i, (c, tv, fv, expect)) in rows.iter().enumerate() {
        for t in [Float32, Int64, Uint8] {
            let r = run_row(t, *expect, (i, c, tv, fv), |b| {
                let cond = b.input("c", &desc(Uint8, c)).unwrap();
                let x = b.input("x", &desc(t, tv)).unwrap();
                let y = b.input("y", &desc(t, fv)).unwrap();
                b.where_(&cond, &x, &y, &OperatorOptions::default())
            });
            if let Some(op) = r {
                assert_eq!((op.kind, op.attrs), (OpKind::Where, Attrs::None));
                assert_eq!(op.inputs.len(), 3);
            }
        }
    }
}

#[test]
fn where_data_types() {
    for ct in DataType::ALL {
        for tt in DataType::ALL {
            for ft in DataType::ALL {
                let mut b = builder();
                let c = b.input("c", &desc(ct, &[2])).unwrap();
                let x = b.input("x", &desc(tt, &[2])).unwrap();
                let y = b.input("y", &desc(ft, &[2])).unwrap();
                let r = b.where_(&c, &x, &y, &OperatorOptions::default());
                if ct != Uint8 {
                    assert_type_error(r, "condition data type");
                } else if ft != tt {
                    assert_type_error(r, "falseValue data type");
                } else {
                    assert_eq!(r.unwrap().descriptor(), &desc(tt, &[2]));
                }
            }
        }
    }
}
