//! Table tests of argMin / argMax, cumulativeSum and the ten reductions.

use super::OpCall;
use crate::graph::Attrs;
use crate::limits::member_limits;
use crate::testing::*;
use crate::validate::test_support::{assert_allowed_types, AXIS_ROWS};
use crate::DataType::*;

/// The ten reductions (reduceL1 … reduceSumSquare): the ops of the spec's `reduce` section.
fn reductions() -> Vec<OpKind> {
    let ops: Vec<OpKind> = OpKind::in_spec_section("reduce").collect();
    assert_eq!(ops.len(), 10, "{ops:?}");
    ops
}

/// Builds `out` and returns the attributes of the operation that produced it.
fn attrs_of(mut b: GraphBuilder, out: &Operand) -> Attrs {
    let g = b.build(&[("out", out)]).unwrap();
    let id = g.outputs[0].1;
    let op = g.operations.iter().find(|o| o.outputs.contains(&id)).unwrap();
    op.attrs.clone()
}

/// Calls a reduction through its named method.
fn call_reduce(b: &mut GraphBuilder, op: OpKind, x: &Operand, o: &ReduceOptions) -> Result<Operand> {
    match op {
        OpKind::ReduceL1 => b.reduce_l1(x, o),
        OpKind::ReduceL2 => b.reduce_l2(x, o),
        OpKind::ReduceLogSum => b.reduce_log_sum(x, o),
        OpKind::ReduceLogSumExp => b.reduce_log_sum_exp(x, o),
        OpKind::ReduceMax => b.reduce_max(x, o),
        OpKind::ReduceMean => b.reduce_mean(x, o),
        OpKind::ReduceMin => b.reduce_min(x, o),
        OpKind::ReduceProduct => b.reduce_product(x, o),
        OpKind::ReduceSum => b.reduce_sum(x, o),
        OpKind::ReduceSumSquare => b.reduce_sum_square(x, o),
        _ => unreachable!("{op} is not a reduction"),
    }
}

fn reduce_opts(axes: Option<&[u32]>, keep_dimensions: bool) -> ReduceOptions {
    ReduceOptions { label: String::new(), axes: axes.map(|a| a.to_vec()), keep_dimensions }
}

#[test]
fn reduction_type_lists_follow_the_spec() {
    use OpKind::*;
    for op in reductions() {
        let want: &[DataType] = match op {
            ReduceL1 | ReduceProduct | ReduceSum | ReduceSumSquare => &[Float32, Float16, Int32, Uint32, Int64, Uint64],
            ReduceL2 | ReduceLogSum | ReduceLogSumExp | ReduceMean => &[Float32, Float16],
            _ => &DataType::ALL,
        };
        assert_allowed_types(op, "input", want);
    }
}

#[test]
fn reductions_allowed_types() {
    // 10 ops x 8 types x 3 shapes = 240 rows.
    for op in reductions() {
        let ok = member_limits(op, "input").unwrap().data_types;
        for t in DataType::ALL {
            for (shape, out) in [(&[][..], &[][..]), (&[5][..], &[][..]), (&[2, 3, 4][..], &[][..])] {
                let mut b = builder();
                let x = b.input("x", &desc(t, shape)).unwrap();
                let r = call_reduce(&mut b, op, &x, &ReduceOptions::default());
                if ok.contains(&t) {
                    assert_eq!(r.unwrap().descriptor(), &desc(t, out), "{op} {t}");
                } else {
                    assert_type_error(r, &format!("{op}: input data type {t} is not supported"));
                    assert_eq!(b.operation_count(), 0);
                }
            }
        }
    }
}

