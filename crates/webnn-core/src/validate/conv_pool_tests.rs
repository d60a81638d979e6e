//! Table tests of pooling (averagePool2d, l2Pool2d, maxPool2d) and resample2d.
//!
//! Pool shapes are written in nchw; every row runs under both layouts.

use super::tests::{in_shape, Expect};
use crate::graph::Attrs;
use crate::limits::member_limits;
use crate::testing::*;
use crate::types::{InputOperandLayout as IL, InterpolationMode, RoundingType};
use crate::validate::test_support::{
    assert_types_follow_limits, built_builder, for_rows, graph_of, run_checked, setters,
};
use crate::{DataType::*, ErrorKind};

// ---------------------------------------------------------------------------------------------
// pooling
// ---------------------------------------------------------------------------------------------

#[derive(Clone)]
struct Pool {
    input: [u32; 4],
    options: Pool2dOptions,
    expect: Expect,
}

fn p(input: [u32; 4]) -> Pool {
    Pool { input, options: Pool2dOptions::default(), expect: Err("unset") }
}

impl Pool {
    setters!(vec u32; win => options.window_dimensions, pad => options.padding, strides => options.strides,
        dil => options.dilations, osizes => options.output_sizes);
    setters!(expect [u32; 4]);
    setters!(flag; ceil => options.output_shape_rounding = RoundingType::Ceil);
}

