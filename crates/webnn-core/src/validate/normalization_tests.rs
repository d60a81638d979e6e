//! Table tests of batchNormalization, instanceNormalization and layerNormalization.

use crate::graph::Attrs;
use crate::testing::*;
use crate::types::InputOperandLayout as IL;
use crate::validate::test_support::{
    assert_types_follow_limits, built_builder, for_rows, graph_of, run_checked, setters,
};
use crate::{DataType::*, ErrorKind};
use half::f16;

type Shape = &'static [u32];

/// The optional scale and bias inputs of data type `t` and the shapes given.
fn scale_bias(
    b: &mut GraphBuilder,
    t: DataType,
    scale: Option<Shape>,
    bias: Option<Shape>,
) -> (Option<Operand>, Option<Operand>) {
    let scale = scale.map(|s| b.input("scale", &desc(t, s)).unwrap());
    (scale, bias.map(|s| b.input("bias", &desc(t, s)).unwrap()))
}

/// Asserts the TypeErrors of a scale, then a bias, of the data type of `wrong` (not
/// `input_type`, the input's), then of ones from another builder (`foreign`); `call(scale,
/// bias)` calls the op with those options.
#[track_caller]
fn assert_scale_bias_errors(
    mut call: impl FnMut(Option<Operand>, Option<Operand>) -> Result<Operand>,
    wrong: &Operand,
    input_type: DataType,
    foreign: &Operand,
) {
    let wrong_type = format!("data type {} must equal input data type {input_type}", wrong.data_type());
    for (operand, needle) in [(wrong, wrong_type.as_str()), (foreign, "was created by another MLGraphBuilder")] {
        assert_type_error(call(Some(operand.clone()), None), &format!("scale {needle}"));
        assert_type_error(call(None, Some(operand.clone())), &format!("bias {needle}"));
    }
}

// ---------------------------------------------------------------------------------------------
// batchNormalization
// ---------------------------------------------------------------------------------------------

struct Bn {
    input: Shape,
    axis: u32,
    mean: Shape,
    variance: Shape,
    scale: Option<Shape>,
    bias: Option<Shape>,
    expect: std::result::Result<(), &'static str>,
}

fn bn(input: Shape, axis: u32, mean: Shape, variance: Shape) -> Bn {
    Bn { input, axis, mean, variance, scale: None, bias: None, expect: Ok(()) }
}

impl Bn {
    setters!(some Shape; scale => scale, bias => bias);
    fn err(mut self, needle: &'static str) -> Self {
        self.expect = Err(needle);
        self
    }
}

