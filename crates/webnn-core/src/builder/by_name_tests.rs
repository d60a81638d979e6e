//! `GraphBuilder::call`: params from JSON, IDL defaults, missing arguments, MLNumber strings.

use crate::builder::params::{NumberParam, OpParams};
use crate::testing::*;
use crate::types::{
    Conv2dFilterOperandLayout, ConvTranspose2dFilterOperandLayout, GruWeightLayout, InputOperandLayout,
    InterpolationMode, LstmWeightLayout, PaddingMode, RecurrentNetworkDirection, RoundingType,
};

fn params(json: &str) -> OpParams {
    serde_json::from_str(json).unwrap()
}

/// Each options struct's `Default` is the IDL default of webnn-2026.webidl (the values below are
/// read off the IDL text, not off our structs).
#[test]
fn options_defaults_are_the_idl_defaults() {
    let d = ArgMinMaxOptions::default();
    assert_eq!((d.keep_dimensions, d.output_data_type), (false, DataType::Int32));
    let d = BatchNormalizationOptions::default();
    assert_eq!((d.axis, d.epsilon), (1, 1e-5));
    let d = Conv2dOptions::default();
    assert_eq!(
        (d.groups, d.input_layout, d.filter_layout),
        (1, InputOperandLayout::Nchw, Conv2dFilterOperandLayout::Oihw)
    );
    let d = ConvTranspose2dOptions::default();
    assert_eq!(
        (d.groups, d.input_layout, d.filter_layout),
        (1, InputOperandLayout::Nchw, ConvTranspose2dFilterOperandLayout::Iohw)
    );
    let d = CumulativeSumOptions::default();
    assert_eq!((d.exclusive, d.reversed), (false, false));
    assert_eq!(EluOptions::default().alpha, 1.0);
    assert_eq!(GatherOptions::default().axis, 0);
    let d = GemmOptions::default();
    assert_eq!((d.alpha, d.beta, d.a_transpose, d.b_transpose), (1.0, 1.0, false, false));
    let d = GruOptions::default();
    assert_eq!(
        (d.reset_after, d.return_sequence, d.direction, d.layout),
        (true, false, RecurrentNetworkDirection::Forward, GruWeightLayout::Zrn)
    );
    let d = GruCellOptions::default();
    assert_eq!((d.reset_after, d.layout), (true, GruWeightLayout::Zrn));
    let d = HardSigmoidOptions::default();
    assert_eq!((d.alpha, d.beta), (0.2, 0.5));
    let d = InstanceNormalizationOptions::default();
    assert_eq!((d.epsilon, d.layout), (1e-5, InputOperandLayout::Nchw));
    assert_eq!(LayerNormalizationOptions::default().epsilon, 1e-5);
    assert_eq!(LeakyReluOptions::default().alpha, 0.01);
    let d = LinearOptions::default();
    assert_eq!((d.alpha, d.beta), (1.0, 0.0));
    let d = LstmOptions::default();
    assert_eq!(
        (d.return_sequence, d.direction, d.layout),
        (false, RecurrentNetworkDirection::Forward, LstmWeightLayout::Iofg)
    );
    assert_eq!(LstmCellOptions::default().layout, LstmWeightLayout::Iofg);
    let d = PadOptions::default();
    assert_eq!(d.mode, PaddingMode::Constant);
    assert!(matches!(d.value, MLNumber::Double(v) if v == 0.0));
    let d = Pool2dOptions::default();
    assert_eq!((d.layout, d.output_shape_rounding), (InputOperandLayout::Nchw, RoundingType::Floor));
    assert!(!ReduceOptions::default().keep_dimensions);
    assert_eq!(Resample2dOptions::default().mode, InterpolationMode::NearestNeighbor);
    assert_eq!(ScatterOptions::default().axis, 0);
    assert_eq!(SplitOptions::default().axis, 0);
    let d = TriangularOptions::default();
    assert_eq!((d.upper, d.diagonal), (true, 0));
}