fn pool_rows() -> Vec<Pool> {
    vec![
        // ---- valid ----
        p([1, 3, 4, 4]).ok([1, 3, 1, 1]),
        p([1, 3, 4, 4]).win(&[2, 2]).ok([1, 3, 3, 3]),
        p([1, 3, 4, 4]).win(&[2, 2]).strides(&[2, 2]).ok([1, 3, 2, 2]),
        p([1, 3, 5, 5]).win(&[2, 2]).strides(&[2, 2]).ok([1, 3, 2, 2]),
        p([1, 3, 5, 5]).win(&[2, 2]).strides(&[2, 2]).ceil().ok([1, 3, 3, 3]),
        p([1, 3, 5, 5]).win(&[3, 3]).pad(&[1, 1, 1, 1]).ok([1, 3, 5, 5]),
        p([1, 3, 7, 7]).win(&[3, 3]).dil(&[2, 2]).ok([1, 3, 3, 3]),
        // The wpt vectors: outputSizes keep the caller's padding (decisions.md D14).
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).osizes(&[3, 3]).ok([1, 2, 3, 3]),
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).osizes(&[2, 2]).ok([1, 2, 2, 2]),
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).ceil().osizes(&[2, 2]).ok([1, 2, 2, 2]),
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).ok([1, 2, 2, 2]),
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).ceil().ok([1, 2, 3, 3]),
        p([2, 1, 10, 6]).win(&[3, 2]).strides(&[3, 2]).ok([2, 1, 3, 3]),
        p([2, 1, 10, 6]).win(&[3, 2]).strides(&[3, 2]).ceil().ok([2, 1, 4, 3]),
        p([1, 1, 4, 4]).win(&[2, 2]).strides(&[2, 2]).osizes(&[2, 2]).ok([1, 1, 2, 2]),
        p([1, 1, 1, 1]).ok([1, 1, 1, 1]),
        p([1, 1, 2, 2]).win(&[3, 3]).pad(&[1, 0, 1, 0]).ok([1, 1, 1, 1]),
        p([1, 1, 2, 2]).win(&[3, 3]).pad(&[1, 0, 1, 0]).strides(&[2, 2]).ceil().ok([1, 1, 1, 1]),
        p([1, 1, 5, 7]).win(&[5, 1]).ok([1, 1, 1, 7]),
        p([1, 1, 9, 9]).win(&[3, 3]).dil(&[2, 2]).strides(&[2, 2]).ok([1, 1, 3, 3]),
        p([1, 1, 9, 9]).win(&[3, 3]).dil(&[2, 2]).strides(&[2, 2]).ceil().ok([1, 1, 3, 3]),
        p([1, 1, 4, 4]).win(&[4, 4]).pad(&[0, 0, 2, 2]).ok([1, 1, 1, 5]),
        p([1, 1, 4, 4]).win(&[1, 1]).strides(&[u32::MAX, u32::MAX]).ok([1, 1, 1, 1]),
        // ceil((4 − 1) / (2^32 − 1)) + 1 = 2.
        p([1, 1, 4, 4]).win(&[1, 1]).strides(&[u32::MAX, u32::MAX]).ceil().ok([1, 1, 2, 2]),
        p([2, 1, 10, 6]).win(&[3, 2]).strides(&[3, 2]).osizes(&[4, 3]).ok([2, 1, 4, 3]),
        p([2, 1, 10, 6]).win(&[3, 2]).strides(&[3, 2]).osizes(&[3, 3]).ok([2, 1, 3, 3]),
        p([1, 2, 3, 4]).win(&[3, 4]).ok([1, 2, 1, 1]),
        p([1, 1, 3, 3]).pad(&[1, 1, 1, 1]).ok([1, 1, 3, 3]),
        // (2 − 3) / 2 + 1 = 0.5: floor 0 is not valid, ceil 1 is.
        p([1, 1, 2, 2]).win(&[3, 3]).strides(&[2, 2]).ceil().ok([1, 1, 1, 1]),
        p([1, 1, 2, 2]).win(&[3, 3]).strides(&[2, 2]).osizes(&[1, 1]).ok([1, 1, 1, 1]),
        p([4, 16, 112, 112]).win(&[3, 3]).strides(&[2, 2]).pad(&[0, 1, 0, 1]).ok([4, 16, 56, 56]),
        p([1, 8, 7, 7]).win(&[7, 7]).ok([1, 8, 1, 1]),
        p([1, 1, 6, 6]).win(&[2, 2]).strides(&[3, 3]).osizes(&[2, 2]).ok([1, 1, 2, 2]),
        // The literal "outputSizes smaller than strides" sentence is not applied (D14).
        p([1, 1, 9, 9]).win(&[1, 1]).strides(&[1, 1]).osizes(&[9, 9]).ok([1, 1, 9, 9]),
        // ---- option lists ----
        p([1, 1, 5, 5]).win(&[2]).err("windowDimensions must have 2 items"),
        p([1, 1, 5, 5]).win(&[2, 2, 2]).err("windowDimensions must have 2 items"),
        p([1, 1, 5, 5]).win(&[0, 2]).err("every item of windowDimensions must be greater than 0"),
        p([1, 1, 5, 5]).win(&[2, 0]).err("every item of windowDimensions must be greater than 0"),
        p([1, 1, 5, 5]).pad(&[1, 1, 1]).err("padding must have 4 items"),
        p([1, 1, 5, 5]).pad(&[]).err("padding must have 4 items"),
        p([1, 1, 5, 5]).osizes(&[1, 1]).pad(&[1, 1]).err("padding must have 4 items"),
        p([1, 1, 5, 5]).strides(&[1]).err("strides must have 2 items"),
        p([1, 1, 5, 5]).strides(&[1, 1, 1]).err("strides must have 2 items"),
        p([1, 1, 5, 5]).strides(&[0, 1]).err("every item of strides"),
        p([1, 1, 5, 5]).strides(&[1, 0]).err("every item of strides"),
        p([1, 1, 5, 5]).osizes(&[1]).err("outputSizes must have 2 items"),
        p([1, 1, 5, 5]).osizes(&[1, 1, 1]).err("outputSizes must have 2 items"),
        p([1, 1, 5, 5]).dil(&[1]).err("dilations must have 2 items"),
        p([1, 1, 5, 5]).dil(&[1, 1, 1]).err("dilations must have 2 items"),
        p([1, 1, 5, 5]).dil(&[0, 1]).err("every item of dilations"),
        p([1, 1, 5, 5]).dil(&[1, 0]).err("every item of dilations"),
        // ---- outputSizes: floor or ceil, the same rounding on both axes ----
        p([1, 2, 5, 5])
            .win(&[3, 3])
            .pad(&[1, 0, 0, 1])
            .strides(&[2, 2])
            .osizes(&[2, 3])
            .err("outputSizes [2, 3] must be the floor [2, 2] or the ceil [3, 3]"),
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).osizes(&[3, 2]).err("outputSizes [3, 2]"),
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).osizes(&[4, 4]).err("outputSizes [4, 4]"),
        p([1, 2, 5, 5]).win(&[3, 3]).pad(&[1, 0, 0, 1]).strides(&[2, 2]).osizes(&[1, 1]).err("outputSizes [1, 1]"),
        p([1, 1, 4, 4])
            .win(&[2, 2])
            .strides(&[2, 2])
            .osizes(&[3, 3])
            .err("must be the floor [2, 2] or the ceil [2, 2]"),
        p([2, 1, 10, 6]).win(&[3, 2]).strides(&[3, 2]).osizes(&[4, 4]).err("outputSizes [4, 4]"),
        // ---- output size ----
        p([1, 1, 2, 2]).win(&[3, 3]).err("output size 0x0 is not valid"),
        p([1, 1, 5, 5]).win(&[3, 3]).dil(&[3, 3]).err("output size -1x-1 is not valid"),
        p([1, 1, 2, 2]).win(&[4, 4]).ceil().err("output size -1x-1 is not valid"),
        p([1, 1, 2, 2]).win(&[3, 3]).strides(&[2, 2]).err("output size 0x0 is not valid"),
        p([1, 1, 2, 2]).win(&[3, 3]).strides(&[2, 2]).osizes(&[0, 0]).err("output size 0x0 is not valid"),
        p([1, 1, 5, 2]).win(&[3, 3]).err("output size 3x0"),
        p([1, 1, 1, 1]).win(&[1, 1]).pad(&[u32::MAX, u32::MAX, 0, 0]).err("output size 8589934591x1"),
        p([1, 1, 1, 1]).win(&[1, 1]).pad(&[0, 0, 0, u32::MAX]).ceil().err("is not valid"),
        p([1, 1, 1, 1]).win(&[1, 1]).pad(&[0, 65535, 0, 65535]).err("has 4294967296 elements"),
        p([1, 1, 5, 5]).win(&[u32::MAX, 1]).dil(&[u32::MAX, 1]).err("is not valid"),
        // ---- step order ----
        p([1, 1, 5, 5]).win(&[0, 0]).pad(&[1]).err("windowDimensions"),
        p([1, 1, 5, 5]).pad(&[1]).strides(&[0, 0]).err("padding"),
        p([1, 1, 5, 5]).strides(&[0, 0]).osizes(&[1]).err("strides"),
        p([1, 1, 5, 5]).osizes(&[1]).dil(&[0, 0]).err("outputSizes"),
        p([1, 1, 5, 5]).win(&[9, 9]).dil(&[0, 0]).err("dilations"),
    ]
}