fn batch_normalization_rows() -> Vec<Bn> {
    vec![
        bn(&[1, 2, 3, 3], 1, &[2], &[2]),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).scale(&[2]).bias(&[2]),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).scale(&[2]),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).bias(&[2]),
        bn(&[1, 3, 3, 2], 3, &[2], &[2]).scale(&[2]).bias(&[2]),
        bn(&[4, 2], 0, &[4], &[4]),
        bn(&[5], 0, &[5], &[5]).scale(&[5]),
        bn(&[3, 7], 1, &[7], &[7]),
        bn(&[1, 2, 3, 4, 5], 4, &[5], &[5]).bias(&[5]),
        bn(&[1, 1, 1, 1, 1, 1, 1, 6], 7, &[6], &[6]).scale(&[6]).bias(&[6]),
        bn(&[2, 3, 4], 2, &[4], &[4]),
        bn(&[2, 3, 4], 0, &[2], &[2]).scale(&[2]),
        bn(&[6, 1, 1, 1], 0, &[6], &[6]),
        bn(&[1, 1, 1, 1], 2, &[1], &[1]).scale(&[1]).bias(&[1]),
        // ---- axis ----
        bn(&[1, 2, 3, 3], 4, &[2], &[2]).err("axis 4 is out of range for input rank 4"),
        bn(&[5], 1, &[5], &[5]).err("axis 1 is out of range for input rank 1"),
        bn(&[1, 2, 3, 3], u32::MAX, &[2], &[2]).err("axis 4294967295 is out of range"),
        bn(&[2, 3], 2, &[3], &[3]).err("axis 2 is out of range"),
        // ---- mean / variance ----
        bn(&[1, 2, 3, 3], 1, &[3], &[2]).err("mean shape [3] must be [2]"),
        bn(&[1, 2, 3, 3], 1, &[2], &[3]).err("variance shape [3] must be [2]"),
        bn(&[1, 2, 3, 3], 2, &[2], &[3]).err("mean shape [2] must be [3]"),
        bn(&[1, 2, 3, 3], 2, &[3], &[2]).err("variance shape [2] must be [3]"),
        bn(&[1, 3, 3, 2], 1, &[2], &[2]).err("mean shape [2] must be [3]"),
        bn(&[1, 2, 3, 3], 1, &[1, 2], &[2]).err("mean rank 2"),
        bn(&[1, 2, 3, 3], 1, &[2], &[]).err("variance rank 0"),
        bn(&[1, 2, 3, 3], 1, &[], &[2]).err("mean rank 0"),
        // ---- scale / bias ----
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).scale(&[3]).err("scale shape [3] must be [2]"),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).bias(&[1]).err("bias shape [1] must be [2]"),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).scale(&[2]).bias(&[3]).err("bias shape [3] must be [2]"),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).scale(&[2, 1]).err("scale rank 2"),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).bias(&[]).err("bias rank 0"),
        // ---- input ----
        bn(&[], 0, &[1], &[1]).err("input rank 0"),
        // ---- step order ----
        bn(&[1, 2, 3, 3], 4, &[7], &[7]).err("axis 4"),
        bn(&[1, 2, 3, 3], 1, &[3], &[3]).scale(&[3]).err("mean shape"),
        bn(&[1, 2, 3, 3], 1, &[2], &[3]).scale(&[3]).err("variance shape"),
        bn(&[1, 2, 3, 3], 1, &[2], &[2]).scale(&[3]).bias(&[3]).err("scale shape"),
    ]
}

#[test]
fn batch_normalization_table() {
    for_rows(&batch_normalization_rows(), 35, &[Float32, Float16], |row, t, ctx| {
        let want = row.expect.map(|_| desc(t, row.input));
        run_checked("batchNormalization", want, ctx, |b| {
            let x = b.input("x", &desc(t, row.input)).unwrap();
            let mean = b.input("mean", &desc(t, row.mean)).unwrap();
            let variance = b.input("variance", &desc(t, row.variance)).unwrap();
            let (scale, bias) = scale_bias(b, t, row.scale, row.bias);
            let options = BatchNormalizationOptions { axis: row.axis, scale, bias, ..Default::default() };
            b.batch_normalization(&x, &mean, &variance, &options)
        });
    });
}