#[test]
fn reduction_axes_table() {
    type Row = (
        &'static [u32],
        Option<&'static [u32]>,
        bool,
        std::result::Result<(&'static [u32], &'static [u32]), &'static str>,
    );
    let rows: [Row; 30] = [
        // absent axes: every dimension
        (&[2, 3, 4], None, false, Ok((&[], &[0, 1, 2]))),
        (&[2, 3, 4], None, true, Ok((&[1, 1, 1], &[0, 1, 2]))),
        (&[], None, false, Ok((&[], &[]))),
        (&[], None, true, Ok((&[], &[]))),
        (&[7], None, false, Ok((&[], &[0]))),
        (&[7], None, true, Ok((&[1], &[0]))),
        // empty axes: nothing reduced
        (&[2, 3, 4], Some(&[]), false, Ok((&[2, 3, 4], &[]))),
        (&[2, 3, 4], Some(&[]), true, Ok((&[2, 3, 4], &[]))),
        (&[], Some(&[]), false, Ok((&[], &[]))),
        // some axes, sorted in the attributes
        (&[2, 3, 4], Some(&[1]), false, Ok((&[2, 4], &[1]))),
        (&[2, 3, 4], Some(&[1]), true, Ok((&[2, 1, 4], &[1]))),
        (&[2, 3, 4], Some(&[0, 2]), false, Ok((&[3], &[0, 2]))),
        (&[2, 3, 4], Some(&[2, 0]), false, Ok((&[3], &[0, 2]))),
        (&[2, 3, 4], Some(&[2, 0]), true, Ok((&[1, 3, 1], &[0, 2]))),
        (&[2, 3, 4], Some(&[2, 1, 0]), false, Ok((&[], &[0, 1, 2]))),
        (&[2, 3, 4], Some(&[1, 2, 0]), true, Ok((&[1, 1, 1], &[0, 1, 2]))),
        (&[1, 2, 3, 4, 5, 6, 7, 8], Some(&[7, 3]), false, Ok((&[1, 2, 3, 5, 6, 7], &[3, 7]))),
        (&[1, 2, 3, 4, 5, 6, 7, 8], Some(&[7, 3]), true, Ok((&[1, 2, 3, 1, 5, 6, 7, 1], &[3, 7]))),
        (&[5, 1], Some(&[1]), false, Ok((&[5], &[1]))),
        // out of range
        (&[2, 3, 4], Some(&[3]), false, Err("axis 3 is out of range for rank 3")),
        (&[2, 3, 4], Some(&[0, 3]), true, Err("axis 3 is out of range for rank 3")),
        (&[2, 3, 4], Some(&[u32::MAX]), false, Err("out of range")),
        (&[], Some(&[0]), false, Err("axis 0 is out of range for rank 0")),
        (&[7], Some(&[1]), true, Err("axis 1 is out of range for rank 1")),
        // duplicates
        (&[2, 3, 4], Some(&[1, 1]), false, Err("axis 1 is repeated")),
        (&[2, 3, 4], Some(&[0, 2, 0]), true, Err("axis 0 is repeated")),
        (&[2, 3, 4], Some(&[2, 1, 0, 1]), false, Err("is repeated")),
        (&[7], Some(&[0, 0]), false, Err("axis 0 is repeated")),
        (&[2, 3], Some(&[1, 0, 1]), true, Err("repeated")),
        (&[2, 3], Some(&[1, 5, 1]), true, Err("axis 5 is out of range")),
    ];
    // 30 rows x 10 ops = 300 cases.
    for (shape, axes, keep, want) in rows {
        for op in reductions() {
            let mut b = builder();
            let x = b.input("x", &desc(Float32, shape)).unwrap();
            let mut o = reduce_opts(axes, keep);
            o.label = "r".into();
            let r = call_reduce(&mut b, op, &x, &o);
            match want {
                Ok((out_shape, sorted)) => {
                    let out = r.unwrap_or_else(|e| panic!("{op} {shape:?} {axes:?}: {e}"));
                    assert_eq!(out.descriptor(), &desc(Float32, out_shape), "{op} {shape:?} {axes:?}");
                    assert_eq!(
                        attrs_of(b, &out),
                        Attrs::Reduce { axes: sorted.to_vec(), keep_dimensions: keep },
                        "{op} {shape:?} {axes:?}"
                    );
                }
                Err(needle) => {
                    assert_type_error(r, &format!("[r] {op}: "));
                    let r = call_reduce(&mut b, op, &x, &o);
                    assert_type_error(r, needle);
                    assert_eq!(b.operation_count(), 0, "a throwing call adds nothing");
                }
            }
        }
    }
}

#[test]
fn reductions_keep_the_input_type() {
    for op in [OpKind::ReduceMax, OpKind::ReduceMin] {
        for t in DataType::ALL {
            let mut b = builder();
            let x = b.input("x", &desc(t, &[2, 3])).unwrap();
            let out = call_reduce(&mut b, op, &x, &reduce_opts(Some(&[0]), true)).unwrap();
            assert_eq!(out.descriptor(), &desc(t, &[1, 3]), "{op} {t}");
        }
    }
}

#[test]
fn reduce_by_kind() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2, 3])).unwrap();
    for op in reductions() {
        let out = b.reduce(op, &x, &reduce_opts(Some(&[1]), false)).unwrap();
        assert_eq!(out.descriptor(), &desc(Float32, &[2]));
    }
    for op in [OpKind::ArgMax, OpKind::Add, OpKind::CumulativeSum, OpKind::Softmax] {
        assert_type_error(b.reduce(op, &x, &ReduceOptions::default()), "is not a reduction");
    }
    assert_eq!(b.operation_count(), 10);
}