#[test]
fn absent_options_take_the_idl_defaults() {
    let mut b = builder();
    let x = b.input("x", &desc(DataType::Float32, &[1, 2, 5, 5])).unwrap();
    let w = b.constant(&desc(DataType::Float32, &[3, 2, 3, 3]), &[0; 3 * 2 * 9 * 4]).unwrap();
    // groups 1, nchw / oihw, no padding, strides 1: [1, 3, 3, 3].
    let out = b.call(OpKind::Conv2d, &[Some(&x), Some(&w), None], &params("{}")).unwrap();
    assert_eq!(out[0].shape(), &[1, 3, 3, 3]);
    // An option given by its IDL name is used.
    let out = b.call(OpKind::Conv2d, &[Some(&x), Some(&w), None], &params(r#"{"padding": [1, 1, 1, 1]}"#)).unwrap();
    assert_eq!(out[0].shape(), &[1, 3, 5, 5]);
    let out = b.call(OpKind::ReduceSum, &[Some(&x)], &params(r#"{"axes": [1], "keepDimensions": true}"#)).unwrap();
    assert_eq!(out[0].shape(), &[1, 1, 5, 5]);
    let out = b.call(OpKind::ArgMax, &[Some(&x)], &params(r#"{"axis": 3}"#)).unwrap();
    assert_eq!(out[0].descriptor.data_type, DataType::Int32);
}

#[test]
fn labels_reach_the_error_message() {
    let mut b = builder();
    let x = b.input("x", &desc(DataType::Float32, &[2, 3])).unwrap();
    let r = b.call(OpKind::Softmax, &[Some(&x)], &params(r#"{"axis": 5, "label": "mine"}"#));
    assert_type_error(r, "[mine] softmax");
}

#[test]
fn missing_required_arguments_are_type_errors() {
    let mut b = builder();
    let x = b.input("x", &desc(DataType::Float32, &[2, 3])).unwrap();
    assert_type_error(b.call(OpKind::Softmax, &[Some(&x)], &params("{}")), "'axis' is missing");
    assert_type_error(b.call(OpKind::Reshape, &[Some(&x)], &params("{}")), "'newShape' is missing");
    assert_type_error(b.call(OpKind::Add, &[Some(&x), None], &params("{}")), "'b' is missing");
    assert_type_error(b.call(OpKind::Cast, &[Some(&x)], &params("{}")), "'dataType' is missing");
    assert_type_error(b.call(OpKind::Split, &[Some(&x)], &params("{}")), "split");
    let neither = params(r#"{"splits": "two"}"#);
    assert_type_error(b.call(OpKind::Split, &[Some(&x)], &neither), "a count or a list of sizes");
    assert_type_error(b.call(OpKind::Cast, &[Some(&x)], &params(r#"{"dataType": "float64"}"#)), "float64");
    assert_eq!(b.operation_count(), 0);
}

#[test]
fn split_takes_a_count_or_sizes() {
    let mut b = builder();
    let x = b.input("x", &desc(DataType::Float32, &[4, 3])).unwrap();
    assert_eq!(b.call(OpKind::Split, &[Some(&x)], &params(r#"{"splits": 2}"#)).unwrap().len(), 2);
    let out = b.call(OpKind::Split, &[Some(&x)], &params(r#"{"splits": [1, 2], "axis": 1}"#)).unwrap();
    assert_eq!(out[1].shape(), &[4, 2]);
}

#[test]
fn number_params_read_doubles_bigints_and_special_names() {
    let n = |json: &str| serde_json::from_str::<NumberParam>(json).unwrap().to_ml();
    assert!(matches!(n("2.5"), Ok(MLNumber::Double(v)) if v == 2.5));
    assert!(matches!(n("3"), Ok(MLNumber::Double(v)) if v == 3.0));
    assert!(matches!(n(r#""-170141183460469231731687303715884105728""#), Ok(MLNumber::BigInt(i128::MIN))));
    assert!(matches!(n(r#""NaN""#), Ok(MLNumber::Double(v)) if v.is_nan()));
    assert!(matches!(n(r#""-Infinity""#), Ok(MLNumber::Double(v)) if v == f64::NEG_INFINITY));
    assert!(matches!(n(r#""-0""#), Ok(MLNumber::Double(v)) if v == 0.0 && v.is_sign_negative()));
    let bad = n(r#""1.5e""#);
    assert_type_error(bad, "is not an MLNumber");
    let mut b = builder();
    let x = b.input("x", &desc(DataType::Float32, &[2])).unwrap();
    let clamp = params(r#"{"minValue": "-Infinity", "maxValue": 6}"#);
    assert!(b.call(OpKind::Clamp, &[Some(&x)], &clamp).is_ok());
}