#[test]
fn pool2d_table_every_op_and_layout() {
    let rows = pool_rows();
    assert!(rows.len() >= 70, "{} rows", rows.len());
    for (i, row) in rows.iter().enumerate() {
        for op in [OpKind::AveragePool2d, OpKind::L2Pool2d, OpKind::MaxPool2d] {
            for layout in [IL::Nchw, IL::Nhwc] {
                let want = row.expect.map(|out| desc(Float16, &in_shape(layout, out)));
                run_checked(op.idl_name(), want, &format!("row {i} {op} {layout}"), |b| {
                    let x = b.input("x", &desc(Float16, &in_shape(layout, row.input))).unwrap();
                    let options = Pool2dOptions { layout, ..row.options.clone() };
                    match op {
                        OpKind::AveragePool2d => b.average_pool2d(&x, &options),
                        OpKind::L2Pool2d => b.l2_pool2d(&x, &options),
                        _ => b.max_pool2d(&x, &options),
                    }
                });
            }
        }
    }
}

#[test]
fn pool2d_data_types_ranks_label_attrs() {
    for op in [OpKind::AveragePool2d, OpKind::L2Pool2d, OpKind::MaxPool2d] {
        assert_types_follow_limits(op, "input", &[1, 2, 3, 3], |b, t| {
            let x = b.input("x", &desc(t, &[1, 2, 4, 4])).unwrap();
            b.pool2d(op, &x, &Pool2dOptions { window_dimensions: Some(vec![2, 2]), ..Default::default() })
        });
        let mut b = builder();
        for shape in [&[][..], &[4][..], &[2, 4, 4][..], &[1, 1, 2, 4, 4][..]] {
            let x = b.input(&format!("x{}", shape.len()), &desc(Float32, shape)).unwrap();
            assert_type_error(b.pool2d(op, &x, &Pool2dOptions::default()), "input rank");
        }
        let x = b.input("x", &desc(Float32, &[1, 1, 4, 4])).unwrap();
        let r =
            b.pool2d(op, &x, &Pool2dOptions { label: "pool".into(), strides: Some(vec![0, 0]), ..Default::default() });
        assert_type_error(r, &format!("[pool] {op}: every item of strides"));
        let mut other = builder();
        let ox = other.input("x", &desc(Float32, &[1, 1, 4, 4])).unwrap();
        assert_type_error(b.pool2d(op, &ox, &Pool2dOptions::default()), "input was created by another MLGraphBuilder");
        assert_eq!(b.operation_count(), 0);
        let (mut built, x) = built_builder();
        assert_kind(
            built.pool2d(op, &x, &Pool2dOptions { strides: Some(vec![0]), ..Default::default() }),
            ErrorKind::InvalidState,
        );
    }
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 1, 4, 4])).unwrap();
    assert_type_error(b.pool2d(OpKind::Conv2d, &x, &Pool2dOptions::default()), "conv2d is not a pooling operation");
    assert_eq!(b.operation_count(), 0);
    assert!(member_limits(OpKind::MaxPool2d, "input").unwrap().data_types.contains(&Int8));
    assert!(!member_limits(OpKind::AveragePool2d, "input").unwrap().data_types.contains(&Int8));

    // Resolved attributes: the default window is the input's spatial size; the caller's
    // padding is kept with outputSizes (D14).
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 6, 5, 2])).unwrap();
    let out = b.max_pool2d(&x, &Pool2dOptions { layout: IL::Nhwc, ..Default::default() }).unwrap();
    assert_eq!(out.descriptor(), &desc(Float32, &[1, 1, 1, 2]));
    let g = graph_of(&mut b, &out);
    assert_eq!(
        g.operations[0].attrs,
        Attrs::Pool2d { window: [6, 5], padding: [0; 4], strides: [1, 1], dilations: [1, 1], layout: IL::Nhwc }
    );
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 2, 5, 5])).unwrap();
    let options = Pool2dOptions {
        window_dimensions: Some(vec![3, 3]),
        padding: Some(vec![1, 0, 0, 1]),
        strides: Some(vec![2, 2]),
        dilations: Some(vec![1, 1]),
        output_sizes: Some(vec![3, 3]),
        ..Default::default()
    };
    let out = b.average_pool2d(&x, &options).unwrap();
    let g = graph_of(&mut b, &out);
    assert_eq!(g.operations[0].kind, OpKind::AveragePool2d);
    assert_eq!(g.operations[0].inputs.len(), 1);
    assert_eq!(
        g.operations[0].attrs,
        Attrs::Pool2d { window: [3, 3], padding: [1, 0, 0, 1], strides: [2, 2], dilations: [1, 1], layout: IL::Nchw }
    );
}

