//! Table tests of conv2d and convTranspose2d, and the helpers shared with `conv_pool_tests.rs`
//! (pooling, resample2d) and `conv_gemm_tests.rs` (gemm, matmul), the other tests of `conv.rs`.
//!
//! Shapes in the conv / pool tables are written in nchw (input, output) and oihw / iohw
//! (filter); every row runs under every input layout and filter layout with the shapes
//! permuted accordingly.

use crate::graph::Attrs;
use crate::testing::*;
use crate::types::{
    Conv2dFilterOperandLayout as FL, ConvTranspose2dFilterOperandLayout as TL, InputOperandLayout as IL,
};
use crate::validate::test_support::{assert_types_follow_limits, built_builder, graph_of, run_checked, setters};
use crate::{DataType::*, ErrorKind};

pub(super) type Expect = std::result::Result<[u32; 4], &'static str>;

pub(super) fn in_shape(layout: IL, [n, c, h, w]: [u32; 4]) -> Vec<u32> {
    match layout {
        IL::Nchw => vec![n, c, h, w],
        IL::Nhwc => vec![n, h, w, c],
    }
}

pub(super) fn conv_filter_shape(layout: FL, [o, i, h, w]: [u32; 4]) -> Vec<u32> {
    match layout {
        FL::Oihw => vec![o, i, h, w],
        FL::Hwio => vec![h, w, i, o],
        FL::Ohwi => vec![o, h, w, i],
        FL::Ihwo => vec![i, h, w, o],
    }
}

pub(super) fn tconv_filter_shape(layout: TL, [i, o, h, w]: [u32; 4]) -> Vec<u32> {
    match layout {
        TL::Iohw => vec![i, o, h, w],
        TL::Hwoi => vec![h, w, o, i],
        TL::Ohwi => vec![o, h, w, i],
    }
}

// ---------------------------------------------------------------------------------------------
// conv2d
// ---------------------------------------------------------------------------------------------

/// An optional list option.
type List = Option<Vec<u32>>;

#[derive(Clone)]
struct Conv {
    input: [u32; 4],
    filter: [u32; 4],
    padding: Option<Vec<u32>>,
    strides: Option<Vec<u32>>,
    dilations: Option<Vec<u32>>,
    output_padding: Option<Vec<u32>>,
    output_sizes: Option<Vec<u32>>,
    groups: u32,
    bias: Option<u32>,
    expect: Expect,
}

fn c(input: [u32; 4], filter: [u32; 4]) -> Conv {
    Conv {
        input,
        filter,
        padding: None,
        strides: None,
        dilations: None,
        output_padding: None,
        output_sizes: None,
        groups: 1,
        bias: None,
        expect: Err("unset"),
    }
}

impl Conv {
    setters!(vec u32; pad => padding, strides => strides, dil => dilations, opad => output_padding, osizes => output_sizes);
    setters!(expect [u32; 4]);
    setters!(set u32; groups => groups);
    /// The row's (padding, strides, dilations, groups) options.
    fn window(&self) -> (List, List, List, u32) {
        (self.padding.clone(), self.strides.clone(), self.dilations.clone(), self.groups)
    }
    setters!(some u32; bias => bias);
}

/// Runs every row (at least `min_rows`) under both input layouts and every filter layout of
/// `filter_layouts` (`filter_shape` permutes the row's filter shape into one), calling the op
/// through `call`; `op` is its name in the TypeErrors.
fn run_conv_table<L: Copy + std::fmt::Display>(
    rows: &[Conv],
    min_rows: usize,
    filter_layouts: &[L],
    filter_shape: fn(L, [u32; 4]) -> Vec<u32>,
    op: &str,
    call: impl Fn(&mut GraphBuilder, &Operand, &Operand, &Conv, IL, L, Option<Operand>) -> Result<Operand>,
) {
    assert!(rows.len() >= min_rows, "{} rows", rows.len());
    for (i, row) in rows.iter().enumerate() {
        for il in [IL::Nchw, IL::Nhwc] {
            for &fl in filter_layouts {
                let want = row.expect.map(|out| desc(Float32, &in_shape(il, out)));
                run_checked(op, want, &format!("row {i} {il} {fl}"), |b| {
                    let x = b.input("x", &desc(Float32, &in_shape(il, row.input))).unwrap();
                    let f = b.input("f", &desc(Float32, &filter_shape(fl, row.filter))).unwrap();
                    let bias = row.bias.map(|n| b.input("bias", &desc(Float32, &[n])).unwrap());
                    call(b, &x, &f, row, il, fl, bias)
                });
            }
        }
    }
}