#[test]
fn batch_normalization_types_builders_attrs() {
    assert_types_follow_limits(OpKind::BatchNormalization, "input", &[1, 2, 2, 2], |b, t| {
        let x = b.input("x", &desc(t, &[1, 2, 2, 2])).unwrap();
        let m = b.input("m", &desc(t, &[2])).unwrap();
        let v = b.input("v", &desc(t, &[2])).unwrap();
        b.batch_normalization(&x, &m, &v, &BatchNormalizationOptions::default())
    });
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 2, 2, 2])).unwrap();
    let m = b.input("m", &desc(Float32, &[2])).unwrap();
    let h = b.input("h", &desc(Float16, &[2])).unwrap();
    let i = b.input("i", &desc(Int32, &[2])).unwrap();
    let o = BatchNormalizationOptions::default;
    assert_type_error(
        b.batch_normalization(&x, &h, &m, &o()),
        "mean data type float16 must equal input data type float32",
    );
    assert_type_error(
        b.batch_normalization(&x, &m, &h, &o()),
        "variance data type float16 must equal input data type float32",
    );
    assert_type_error(b.batch_normalization(&x, &i, &m, &o()), "mean data type int32 is not supported");
    assert_type_error(
        b.batch_normalization(&x, &m, &m, &BatchNormalizationOptions { label: "bn".into(), axis: 9, ..o() }),
        "[bn] batchNormalization: axis 9",
    );
    let mut other = builder();
    let om = other.input("m", &desc(Float32, &[2])).unwrap();
    assert_type_error(b.batch_normalization(&x, &om, &m, &o()), "mean was created by another MLGraphBuilder");
    assert_type_error(b.batch_normalization(&x, &m, &om, &o()), "variance was created by another MLGraphBuilder");
    assert_scale_bias_errors(
        |scale, bias| b.batch_normalization(&x, &m, &m, &BatchNormalizationOptions { scale, bias, ..o() }),
        &h,
        Float32,
        &om,
    );
    assert_eq!(b.operation_count(), 0);
    let (mut built, x0) = built_builder();
    assert_kind(built.batch_normalization(&x0, &x0, &x0, &o()), ErrorKind::InvalidState);

    // epsilon is cast to the input type; slots hold absent options as None.
    for (t, epsilon, want) in [
        (Float32, 1e-5, 1e-5f32 as f64),
        (Float16, 1e-5, f16::from_f64(1e-5).to_f64()),
        (Float32, 1e-3, 1e-3f32 as f64),
        (Float16, 1e6, f64::INFINITY),
    ] {
        let mut b = builder();
        let x = b.input("x", &desc(t, &[2, 3, 4])).unwrap();
        let m = b.input("m", &desc(t, &[4])).unwrap();
        let s = b.input("s", &desc(t, &[4])).unwrap();
        let options = BatchNormalizationOptions { axis: 2, epsilon, bias: Some(s), ..o() };
        let out = b.batch_normalization(&x, &m, &m, &options).unwrap();
        let g = graph_of(&mut b, &out);
        let op = &g.operations[0];
        assert_eq!(op.attrs, Attrs::BatchNormalization { axis: 2, epsilon: want }, "{t} {epsilon}");
        assert_eq!(op.inputs.len(), 5);
        assert!(op.inputs[3].is_none() && op.inputs[4].is_some());
    }
}

// ---------------------------------------------------------------------------------------------
// instanceNormalization
// ---------------------------------------------------------------------------------------------