// ---------------------------------------------------------------------------------------------
// resample2d
// ---------------------------------------------------------------------------------------------

struct Resample {
    input: [u32; 4],
    options: Resample2dOptions,
    expect: std::result::Result<[u32; 4], &'static str>,
}

fn r(input: [u32; 4]) -> Resample {
    Resample { input, options: Resample2dOptions::default(), expect: Err("unset") }
}

impl Resample {
    setters!(vec f32; scales => options.scales);
    setters!(vec u32; sizes => options.sizes, axes => options.axes);
    setters!(expect [u32; 4]);
    setters!(flag; linear => options.mode = InterpolationMode::Linear);
}

fn resample_rows() -> Vec<Resample> {
    vec![
        // ---- valid (the first rows are the wpt vectors' shapes) ----
        r([1, 1, 2, 3]).ok([1, 1, 2, 3]),
        r([1, 1, 2, 3]).scales(&[2.0, 2.0]).ok([1, 1, 4, 6]),
        r([1, 1, 2, 3]).sizes(&[4, 6]).ok([1, 1, 4, 6]),
        r([1, 1, 2, 3]).scales(&[0.5, 0.5]).sizes(&[4, 6]).ok([1, 1, 4, 6]),
        r([1, 2, 3, 1]).sizes(&[4, 6]).axes(&[1, 2]).ok([1, 4, 6, 1]),
        r([1, 1, 2, 3]).sizes(&[4, 6]).axes(&[2, 3]).ok([1, 1, 4, 6]),
        r([1, 1, 2, 3]).sizes(&[6, 4]).axes(&[3, 2]).ok([1, 1, 4, 6]),
        r([3, 2, 1, 1]).sizes(&[6, 4]).axes(&[0, 1]).ok([6, 4, 1, 1]),
        r([3, 2, 1, 1]).sizes(&[4, 6]).axes(&[1, 0]).ok([6, 4, 1, 1]),
        r([1, 1, 2, 3]).linear().scales(&[2.0, 2.0]).ok([1, 1, 4, 6]),
        r([1, 1, 2, 3]).linear().sizes(&[4, 6]).ok([1, 1, 4, 6]),
        r([1, 1, 4, 4]).scales(&[0.5, 0.5]).ok([1, 1, 2, 2]),
        r([1, 1, 5, 5]).scales(&[0.5, 0.5]).ok([1, 1, 2, 2]),
        r([1, 1, 3, 3]).scales(&[1.5, 2.5]).ok([1, 1, 4, 7]),
        r([1, 1, 2, 3]).scales(&[0.5, 1.0]).ok([1, 1, 1, 3]),
        r([1, 1, 2, 2]).scales(&[0.6, 0.6]).ok([1, 1, 1, 1]),
        r([2, 3, 4, 5]).scales(&[3.0, 2.0]).axes(&[0, 3]).ok([6, 3, 4, 10]),
        r([1, 1, 1, 1]).sizes(&[7, 9]).axes(&[0, 3]).ok([7, 1, 1, 9]),
        r([1, 1, 1, 1]).sizes(&[2147483647, 1]).ok([1, 1, 2147483647, 1]),
        r([1, 1, 10, 10]).scales(&[0.1, 0.1]).ok([1, 1, 1, 1]),
        r([1, 1, 3, 3]).scales(&[1.0 / 3.0, 1.0 / 3.0]).ok([1, 1, 1, 1]),
        r([1, 2, 3, 4]).scales(&[2.0, 3.0]).axes(&[1, 2]).ok([1, 4, 9, 4]),
        r([1, 2, 3, 4]).scales(&[1.0, 1.0]).ok([1, 2, 3, 4]),
        r([1, 1, 2, 1]).scales(&[1e9, 1.0]).ok([1, 1, 2000000000, 1]),
        r([1, 1, 2, 3]).sizes(&[1, 1]).ok([1, 1, 1, 1]),
        r([4, 4, 4, 4]).sizes(&[2, 8]).axes(&[3, 0]).ok([8, 4, 4, 2]),
        // ---- scales ----
        r([1, 1, 2, 3]).scales(&[0.0, 1.0]).err("every item of scales must be a finite number > 0"),
        r([1, 1, 2, 3]).scales(&[1.0, -1.0]).err("every item of scales must be a finite number > 0"),
        r([1, 1, 2, 3]).scales(&[f32::NAN, 1.0]).err("every item of scales"),
        r([1, 1, 2, 3]).scales(&[1.0, f32::INFINITY]).err("every item of scales"),
        r([1, 1, 2, 3]).scales(&[1.0]).err("scales must have 2 items"),
        r([1, 1, 2, 3]).scales(&[1.0, 1.0, 1.0]).err("scales must have 2 items"),
        r([1, 1, 2, 3]).scales(&[]).err("scales must have 2 items"),
        r([1, 1, 2, 3]).scales(&[0.0, 1.0]).sizes(&[2, 2]).err("every item of scales"),
        r([1, 1, 2, 3]).scales(&[1.0]).sizes(&[2, 2]).err("scales must have 2 items"),
        // ---- sizes ----
        r([1, 1, 2, 3]).sizes(&[4]).err("sizes must have 2 items"),
        r([1, 1, 2, 3]).sizes(&[4, 4, 4]).err("sizes must have 2 items"),
        r([1, 1, 2, 3]).sizes(&[0, 4]).err("every item of sizes must be greater than 0"),
        r([1, 1, 2, 3]).sizes(&[4, 0]).err("every item of sizes must be greater than 0"),
        // ---- axes (decisions.md D16) ----
        r([1, 1, 2, 3]).axes(&[2]).err("axes must have 2 items"),
        r([1, 1, 2, 3]).axes(&[1, 2, 3]).err("axes must have 2 items"),
        r([1, 1, 2, 3]).axes(&[]).err("axes must have 2 items"),
        r([1, 1, 2, 3]).axes(&[2, 2]).err("axes [2, 2] must not contain duplicates"),
        r([1, 1, 2, 3]).axes(&[2, 4]).err("axis 4 in axes [2, 4] is out of range for rank 4"),
        r([1, 1, 2, 3]).axes(&[4, 2]).err("axis 4"),
        r([1, 1, 2, 3]).axes(&[u32::MAX, 0]).err("is out of range"),
        // ---- output sizes ----
        r([1, 1, 2, 3]).scales(&[0.25, 1.0]).err("output size along axis 2 (input size 2, scale 0.25)"),
        r([1, 1, 2, 3]).scales(&[1.0, 0.25]).err("output size along axis 3"),
        r([1, 1, 2, 3]).scales(&[2e9, 1.0]).err("output size along axis 2"),
        r([1, 1, 2, 3]).scales(&[f32::MAX, f32::MAX]).err("is not a valid dimension"),
        r([1, 1, 2, 3]).scales(&[f32::MIN_POSITIVE, 1.0]).err("is not a valid dimension"),
        r([1, 1, 2, 3]).sizes(&[2147483648, 1]).err("output size along axis 2"),
        r([1, 1, 2, 3]).sizes(&[1, u32::MAX]).err("output size along axis 3"),
        r([1, 1, 1, 1]).sizes(&[65536, 65536]).err("has 4294967296 elements"),
        // ---- step order ----
        r([1, 1, 2, 3]).scales(&[0.0, 1.0]).sizes(&[0, 0]).err("scales"),
        r([1, 1, 2, 3]).sizes(&[0, 1]).axes(&[5, 5]).err("sizes"),
        r([1, 1, 2, 3]).axes(&[2, 2]).scales(&[0.01, 0.01]).err("duplicates"),
    ]
}