fn conv2d_rows() -> Vec<Conv> {
    vec![
        // ---- valid ----
        c([1, 1, 5, 5], [1, 1, 3, 3]).ok([1, 1, 3, 3]),
        c([1, 1, 5, 5], [1, 1, 3, 3]).pad(&[1, 1, 1, 1]).ok([1, 1, 5, 5]),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[2, 2]).ok([1, 1, 2, 2]),
        c([1, 1, 5, 5], [1, 1, 3, 3]).pad(&[1, 1, 1, 1]).strides(&[2, 2]).ok([1, 1, 3, 3]),
        c([1, 1, 7, 5], [1, 1, 3, 3]).strides(&[2, 2]).pad(&[1, 1, 0, 1]).ok([1, 1, 4, 2]),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[2, 2]).ok([1, 1, 1, 1]),
        c([1, 1, 7, 5], [1, 1, 3, 3]).dil(&[2, 1]).ok([1, 1, 3, 3]),
        c([1, 4, 5, 5], [6, 2, 3, 3]).groups(2).ok([1, 6, 3, 3]),
        c([1, 4, 5, 5], [4, 1, 3, 3]).groups(4).ok([1, 4, 3, 3]),
        c([1, 4, 5, 5], [8, 1, 3, 3]).groups(4).ok([1, 8, 3, 3]),
        c([1, 4, 5, 5], [6, 2, 3, 3]).groups(2).bias(6).ok([1, 6, 3, 3]),
        c([3, 3, 32, 32], [16, 3, 3, 3]).strides(&[2, 2]).pad(&[1, 1, 1, 1]).ok([3, 16, 16, 16]),
        c([1, 2, 10, 8], [4, 2, 5, 3]).ok([1, 4, 6, 6]),
        c([1, 1, 1, 1], [1, 1, 1, 1]).ok([1, 1, 1, 1]),
        c([1, 1, 2, 2], [1, 1, 1, 1]).pad(&[3, 3, 3, 3]).ok([1, 1, 8, 8]),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[10, 10]).ok([1, 1, 1, 1]),
        c([1, 1, 4, 4], [1, 1, 4, 4]).ok([1, 1, 1, 1]),
        c([1, 1, 3, 3], [1, 1, 4, 4]).pad(&[1, 0, 0, 1]).ok([1, 1, 1, 1]),
        c([2, 3, 224, 224], [64, 3, 7, 7]).strides(&[2, 2]).pad(&[3, 3, 3, 3]).ok([2, 64, 112, 112]),
        c([1, 1, 10, 10], [1, 1, 3, 3]).strides(&[1, 3]).ok([1, 1, 8, 3]),
        c([1, 1, 20, 20], [1, 1, 3, 3]).dil(&[3, 3]).strides(&[2, 2]).ok([1, 1, 7, 7]),
        c([1, 6, 4, 4], [3, 2, 2, 2]).groups(3).ok([1, 3, 3, 3]),
        c([1, 1, 5, 5], [1, 1, 3, 3]).bias(1).ok([1, 1, 3, 3]),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[u32::MAX, u32::MAX]).ok([1, 1, 1, 1]),
        c([1, 3, 5, 5], [2, 3, 3, 3]).pad(&[0, 0, 0, 0]).strides(&[1, 1]).dil(&[1, 1]).groups(1).ok([1, 2, 3, 3]),
        c([1, 1, 6, 6], [1, 1, 2, 2]).strides(&[2, 2]).ok([1, 1, 3, 3]),
        c([1, 1, 6, 6], [1, 1, 3, 3]).strides(&[2, 2]).ok([1, 1, 2, 2]),
        c([1, 1, 5, 4], [1, 1, 2, 3]).pad(&[0, 1, 2, 0]).dil(&[2, 2]).ok([1, 1, 4, 2]),
        c([1, 8, 3, 3], [8, 1, 1, 1]).groups(8).ok([1, 8, 3, 3]),
        c([2, 1, 3, 3], [5, 1, 3, 3]).ok([2, 5, 1, 1]),
        c([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[0, 2147483646, 0, 0]).ok([1, 1, 2147483647, 1]),
        c([1, 2, 9, 9], [2, 2, 3, 3]).strides(&[4, 4]).ok([1, 2, 2, 2]),
        c([1, 2, 9, 9], [2, 2, 3, 3]).strides(&[4, 4]).pad(&[0, 1, 0, 1]).ok([1, 2, 2, 2]),
        c([1, 2, 9, 9], [2, 2, 3, 3]).strides(&[4, 4]).pad(&[1, 2, 1, 2]).ok([1, 2, 3, 3]),
        // ---- option lists ----
        c([1, 1, 5, 5], [1, 1, 3, 3]).pad(&[1, 1, 1]).err("padding must have 4 items"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).pad(&[1, 1, 1, 1, 1]).err("padding must have 4 items"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).pad(&[]).err("padding must have 4 items"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[1]).err("strides must have 2 items"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[1, 1, 1]).err("strides must have 2 items"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[0, 1]).err("every item of strides must be greater than 0"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[1, 0]).err("every item of strides must be greater than 0"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[1]).err("dilations must have 2 items"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[2, 2, 2]).err("dilations must have 2 items"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[0, 1]).err("every item of dilations must be greater than 0"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[1, 0]).err("every item of dilations must be greater than 0"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).groups(0).err("groups must be greater than 0"),
        // ---- channels ----
        c([1, 3, 5, 5], [2, 1, 3, 3]).groups(2).err("input channels (3) must be divisible by groups (2)"),
        c([1, 4, 5, 5], [1, 3, 3, 3]).err("filter input channels (3) times groups (1) must equal input channels (4)"),
        c([1, 4, 5, 5], [2, 4, 3, 3]).groups(2).err("filter input channels (4) times groups (2)"),
        c([1, 4, 5, 5], [4, 4, 3, 3]).groups(4).err("filter input channels (4) times groups (4)"),
        c([1, 4, 5, 5], [3, 2, 3, 3]).groups(2).err("output channels (3) must be divisible by groups (2)"),
        c([1, 4, 5, 5], [6, 1, 3, 3]).groups(4).err("output channels (6) must be divisible by groups (4)"),
        c([1, 4, 5, 5], [1, 1, 3, 3]).groups(4).err("output channels (1) must be divisible by groups (4)"),
        c([1, 2, 5, 5], [2, 2, 3, 3]).groups(u32::MAX).err("input channels (2) must be divisible by groups"),
        // ---- bias ----
        c([1, 1, 5, 5], [1, 1, 3, 3]).bias(2).err("bias shape [2] must be [1]"),
        c([1, 4, 5, 5], [6, 2, 3, 3]).groups(2).bias(3).err("bias shape [3] must be [6]"),
        // ---- output size ----
        c([1, 1, 2, 2], [1, 1, 3, 3]).err("output size 0x0 is not valid"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[3, 3]).err("output size -1x-1 is not valid"),
        c([1, 1, 5, 2], [1, 1, 3, 3]).err("output size 3x0 is not valid"),
        c([1, 1, 2, 5], [1, 1, 3, 3]).err("output size 0x3 is not valid"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[u32::MAX, 1]).err("is not valid"),
        c([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[u32::MAX, u32::MAX, 0, 0]).err("output size 8589934591x1"),
        c([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[0, 2147483646, 0, 1]).err("has 4294967294 elements"),
        c([1, 1, 5, 5], [1, 1, 6, 1]).err("output size 0x5 is not valid"),
        c([1, 1, 5, 5], [1, 1, 7, 1]).strides(&[2, 1]).err("output size 0x5 is not valid"),
        c([1, 1, 1, 1], [1, 1, 2, 1]).pad(&[0, 0, 0, 0]).err("output size 0x1"),
        // ---- step order ----
        c([1, 1, 5, 5], [1, 1, 3, 3]).pad(&[1]).strides(&[0, 0]).err("padding"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).strides(&[0, 0]).dil(&[0]).err("strides"),
        c([1, 1, 5, 5], [1, 1, 3, 3]).dil(&[0, 0]).groups(0).err("dilations"),
        c([1, 3, 5, 5], [1, 1, 3, 3]).groups(0).err("groups"),
        c([1, 4, 5, 5], [1, 3, 3, 3]).bias(5).err("filter input channels"),
        c([1, 1, 2, 2], [1, 1, 3, 3]).bias(3).err("bias shape"),
    ]
}

fn conv2d_options(row: &Conv, input_layout: IL, filter_layout: FL, bias: Option<Operand>) -> Conv2dOptions {
    let (padding, strides, dilations, groups) = row.window();
    Conv2dOptions { label: String::new(), padding, strides, dilations, groups, input_layout, filter_layout, bias }
}

#[test]
fn conv2d_table_every_layout() {
    run_conv_table(&conv2d_rows(), 70, FL::ALL, conv_filter_shape, "conv2d", |b, x, f, row, il, fl, bias| {
        b.conv2d(x, f, &conv2d_options(row, il, fl, bias))
    });
}

#[test]
fn conv2d_data_types() {
    assert_types_follow_limits(OpKind::Conv2d, "input", &[1, 1, 3, 3], |b, t| {
        let x = b.input("x", &desc(t, &[1, 1, 5, 5])).unwrap();
        let f = b.input("f", &desc(t, &[1, 1, 3, 3])).unwrap();
        let bias = b.input("bias", &desc(t, &[1])).unwrap();
        b.conv2d(&x, &f, &Conv2dOptions { bias: Some(bias), ..Conv2dOptions::new() })
    });
    for t in DataType::ALL {
        // A filter of another type than the input.
        for u in DataType::ALL.into_iter().filter(|&u| u != t) {
            let mut b = builder();
            let x = b.input("x", &desc(t, &[1, 1, 5, 5])).unwrap();
            let f = b.input("f", &desc(u, &[1, 1, 3, 3])).unwrap();
            let r = b.conv2d(&x, &f, &Conv2dOptions::new());
            assert_kind(r, ErrorKind::Type);
        }
    }
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 1, 5, 5])).unwrap();
    let f16 = b.input("f16", &desc(Float16, &[1, 1, 3, 3])).unwrap();
    assert_type_error(
        b.conv2d(&x, &f16, &Conv2dOptions::new()),
        "filter data type float16 must equal input data type float32",
    );
    let f = b.input("f", &desc(Float32, &[1, 1, 3, 3])).unwrap();
    let bias16 = b.input("b16", &desc(Float16, &[1])).unwrap();
    assert_type_error(
        b.conv2d(&x, &f, &Conv2dOptions { bias: Some(bias16), ..Conv2dOptions::new() }),
        "bias data type float16 must equal input data type float32",
    );
    let xi = b.input("xi", &desc(Int32, &[1, 1, 5, 5])).unwrap();
    assert_type_error(b.conv2d(&xi, &f, &Conv2dOptions::new()), "input data type int32 is not supported");
}