/// (input, layout, scale, bias, Ok or error needle)
type InstanceRow = (Shape, IL, Option<Shape>, Option<Shape>, std::result::Result<(), &'static str>);

fn instance_normalization_rows() -> Vec<InstanceRow> {
    vec![
        (&[1, 2, 3, 3], IL::Nchw, Some(&[2]), Some(&[2]), Ok(())),
        (&[1, 3, 3, 2], IL::Nhwc, Some(&[2]), Some(&[2]), Ok(())),
        (&[1, 2, 3, 3], IL::Nchw, None, None, Ok(())),
        (&[1, 2, 3, 3], IL::Nhwc, Some(&[3]), None, Ok(())),
        (&[2, 5, 1, 1], IL::Nchw, None, Some(&[5]), Ok(())),
        (&[1, 1, 1, 7], IL::Nhwc, Some(&[7]), Some(&[7]), Ok(())),
        (&[3, 1, 4, 4], IL::Nchw, Some(&[1]), None, Ok(())),
        (&[1, 2, 3, 3], IL::Nchw, Some(&[3]), None, Err("scale shape [3] must be [2]")),
        (&[1, 2, 3, 3], IL::Nchw, None, Some(&[3]), Err("bias shape [3] must be [2]")),
        (&[1, 2, 3, 3], IL::Nhwc, Some(&[2]), None, Err("scale shape [2] must be [3]")),
        (&[1, 2, 3, 4], IL::Nhwc, None, Some(&[2]), Err("bias shape [2] must be [4]")),
        (&[1, 2, 3, 3], IL::Nchw, Some(&[2]), Some(&[1]), Err("bias shape [1] must be [2]")),
        (&[1, 2, 3, 3], IL::Nchw, Some(&[1, 2]), None, Err("scale rank 2")),
        (&[1, 2, 3, 3], IL::Nchw, None, Some(&[]), Err("bias rank 0")),
        (&[2, 3, 3], IL::Nchw, None, None, Err("input rank 3")),
        (&[1, 2, 3, 3, 3], IL::Nhwc, None, None, Err("input rank 5")),
        (&[], IL::Nchw, None, None, Err("input rank 0")),
        (&[1, 2, 3, 3], IL::Nchw, Some(&[3]), Some(&[3]), Err("scale shape")),
    ]
}

#[test]
fn instance_normalization_table() {
    for (i, (input, layout, scale, bias, expect)) in instance_normalization_rows().into_iter().enumerate() {
        for t in [Float32, Float16] {
            run_checked("instanceNormalization", expect.map(|_| desc(t, input)), &format!("row {i} {t}"), |b| {
                let x = b.input("x", &desc(t, input)).unwrap();
                let (scale, bias) = scale_bias(b, t, scale, bias);
                b.instance_normalization(
                    &x,
                    &InstanceNormalizationOptions { layout, scale, bias, ..Default::default() },
                )
            });
        }
    }
}

#[test]
fn instance_normalization_types_builders_attrs() {
    assert_types_follow_limits(OpKind::InstanceNormalization, "input", &[1, 2, 2, 2], |b, t| {
        let x = b.input("x", &desc(t, &[1, 2, 2, 2])).unwrap();
        b.instance_normalization(&x, &InstanceNormalizationOptions::default())
    });
    let mut b = builder();
    let x = b.input("x", &desc(Float16, &[1, 2, 2, 2])).unwrap();
    let s32 = b.input("s32", &desc(Float32, &[2])).unwrap();
    let o = InstanceNormalizationOptions::default;
    let mut other = builder();
    let os = other.input("s", &desc(Float16, &[2])).unwrap();
    assert_scale_bias_errors(
        |scale, bias| b.instance_normalization(&x, &InstanceNormalizationOptions { scale, bias, ..o() }),
        &s32,
        Float16,
        &os,
    );
    assert_type_error(
        b.instance_normalization(
            &x,
            &InstanceNormalizationOptions { label: "in".into(), bias: Some(x.clone()), ..o() },
        ),
        "[in] instanceNormalization: bias rank 4",
    );
    assert_eq!(b.operation_count(), 0);
    let (mut built, x0) = built_builder();
    assert_kind(built.instance_normalization(&x0, &o()), ErrorKind::InvalidState);

    for (t, layout, epsilon, want) in [
        (Float32, IL::Nchw, 1e-5, 1e-5f32 as f64),
        (Float16, IL::Nhwc, 1e-5, f16::from_f64(1e-5).to_f64()),
        (Float16, IL::Nchw, 0.0, 0.0),
    ] {
        let mut b = builder();
        let x = b.input("x", &desc(t, &[1, 3, 3, 3])).unwrap();
        let s = b.input("s", &desc(t, &[3])).unwrap();
        let out = b
            .instance_normalization(&x, &InstanceNormalizationOptions { layout, epsilon, scale: Some(s), ..o() })
            .unwrap();
        let g = graph_of(&mut b, &out);
        assert_eq!(g.operations[0].attrs, Attrs::InstanceNormalization { epsilon: want, layout });
        assert_eq!(g.operations[0].inputs.len(), 3);
        assert!(g.operations[0].inputs[1].is_some() && g.operations[0].inputs[2].is_none());
    }
}

// ---------------------------------------------------------------------------------------------
// layerNormalization
// ---------------------------------------------------------------------------------------------

struct Ln {
    input: Shape,
    axes: Option<Shape>,
    scale: Option<Shape>,
    bias: Option<Shape>,
    expect: std::result::Result<Vec<u32>, &'static str>,
}

fn ln(input: Shape, axes: Option<Shape>) -> Ln {
    Ln { input, axes, scale: None, bias: None, expect: Err("unset") }
}

impl Ln {
    setters!(some Shape; scale => scale, bias => bias);
    /// Valid; `axes` are the resolved axes.
    fn ok(mut self, axes: &[u32]) -> Self {
        self.expect = Ok(axes.to_vec());
        self
    }
    fn err(mut self, needle: &'static str) -> Self {
        self.expect = Err(needle);
        self
    }
}

fn layer_normalization_rows() -> Vec<Ln> {
    vec![
        ln(&[2, 3, 4], None).scale(&[3, 4]).bias(&[3, 4]).ok(&[1, 2]),
        ln(&[2, 3, 4], None).ok(&[1, 2]),
        ln(&[4, 6], Some(&[])).bias(&[]).ok(&[]),
        ln(&[4, 6], Some(&[])).ok(&[]),
        ln(&[2, 1, 4, 3], Some(&[2])).ok(&[2]),
        ln(&[2, 1, 4, 3], Some(&[0, 2])).scale(&[2, 4]).ok(&[0, 2]),
        ln(&[2, 1, 4, 3], Some(&[3, 1, 2])).bias(&[3, 1, 4]).ok(&[3, 1, 2]),
        ln(&[2, 1, 4, 3], Some(&[0, 3, 1])).scale(&[2, 3, 1]).bias(&[2, 3, 1]).ok(&[0, 3, 1]),
        ln(&[], None).scale(&[]).bias(&[]).ok(&[]),
        ln(&[], Some(&[])).ok(&[]),
        ln(&[5], None).scale(&[]).ok(&[]),
        ln(&[5], Some(&[0])).scale(&[5]).bias(&[5]).ok(&[0]),
        ln(&[2, 3], None).scale(&[3]).ok(&[1]),
        ln(&[2, 3, 4, 5], Some(&[3, 2, 1, 0])).scale(&[5, 4, 3, 2]).ok(&[3, 2, 1, 0]),
        ln(&[7], Some(&[])).ok(&[]),
        ln(&[1, 2, 3, 4, 5, 6, 7, 8], None).scale(&[2, 3, 4, 5, 6, 7, 8]).ok(&[1, 2, 3, 4, 5, 6, 7]),
        ln(&[2, 3, 4], Some(&[0, 1, 2])).bias(&[2, 3, 4]).ok(&[0, 1, 2]),
        ln(&[2, 3, 4], Some(&[2, 0])).scale(&[4, 2]).bias(&[4, 2]).ok(&[2, 0]),
        // ---- axes ----
        ln(&[2, 3, 4], Some(&[3])).err("axis 3 in axes [3] is out of range for rank 3"),
        ln(&[2, 3, 4], Some(&[0, 0])).err("axis 0 is repeated in axes [0, 0]"),
        ln(&[2, 3, 4], Some(&[1, 2, 1])).err("axis 1 is repeated"),
        ln(&[], Some(&[0])).err("axis 0 in axes [0] is out of range for rank 0"),
        ln(&[2, 3, 4], Some(&[u32::MAX])).err("axis 4294967295"),
        ln(&[2, 3, 4], Some(&[0, 1, 2, 3])).err("axis 3"),
        // ---- scale / bias ranks ----
        ln(&[2, 3, 4], None).scale(&[3]).err("scale rank 1 (shape [3]) must equal the number of axes 2"),
        ln(&[2, 3, 4], None).bias(&[3, 4, 1]).err("bias rank 3 (shape [3, 4, 1]) must equal the number of axes 2"),
        ln(&[5], None).scale(&[5]).err("scale rank 1 (shape [5]) must equal the number of axes 0"),
        ln(&[4, 6], Some(&[])).bias(&[1]).err("bias rank 1"),
        ln(&[2, 3, 4], Some(&[1])).scale(&[]).err("scale rank 0"),
        // ---- scale / bias shapes (in axes order) ----
        ln(&[2, 3, 4], None).scale(&[4, 3]).err("scale shape [4, 3] must be [3, 4]"),
        ln(&[2, 3, 4], None).bias(&[3, 5]).err("bias shape [3, 5] must be [3, 4]"),
        ln(&[2, 1, 4, 3], Some(&[2, 0])).scale(&[2, 4]).err("scale shape [2, 4] must be [4, 2]"),
        ln(&[2, 1, 4, 3], Some(&[0, 3, 1])).bias(&[2, 1, 3]).err("bias shape [2, 1, 3] must be [2, 3, 1]"),
        ln(&[5], Some(&[0])).scale(&[4]).err("scale shape [4] must be [5]"),
        // ---- step order ----
        ln(&[2, 3, 4], Some(&[5])).scale(&[1]).err("axis 5"),
        ln(&[2, 3, 4], None).scale(&[4, 3]).bias(&[3]).err("bias rank 1"),
        ln(&[2, 3, 4], None).scale(&[3]).bias(&[3]).err("scale rank 1"),
        ln(&[2, 3, 4], None).scale(&[4, 3]).bias(&[4, 3]).err("scale shape"),
    ]
}

#[test]
fn layer_normalization_table() {
    for_rows(&layer_normalization_rows(), 35, &[Float32, Float16], |row, t, ctx| {
        let want = row.expect.as_ref().map(|_| desc(t, row.input)).map_err(|e| *e);
        let (mut b, r) = run_checked("layerNormalization", want, ctx, |b| {
            let x = b.input("x", &desc(t, row.input)).unwrap();
            let (scale, bias) = scale_bias(b, t, row.scale, row.bias);
            let axes = row.axes.map(|a| a.to_vec());
            b.layer_normalization(&x, &LayerNormalizationOptions { axes, scale, bias, ..Default::default() })
        });
        if let (Some(out), Ok(axes)) = (r, &row.expect) {
            let g = graph_of(&mut b, &out);
            assert_eq!(
                g.operations[0].attrs,
                Attrs::LayerNormalization { axes: axes.clone(), epsilon: MLNumber::from(1e-5).cast(t).to_f64() },
                "{ctx}"
            );
        }
    });
}

#[test]
fn layer_normalization_types_builders() {
    for shape in [&[][..], &[3][..], &[2, 3, 4][..]] {
        assert_types_follow_limits(OpKind::LayerNormalization, "input", shape, |b, t| {
            let x = b.input("x", &desc(t, shape)).unwrap();
            b.layer_normalization(&x, &LayerNormalizationOptions::default())
        });
    }
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[2, 3])).unwrap();
    let s16 = b.input("s16", &desc(Float16, &[3])).unwrap();
    let si = b.input("si", &desc(Int64, &[3])).unwrap();
    let o = LayerNormalizationOptions::default;
    assert_type_error(
        b.layer_normalization(&x, &LayerNormalizationOptions { bias: Some(si), ..o() }),
        "bias data type int64 is not supported",
    );
    let mut other = builder();
    let os = other.input("s", &desc(Float32, &[3])).unwrap();
    assert_scale_bias_errors(
        |scale, bias| b.layer_normalization(&x, &LayerNormalizationOptions { scale, bias, ..o() }),
        &s16,
        Float32,
        &os,
    );
    assert_type_error(
        b.layer_normalization(&x, &LayerNormalizationOptions { label: "ln".into(), axes: Some(vec![2]), ..o() }),
        "[ln] layerNormalization: axis 2",
    );
    assert_eq!(b.operation_count(), 0);
    let (mut built, x0) = built_builder();
    assert_kind(built.layer_normalization(&x0, &o()), ErrorKind::InvalidState);
    let s = b.input("s", &desc(Float32, &[3])).unwrap();
    let out = b.layer_normalization(&x, &LayerNormalizationOptions { bias: Some(s), epsilon: 0.5, ..o() }).unwrap();
    let g = graph_of(&mut b, &out);
    assert_eq!(g.operations[0].attrs, Attrs::LayerNormalization { axes: vec![1], epsilon: 0.5 });
    assert_eq!(g.operations[0].inputs.len(), 3);
    assert!(g.operations[0].inputs[1].is_none() && g.operations[0].inputs[2].is_some());
}