#[test]
fn resample2d_table() {
    for_rows(&resample_rows(), 55, &[Float32, Uint8], |row, t, ctx| {
        run_checked("resample2d", row.expect.map(|out| desc(t, &out)), ctx, |b| {
            let x = b.input("x", &desc(t, &row.input)).unwrap();
            b.resample2d(&x, &row.options)
        });
    });
}

#[test]
fn resample2d_types_ranks_attrs() {
    assert_types_follow_limits(OpKind::Resample2d, "input", &[1, 1, 4, 4], |b, t| {
        let x = b.input("x", &desc(t, &[1, 1, 2, 2])).unwrap();
        b.resample2d(&x, &Resample2dOptions { scales: Some(vec![2.0, 2.0]), ..Default::default() })
    });
    let mut b = builder();
    for shape in [&[2, 2][..], &[1, 2, 2][..], &[1, 1, 1, 2, 2][..]] {
        let x = b.input(&format!("x{}", shape.len()), &desc(Float32, shape)).unwrap();
        assert_type_error(b.resample2d(&x, &Resample2dOptions::default()), "input rank");
    }
    let x = b.input("x", &desc(Float32, &[1, 1, 2, 3])).unwrap();
    assert_type_error(
        b.resample2d(&x, &Resample2dOptions { label: "up".into(), sizes: Some(vec![0, 0]), ..Default::default() }),
        "[up] resample2d: every item of sizes",
    );
    let (mut built, x0) = built_builder();
    assert_kind(built.resample2d(&x0, &Resample2dOptions::default()), ErrorKind::InvalidState);
    let mut other = builder();
    let ox = other.input("x", &desc(Float32, &[1, 1, 2, 3])).unwrap();
    assert_type_error(b.resample2d(&ox, &Resample2dOptions::default()), "another MLGraphBuilder");

    // scales are recorded only when given and sizes is absent.
    let cases: [(Resample2dOptions, Option<[f32; 2]>, [u32; 2]); 4] = [
        (Resample2dOptions::default(), None, [2, 3]),
        (
            Resample2dOptions { scales: Some(vec![2.0, 3.0]), axes: Some(vec![3, 2]), ..Default::default() },
            Some([2.0, 3.0]),
            [3, 2],
        ),
        (
            Resample2dOptions { scales: Some(vec![2.0, 3.0]), sizes: Some(vec![4, 4]), ..Default::default() },
            None,
            [2, 3],
        ),
        (
            Resample2dOptions { sizes: Some(vec![4, 4]), mode: InterpolationMode::Linear, ..Default::default() },
            None,
            [2, 3],
        ),
    ];
    for (options, scales, axes) in cases {
        let mut b = builder();
        let x = b.input("x", &desc(Float32, &[1, 1, 2, 3])).unwrap();
        let out = b.resample2d(&x, &options).unwrap();
        let g = graph_of(&mut b, &out);
        assert_eq!(g.operations[0].attrs, Attrs::Resample2d { mode: options.mode, scales, axes });
    }
}