#[test]
fn conv2d_ranks_builders_label_state() {
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 1, 5, 5])).unwrap();
    let f = b.input("f", &desc(Float32, &[1, 1, 3, 3])).unwrap();
    for shape in [&[1, 5, 5][..], &[1, 1, 1, 5, 5][..], &[5][..], &[][..]] {
        let bad = b.input(&format!("x{}", shape.len()), &desc(Float32, shape)).unwrap();
        assert_type_error(b.conv2d(&bad, &f, &Conv2dOptions::new()), "input rank");
        assert_type_error(b.conv2d(&x, &bad, &Conv2dOptions::new()), "filter rank");
        if shape.len() != 1 {
            let r = b.conv2d(&x, &f, &Conv2dOptions { bias: Some(bad.clone()), ..Conv2dOptions::new() });
            assert_type_error(r, "bias rank");
        }
    }
    // Operands of another builder, positional or in options.
    let mut other = builder();
    let ox = other.input("x", &desc(Float32, &[1, 1, 5, 5])).unwrap();
    let of = other.input("f", &desc(Float32, &[1, 1, 3, 3])).unwrap();
    let ob = other.input("b", &desc(Float32, &[1])).unwrap();
    assert_type_error(b.conv2d(&ox, &f, &Conv2dOptions::new()), "input was created by another MLGraphBuilder");
    assert_type_error(b.conv2d(&x, &of, &Conv2dOptions::new()), "filter was created by another MLGraphBuilder");
    assert_type_error(
        b.conv2d(&x, &f, &Conv2dOptions { bias: Some(ob), ..Conv2dOptions::new() }),
        "bias was created by another MLGraphBuilder",
    );
    // Label prefix.
    let r = b.conv2d(&x, &f, &Conv2dOptions { label: "conv1".into(), groups: 0, ..Conv2dOptions::new() });
    assert_type_error(r, "[conv1] conv2d: groups");
    let r = b.conv2d(&x, &f, &Conv2dOptions { label: "conv1".into(), bias: Some(x.clone()), ..Conv2dOptions::new() });
    assert_type_error(r, "[conv1] conv2d: bias rank 4");
    assert_eq!(b.operation_count(), 0);
    // Can-build comes first.
    let (mut built, x) = built_builder();
    let f = built.input("f2", &desc(Float32, &[1, 1, 3, 3]));
    assert_kind(f.clone(), ErrorKind::InvalidState);
    assert_kind(built.conv2d(&x, &x, &Conv2dOptions { groups: 0, ..Conv2dOptions::new() }), ErrorKind::InvalidState);
}