fn call_arg(b: &mut GraphBuilder, op: OpKind, x: &Operand, axis: u32, o: &ArgMinMaxOptions) -> Result<Operand> {
    if op == OpKind::ArgMin {
        b.arg_min(x, axis, o)
    } else {
        b.arg_max(x, axis, o)
    }
}

#[test]
fn arg_min_max_shapes() {
    type Row = (&'static [u32], u32, bool, std::result::Result<&'static [u32], &'static str>);
    let rows: [Row; 18] = [
        (&[5], 0, false, Ok(&[])),
        (&[5], 0, true, Ok(&[1])),
        (&[2, 3], 0, false, Ok(&[3])),
        (&[2, 3], 1, false, Ok(&[2])),
        (&[2, 3], 1, true, Ok(&[2, 1])),
        (&[2, 3, 4], 1, false, Ok(&[2, 4])),
        (&[2, 3, 4], 2, true, Ok(&[2, 3, 1])),
        (&[2, 3, 4], 0, true, Ok(&[1, 3, 4])),
        (&[1, 2, 3, 4, 5, 6, 7, 8], 7, false, Ok(&[1, 2, 3, 4, 5, 6, 7])),
        (&[1, 2, 3, 4, 5, 6, 7, 8], 0, true, Ok(&[1, 2, 3, 4, 5, 6, 7, 8])),
        (&[1, 1], 1, false, Ok(&[1])),
        (&[5], 1, false, Err("axis 1 must be less than the input rank 1")),
        (&[5], 1, true, Err("axis 1 must be less than the input rank 1")),
        (&[2, 3], 2, false, Err("axis 2 must be less than the input rank 2")),
        (&[2, 3, 4], 3, true, Err("axis 3 must be less than the input rank 3")),
        (&[2, 3, 4], u32::MAX, true, Err("axis 4294967295 must be less than the input rank 3")),
        (&[1, 2, 3, 4, 5, 6, 7, 8], 8, false, Err("axis 8 must be less than the input rank 8")),
        (&[], 0, false, Err("input rank 0 (shape []) is not in [1, 8]")),
    ];
    // 18 rows x 2 ops x 2 output types x 3 input types = 216 cases.
    for (shape, axis, keep, want) in rows {
        for op in [OpKind::ArgMin, OpKind::ArgMax] {
            for out_t in [Int32, Int64] {
                for in_t in [Float32, Int8, Uint64] {
                    let mut b = builder();
                    let x = b.input("x", &desc(in_t, shape)).unwrap();
                    let o = ArgMinMaxOptions { label: "am".into(), keep_dimensions: keep, output_data_type: out_t };
                    let r = call_arg(&mut b, op, &x, axis, &o);
                    match want {
                        Ok(out_shape) => {
                            let out = r.unwrap_or_else(|e| panic!("{op} {shape:?} {axis}: {e}"));
                            assert_eq!(out.descriptor(), &desc(out_t, out_shape));
                            assert_eq!(attrs_of(b, &out), Attrs::ArgMinMax { axis, keep_dimensions: keep });
                        }
                        Err(needle) => {
                            assert_type_error(r, &format!("[am] {op}: {needle}"));
                            assert_eq!(b.operation_count(), 0);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn arg_min_max_input_and_output_types() {
    // 2 ops x 8 input types x 8 output types = 128 rows.
    for op in [OpKind::ArgMin, OpKind::ArgMax] {
        for in_t in DataType::ALL {
            for out_t in DataType::ALL {
                let mut b = builder();
                let x = b.input("x", &desc(in_t, &[3, 4])).unwrap();
                let o = ArgMinMaxOptions { output_data_type: out_t, ..Default::default() };
                let r = call_arg(&mut b, op, &x, 1, &o);
                if matches!(out_t, Int32 | Int64) {
                    assert_eq!(r.unwrap().descriptor(), &desc(out_t, &[3]), "{op} {in_t} {out_t}");
                } else {
                    assert_type_error(
                        r,
                        &format!("{op}: outputDataType {out_t} is not allowed; allowed: [int32, int64]"),
                    );
                }
            }
        }
    }
}

#[test]
fn arg_min_max_step_order() {
    // The axis check comes before the outputDataType check.
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[3])).unwrap();
    let o = ArgMinMaxOptions { output_data_type: Float32, ..Default::default() };
    assert_type_error(b.arg_max(&x, 1, &o), "axis 1 must be less than");
    // The default output type is int32.
    assert_eq!(b.arg_min(&x, 0, &ArgMinMaxOptions::default()).unwrap().descriptor(), &desc(Int32, &[]));
    // By kind, only argMin and argMax.
    assert_type_error(b.arg_min_max(OpKind::ReduceMax, &x, 0, &ArgMinMaxOptions::default()), "not argMin or argMax");
    assert!(b.arg_min_max(OpKind::ArgMax, &x, 0, &ArgMinMaxOptions::default()).is_ok());
}

#[test]
fn arg_min_max_axis_size_must_fit_the_output_type() {
    // Valid operands cannot have a dimension above 2^31-1, so the step is exercised through the
    // pure validator with oversized descriptors.
    type Row = (u32, DataType, bool);
    let rows: [Row; 6] = [
        (i32::MAX as u32, Int32, true),
        (i32::MAX as u32 + 1, Int32, false),
        (u32::MAX, Int32, false),
        (u32::MAX, Int64, true),
        (1, Int32, true),
        (i32::MAX as u32 + 1, Int64, true),
    ];
    for (size, t, ok) in rows {
        for op in [OpKind::ArgMin, OpKind::ArgMax] {
            let call = OpCall { op, label: "" };
            let r = super::arg_min_max(&call, &desc(Float32, &[2, size]), 1, false, t);
            if ok {
                assert_eq!(r.unwrap(), desc(t, &[2]));
            } else {
                assert_type_error(r, &format!("input dimension 1 of size {size} exceeds the largest {t} value"));
            }
        }
    }
}

#[test]
fn arg_min_max_another_builder_and_invalid_state() {
    let mut other = builder();
    let y = other.input("y", &desc(Float32, &[3])).unwrap();
    let mut b = builder();
    let o = ArgMinMaxOptions { label: "a".into(), ..Default::default() };
    assert_type_error(b.arg_min(&y, 0, &o), "[a] argMin: input was created by another MLGraphBuilder");
    assert_type_error(b.arg_max(&y, 0, &o), "[a] argMax: input was created by another MLGraphBuilder");
    let x = b.input("x", &desc(Float32, &[3])).unwrap();
    let out = b.arg_max(&x, 0, &o).unwrap();
    b.build(&[("out", &out)]).unwrap();
    assert_kind(b.arg_min(&x, 0, &o), ErrorKind::InvalidState);
    assert_kind(b.arg_max(&x, 0, &o), ErrorKind::InvalidState);
    assert_kind(b.cumulative_sum(&x, 0, &CumulativeSumOptions::default()), ErrorKind::InvalidState);
    for op in reductions() {
        assert_kind(call_reduce(&mut b, op, &x, &ReduceOptions::default()), ErrorKind::InvalidState);
    }
}

#[test]
fn reductions_reject_operands_of_another_builder() {
    let mut other = builder();
    let y = other.input("y", &desc(Float32, &[3])).unwrap();
    for op in reductions() {
        let mut b = builder();
        let o = ReduceOptions { label: "red".into(), ..Default::default() };
        assert_type_error(call_reduce(&mut b, op, &y, &o), &format!("[red] {op}: input was created by another"));
        assert_eq!(b.operation_count(), 0);
    }
}

#[test]
fn cumulative_sum_types_ranks_and_axes() {
    let ok = member_limits(OpKind::CumulativeSum, "input").unwrap().data_types;
    assert_allowed_types(OpKind::CumulativeSum, "input", &[Float32, Float16, Int32, Uint32, Int64, Uint64]);
    // 16 rows x 8 types x 4 option combinations = 512 cases.
    for (shape, axis, axis_ok) in AXIS_ROWS {
        for t in DataType::ALL {
            for (exclusive, reversed) in [(false, false), (true, false), (false, true), (true, true)] {
                let mut b = builder();
                let x = b.input("x", &desc(t, shape)).unwrap();
                let o = CumulativeSumOptions { label: "cs".into(), exclusive, reversed };
                let r = b.cumulative_sum(&x, axis, &o);
                if !ok.contains(&t) {
                    assert_type_error(r, &format!("[cs] cumulativeSum: input data type {t} is not supported"));
                } else if axis_ok {
                    let out = r.unwrap();
                    assert_eq!(out.descriptor(), &desc(t, shape));
                    assert_eq!(attrs_of(b, &out), Attrs::CumulativeSum { axis, exclusive, reversed });
                } else {
                    assert_type_error(r, &format!("[cs] cumulativeSum: axis {axis} must be less than the input rank"));
                    assert_eq!(b.operation_count(), 0);
                }
            }
        }
    }
    // Rank 0 is outside the table (rank 1 to N); other builders are rejected.
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[])).unwrap();
    assert_type_error(b.cumulative_sum(&x, 0, &CumulativeSumOptions::default()), "cumulativeSum: input rank 0");
    let mut other = builder();
    let y = other.input("y", &desc(Float32, &[3])).unwrap();
    assert_type_error(b.cumulative_sum(&y, 0, &CumulativeSumOptions::default()), "input was created by another");
}