#[test]
fn conv2d_attributes_and_slots() {
    let mut b = builder();
    let x = b.input("x", &desc(Float16, &[1, 5, 5, 4])).unwrap();
    let f = b.input("f", &desc(Float16, &[3, 3, 2, 6])).unwrap();
    let bias = b.input("bias", &desc(Float16, &[6])).unwrap();
    let options = Conv2dOptions {
        label: "c".into(),
        padding: Some(vec![1, 0, 0, 1]),
        strides: Some(vec![2, 1]),
        dilations: Some(vec![1, 2]),
        groups: 2,
        input_layout: IL::Nhwc,
        filter_layout: FL::Hwio,
        bias: Some(bias.clone()),
    };
    let out = b.conv2d(&x, &f, &options).unwrap();
    // H: (5 - 3 + 1) / 2 + 1 = 2 (floor of 2.5); W: (5 - 5 + 1) / 1 + 1 = 2.
    assert_eq!(out.descriptor(), &desc(Float16, &[1, 2, 2, 6]));
    let g = graph_of(&mut b, &out);
    let op = &g.operations[0];
    assert_eq!(op.kind, OpKind::Conv2d);
    assert_eq!(op.label, "c");
    assert_eq!(op.inputs.len(), 3);
    assert!(op.inputs.iter().all(|i| i.is_some()));
    assert_eq!(
        op.attrs,
        Attrs::Conv2d {
            padding: [1, 0, 0, 1],
            strides: [2, 1],
            dilations: [1, 2],
            groups: 2,
            input_layout: IL::Nhwc,
            filter_layout: FL::Hwio
        }
    );
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 1, 5, 5])).unwrap();
    let f = b.input("f", &desc(Float32, &[1, 1, 3, 3])).unwrap();
    let out = b.conv2d(&x, &f, &Conv2dOptions::new()).unwrap();
    let g = graph_of(&mut b, &out);
    assert_eq!(g.operations[0].inputs.len(), 3);
    assert_eq!(g.operations[0].inputs[2], None);
    assert_eq!(
        g.operations[0].attrs,
        Attrs::Conv2d {
            padding: [0; 4],
            strides: [1, 1],
            dilations: [1, 1],
            groups: 1,
            input_layout: IL::Nchw,
            filter_layout: FL::Oihw
        }
    );
}

// ---------------------------------------------------------------------------------------------
// convTranspose2d
// ---------------------------------------------------------------------------------------------

fn conv_transpose2d_rows() -> Vec<Conv> {
    let t = c;
    vec![
        // ---- valid ----
        t([1, 1, 3, 3], [1, 1, 3, 3]).ok([1, 1, 5, 5]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).ok([1, 1, 7, 7]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).opad(&[1, 1]).ok([1, 1, 8, 8]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[3, 2]).opad(&[2, 1]).ok([1, 1, 11, 8]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).pad(&[1, 1, 1, 1]).ok([1, 1, 3, 3]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).dil(&[2, 2]).ok([1, 1, 7, 7]),
        t([1, 4, 3, 3], [4, 3, 3, 3]).groups(2).ok([1, 6, 5, 5]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).osizes(&[8, 8]).ok([1, 1, 8, 8]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).osizes(&[7, 7]).ok([1, 1, 7, 7]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).opad(&[5, 5]).osizes(&[7, 8]).ok([1, 1, 7, 8]),
        t([1, 3, 4, 5], [3, 2, 2, 3]).strides(&[2, 3]).pad(&[0, 1, 1, 0]).ok([1, 2, 7, 14]),
        t([1, 4, 3, 3], [4, 3, 3, 3]).groups(2).bias(6).ok([1, 6, 5, 5]),
        t([2, 8, 1, 1], [8, 16, 4, 4]).ok([2, 16, 4, 4]),
        t([1, 1, 2, 2], [1, 1, 2, 2]).strides(&[2, 2]).ok([1, 1, 4, 4]),
        t([1, 1, 1, 1], [1, 1, 3, 3]).pad(&[1, 1, 1, 1]).ok([1, 1, 1, 1]),
        // The wpt vectors' outputPadding / outputSizes cases.
        t([1, 1, 3, 3], [1, 2, 3, 3]).strides(&[3, 2]).opad(&[1, 1]).ok([1, 2, 10, 8]),
        t([1, 1, 3, 3], [1, 2, 3, 3]).strides(&[3, 2]).osizes(&[10, 8]).ok([1, 2, 10, 8]),
        t([1, 1, 3, 3], [1, 2, 3, 3]).strides(&[2, 2]).pad(&[0, 1, 0, 1]).osizes(&[6, 6]).ok([1, 2, 6, 6]),
        t([1, 1, 2, 2], [1, 1, 2, 2]).strides(&[3, 3]).osizes(&[7, 5]).ok([1, 1, 7, 5]),
        // A calculated size below 1 is fine when outputSizes lies in [calculated, calculated + stride).
        t([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[1, 1, 0, 0]).strides(&[4, 1]).osizes(&[2, 1]).ok([1, 1, 2, 1]),
        t([1, 3, 2, 2], [3, 1, 3, 3]).groups(3).ok([1, 3, 4, 4]),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[1, 2]).opad(&[0, 1]).ok([1, 1, 5, 8]),
        t([1, 1, 3, 3], [1, 1, 3, 3])
            .pad(&[0; 4])
            .strides(&[1, 1])
            .dil(&[1, 1])
            .opad(&[0, 0])
            .groups(1)
            .ok([1, 1, 5, 5]),
        t([1, 1, 2, 2], [1, 1, 2, 2]).dil(&[2, 3]).ok([1, 1, 4, 5]),
        // Input channels not divisible by groups: our decision (ARCHITECTURE.md), a TypeError.
        t([1, 2, 2, 2], [2, 1, 1, 1]).groups(3).err("input channels (2) must be divisible by groups (3)"),
        t([1, 1, 1, 1], [1, 1, 1, 1]).strides(&[5, 5]).opad(&[4, 4]).ok([1, 1, 5, 5]),
        // ---- option lists ----
        t([1, 1, 3, 3], [1, 1, 3, 3]).pad(&[1, 1, 1]).err("padding must have 4 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).pad(&[1, 1, 1, 1, 1]).err("padding must have 4 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[1]).err("strides must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[1, 1, 1]).err("strides must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[0, 1]).err("every item of strides"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[1, 0]).err("every item of strides"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).dil(&[1]).err("dilations must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).dil(&[0, 2]).err("every item of dilations"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).dil(&[2, 0]).err("every item of dilations"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).opad(&[1]).err("outputPadding must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).opad(&[1, 1, 1]).err("outputPadding must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).osizes(&[5]).err("outputSizes must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).osizes(&[5, 5, 5]).err("outputSizes must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).opad(&[1, 0]).err("outputPadding [1, 0] must be smaller than strides [1, 1]"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).opad(&[0, 2]).err("must be smaller than strides"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[3, 3]).opad(&[3, 0]).err("must be smaller than strides"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).groups(0).err("groups must be greater than 0"),
        // ---- channels ----
        t([1, 2, 3, 3], [1, 1, 3, 3]).err("filter input channels (1) must equal input channels (2)"),
        t([1, 4, 3, 3], [2, 3, 3, 3]).groups(2).err("filter input channels (2) must equal input channels (4)"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).groups(u32::MAX).err("= 4294967295 is not a valid dimension"),
        t([1, 1, 3, 3], [1, 2, 3, 3]).groups(1 << 30).err("= 2147483648 is not a valid dimension"),
        // ---- bias ----
        t([1, 1, 3, 3], [1, 2, 3, 3]).bias(1).err("bias shape [1] must be [2]"),
        t([1, 4, 3, 3], [4, 3, 3, 3]).groups(2).bias(3).err("bias shape [3] must be [6]"),
        // ---- outputSizes range ----
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).osizes(&[6, 7]).err("outputSizes height 6 must be in [7, 9)"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).osizes(&[9, 7]).err("outputSizes height 9 must be in [7, 9)"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).osizes(&[7, 6]).err("outputSizes width 6 must be in [7, 9)"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).strides(&[2, 2]).osizes(&[7, 9]).err("outputSizes width 9 must be in [7, 9)"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).osizes(&[6, 5]).err("outputSizes height 6 must be in [5, 6)"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).osizes(&[4, 5]).err("outputSizes height 4"),
        t([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[1, 1, 0, 0]).strides(&[4, 1]).osizes(&[0, 1]).err("output size 0x1"),
        // ---- output size ----
        t([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[1, 0, 0, 0]).err("output size 0x1 is not valid"),
        t([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[2, 2, 0, 0]).err("output size -3x1 is not valid"),
        t([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[0, 0, 1, 1]).err("output size 1x-1 is not valid"),
        t([1, 1, 2, 1], [1, 1, 1, 1]).strides(&[u32::MAX, 1]).err("output size 4294967296x1"),
        t([1, 1, 1, 1], [1, 1, 3, 3]).dil(&[u32::MAX, 1]).err("output size 8589934591x3"),
        t([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[u32::MAX, u32::MAX, 0, 0]).err("is not valid"),
        t([1, 1, 1, 1], [1, 1, 1, 1]).strides(&[1, 2]).osizes(&[1, 65536]).err("outputSizes width"),
        // ---- step order ----
        t([1, 1, 3, 3], [1, 1, 3, 3]).opad(&[1, 1]).groups(0).err("outputPadding"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).opad(&[3, 3]).osizes(&[1]).err("outputSizes must have 2 items"),
        t([1, 1, 3, 3], [1, 1, 3, 3]).dil(&[0, 0]).opad(&[1]).err("dilations"),
        t([1, 2, 3, 3], [1, 1, 3, 3]).groups(0).err("groups"),
        t([1, 2, 3, 3], [1, 1, 3, 3]).bias(7).err("filter input channels"),
        t([1, 1, 1, 1], [1, 1, 1, 1]).pad(&[1, 0, 0, 0]).bias(2).err("bias shape"),
    ]
}

fn conv_transpose2d_options(
    row: &Conv,
    input_layout: IL,
    filter_layout: TL,
    bias: Option<Operand>,
) -> ConvTranspose2dOptions {
    let (padding, strides, dilations, groups) = row.window();
    let (output_padding, output_sizes) = (row.output_padding.clone(), row.output_sizes.clone());
    let label = String::new();
    ConvTranspose2dOptions {
        label,
        padding,
        strides,
        dilations,
        output_padding,
        output_sizes,
        groups,
        input_layout,
        filter_layout,
        bias,
    }
}

#[test]
fn conv_transpose2d_table_every_layout() {
    run_conv_table(
        &conv_transpose2d_rows(),
        65,
        TL::ALL,
        tconv_filter_shape,
        "convTranspose2d",
        |b, x, f, row, il, fl, bias| b.conv_transpose2d(x, f, &conv_transpose2d_options(row, il, fl, bias)),
    );
}

#[test]
fn conv_transpose2d_types_ranks_builders_attrs() {
    assert_types_follow_limits(OpKind::ConvTranspose2d, "input", &[1, 1, 5, 5], |b, t| {
        let x = b.input("x", &desc(t, &[1, 1, 3, 3])).unwrap();
        let f = b.input("f", &desc(t, &[1, 1, 3, 3])).unwrap();
        b.conv_transpose2d(&x, &f, &ConvTranspose2dOptions::new())
    });
    let mut b = builder();
    let x = b.input("x", &desc(Float32, &[1, 1, 3, 3])).unwrap();
    let f = b.input("f", &desc(Float32, &[1, 1, 3, 3])).unwrap();
    let f16 = b.input("f16", &desc(Float16, &[1, 1, 3, 3])).unwrap();
    let b16 = b.input("b16", &desc(Float16, &[1])).unwrap();
    let r3 = b.input("r3", &desc(Float32, &[1, 3, 3])).unwrap();
    assert_type_error(b.conv_transpose2d(&x, &f16, &ConvTranspose2dOptions::new()), "filter data type float16");
    assert_type_error(
        b.conv_transpose2d(&x, &f, &ConvTranspose2dOptions { bias: Some(b16), ..ConvTranspose2dOptions::new() }),
        "bias data type float16",
    );
    assert_type_error(b.conv_transpose2d(&r3, &f, &ConvTranspose2dOptions::new()), "input rank 3");
    assert_type_error(b.conv_transpose2d(&x, &r3, &ConvTranspose2dOptions::new()), "filter rank 3");
    assert_type_error(
        b.conv_transpose2d(&x, &f, &ConvTranspose2dOptions { bias: Some(r3.clone()), ..ConvTranspose2dOptions::new() }),
        "bias rank 3",
    );
    let mut other = builder();
    let ob = other.input("b", &desc(Float32, &[1])).unwrap();
    assert_type_error(
        b.conv_transpose2d(&x, &f, &ConvTranspose2dOptions { bias: Some(ob), ..ConvTranspose2dOptions::new() }),
        "bias was created by another MLGraphBuilder",
    );
    assert_type_error(
        b.conv_transpose2d(
            &x,
            &f,
            &ConvTranspose2dOptions { label: "up".into(), groups: 0, ..ConvTranspose2dOptions::new() },
        ),
        "[up] convTranspose2d: groups",
    );
    // Input channels not divisible by groups: a TypeError in the builder (our decision, as in
    // Chromium), not a build() failure.
    let x3 = b.input("x3", &desc(Float32, &[1, 3, 4, 4])).unwrap();
    let f3 = b.input("f3", &desc(Float32, &[3, 1, 3, 3])).unwrap();
    assert_type_error(
        b.conv_transpose2d(
            &x3,
            &f3,
            &ConvTranspose2dOptions { label: "up".into(), groups: 2, ..ConvTranspose2dOptions::new() },
        ),
        "[up] convTranspose2d: input channels (3) must be divisible by groups (2)",
    );
    assert_eq!(b.operation_count(), 0);
    let grouped = b.conv_transpose2d(&x3, &f3, &ConvTranspose2dOptions { groups: 3, ..ConvTranspose2dOptions::new() });
    assert_eq!(grouped.unwrap().descriptor(), &desc(Float32, &[1, 3, 6, 6]));
    let (mut built, x) = built_builder();
    assert_kind(built.conv_transpose2d(&x, &x, &ConvTranspose2dOptions::new()), ErrorKind::InvalidState);

    let options = ConvTranspose2dOptions {
        padding: Some(vec![0, 1, 1, 0]),
        strides: Some(vec![2, 3]),
        output_sizes: Some(vec![8, 15]),
        output_padding: Some(vec![9, 9]),
        filter_layout: TL::Ohwi,
        input_layout: IL::Nhwc,
        ..ConvTranspose2dOptions::new()
    };
    let x = b.input("x4", &desc(Float32, &[1, 4, 5, 3])).unwrap();
    let f = b.input("f4", &desc(Float32, &[2, 2, 3, 3])).unwrap();
    let out = b.conv_transpose2d(&x, &f, &options).unwrap();
    assert_eq!(out.descriptor(), &desc(Float32, &[1, 8, 15, 2]));
    let g = graph_of(&mut b, &out);
    assert_eq!(
        g.operations[0].attrs,
        Attrs::ConvTranspose2d {
            padding: [0, 1, 1, 0],
            strides: [2, 3],
            dilations: [1, 1],
            groups: 1,
            input_layout: IL::Nhwc,
            filter_layout: TL::Ohwi
        }
    );
    assert_eq!(g.operations[0].inputs.len(), 3);
}
