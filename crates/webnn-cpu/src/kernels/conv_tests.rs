//! conv2d against naive nchw references, every layout, f32 and f16,
//! constant and non-constant filters.

use super::*;
use crate::testing::constant_operands::{assert_close, pseudo, run_float, via_f16};
use webnn_core::OpKind;

/// Permutes a 4-D tensor: `out.shape[i] = shape[perm[i]]`.
pub(crate) fn permute(data: &[f32], shape: [usize; 4], perm: [usize; 4]) -> (Vec<f32>, [usize; 4]) {
    let ns: [usize; 4] = std::array::from_fn(|i| shape[perm[i]]);
    let st = [shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1];
    let mut out = Vec::with_capacity(data.len());
    for a in 0..ns[0] {
        for b in 0..ns[1] {
            for c in 0..ns[2] {
                for d in 0..ns[3] {
                    let idx = [a, b, c, d];
                    let mut off = 0;
                    for i in 0..4 {
                        off += idx[i] * st[perm[i]];
                    }
                    out.push(data[off]);
                }
            }
        }
    }
    (out, ns)
}

pub(crate) fn u32s(s: [usize; 4]) -> [u32; 4] {
    s.map(|d| d as u32)
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Case {
    pub(crate) n: usize,
    pub(crate) cin: usize,
    pub(crate) h: usize,
    pub(crate) w: usize,
    pub(crate) cout: usize,
    pub(crate) kh: usize,
    pub(crate) kw: usize,
    pub(crate) strides: [usize; 2],
    pub(crate) dilations: [usize; 2],
    pub(crate) padding: [usize; 4],
    pub(crate) groups: usize,
}

/// Two values, along the height and the width.
type Hw = [usize; 2];

impl Case {
    /// A case from the input shape `x` = `[n, cin, h, w]`, the filter's `f` = `[cout, kh, kw]`,
    /// the strides `s`, dilations `d`, padding `p` = `[beginH, endH, beginW, endW]` and groups.
    pub(crate) const fn new(x: [usize; 4], f: [usize; 3], s: Hw, d: Hw, p: [usize; 4], groups: usize) -> Case {
        let ([n, cin, h, w], [cout, kh, kw]) = (x, f);
        Case { n, cin, h, w, cout, kh, kw, strides: s, dilations: d, padding: p, groups }
    }

    /// The padding, strides, dilations and groups as attribute values.
    pub(crate) fn attr_values(&self) -> ([u32; 4], [u32; 2], [u32; 2], u32) {
        let u = |v: usize| v as u32;
        (self.padding.map(u), self.strides.map(u), self.dilations.map(u), u(self.groups))
    }
}

/// The operands and the nchw reference output of one conv2d or convTranspose2d case, checked
/// by [`ConvRun::check`] in both input layouts and every filter layout.
pub(crate) struct ConvRun {
    pub(crate) dt: DataType,
    pub(crate) x: Vec<f32>,
    pub(crate) xs: [usize; 4],
    /// The filter in the layout of the identity permutation (oihw, or iohw for convTranspose2d).
    pub(crate) f: Vec<f32>,
    pub(crate) fs: [usize; 4],
    pub(crate) bias: Option<Vec<f32>>,
    pub(crate) want: Vec<f32>,
    pub(crate) os: [usize; 4],
    pub(crate) tol: f32,
}

impl ConvRun {
    /// Pseudo-random input (seed), filter (seed + 1) and bias (seed + 2, if `with_bias`) of
    /// shapes `xs`, `fs` and `[bias_len]`, rounded to f16 for float16; `reference(x, f, bias)`
    /// gives the nchw output and its shape.
    pub(crate) fn new<R>(
        dt: DataType,
        [xs, fs]: [[usize; 4]; 2],
        (bias_len, with_bias): (usize, bool),
        seed: u32,
        reference: R,
    ) -> ConvRun
    where
        R: FnOnce(&[f32], &[f32], Option<&[f32]>) -> (Vec<f32>, [usize; 4]),
    {
        let round = |v: Vec<f32>| if dt == DataType::Float16 { via_f16(&v) } else { v };
        let x = round(pseudo(xs.iter().product(), seed));
        let f = round(pseudo(fs.iter().product(), seed + 1));
        let b = round(pseudo(bias_len, seed + 2));
        let bias = with_bias.then_some(b);
        let (want, os) = reference(&x, &f, bias.as_deref());
        let tol = if dt == DataType::Float16 { 4e-3 } else { 1e-5 };
        ConvRun { dt, x, xs, f, fs, bias, want, os, tol }
    }

    /// Runs `kind` on nchw and nhwc inputs with the filter in each of `filter_layouts` (its
    /// layout and the permutation of the identity layout that gives it), filter and bias graph
    /// constants if `constant`; asserts the output is the reference's within the tolerance.
    pub(crate) fn check<L: Copy + std::fmt::Debug>(
        &self,
        kind: OpKind,
        constant: bool,
        filter_layouts: &[(L, [usize; 4])],
        attrs: impl Fn(InputOperandLayout, L) -> Attrs,
        what: &str,
    ) {
        let dt = self.dt;
        for nhwc in [false, true] {
            let nhwc_of = |v: &[f32], s| if nhwc { permute(v, s, [0, 2, 3, 1]) } else { (v.to_vec(), s) };
            let (xd, xsh) = nhwc_of(&self.x, self.xs);
            let (wd, osh) = nhwc_of(&self.want, self.os);
            let layout = if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw };
            for &(fl, perm) in filter_layouts {
                let (fd, fsh) = permute(&self.f, self.fs, perm);
                let bsh = [self.os[1] as u32];
                let got = run_float(
                    kind,
                    dt,
                    &[
                        Some((&u32s(xsh), &xd, false)),
                        Some((&u32s(fsh), &fd, constant)),
                        self.bias.as_ref().map(|b| (&bsh[..], &b[..], constant)),
                    ],
                    attrs(layout, fl),
                    &u32s(osh),
                );
                assert_close(&got, &wd, self.tol, &format!("{what} {dt:?} nhwc={nhwc} {fl:?} const={constant}"));
            }
        }
    }
}

fn conv_out_size(c: &Case) -> (usize, usize) {
    let eff = |k: usize, d: usize| (k - 1) * d + 1;
    let oh = (c.h + c.padding[0] + c.padding[1] - eff(c.kh, c.dilations[0])) / c.strides[0] + 1;
    let ow = (c.w + c.padding[2] + c.padding[3] - eff(c.kw, c.dilations[1])) / c.strides[1] + 1;
    (oh, ow)
}

/// Naive grouped conv2d, nchw input, oihw filter.
fn conv_ref(c: &Case, x: &[f32], f: &[f32], bias: Option<&[f32]>) -> Vec<f32> {
    let (oh, ow) = conv_out_size(c);
    let (cig, cog) = (c.cin / c.groups, c.cout / c.groups);
    let mut out = vec![0f32; c.n * c.cout * oh * ow];
    for n in 0..c.n {
        for o in 0..c.cout {
            let g = o / cog;
            for y in 0..oh {
                for xx in 0..ow {
                    let mut s = bias.map_or(0.0, |b| b[o] as f64);
                    for i in 0..cig {
                        for kh in 0..c.kh {
                            for kw in 0..c.kw {
                                let ih = (y * c.strides[0] + kh * c.dilations[0]) as isize - c.padding[0] as isize;
                                let iw = (xx * c.strides[1] + kw * c.dilations[1]) as isize - c.padding[2] as isize;
                                if ih < 0 || iw < 0 || ih >= c.h as isize || iw >= c.w as isize {
                                    continue;
                                }
                                let xi = ((n * c.cin + g * cig + i) * c.h + ih as usize) * c.w + iw as usize;
                                let fi = ((o * cig + i) * c.kh + kh) * c.kw + kw;
                                s += x[xi] as f64 * f[fi] as f64;
                            }
                        }
                    }
                    out[((n * c.cout + o) * oh + y) * ow + xx] = s as f32;
                }
            }
        }
    }
    out
}

/// `Case::new(input [n, cin, h, w], filter [cout, kh, kw], strides, dilations, padding, groups)`.
const CASES: &[Case] = &[
    Case::new([1, 1, 5, 5], [1, 3, 3], [1, 1], [1, 1], [0; 4], 1),
    Case::new([2, 3, 7, 6], [4, 3, 2], [2, 1], [1, 1], [1, 0, 2, 1], 1),
    Case::new([1, 4, 9, 8], [6, 3, 3], [1, 2], [2, 1], [2, 2, 1, 0], 2),
    Case::new([2, 5, 4, 6], [7, 1, 1], [1, 1], [1, 1], [0; 4], 1),
    Case::new([1, 6, 5, 5], [4, 1, 1], [1, 1], [1, 1], [0; 4], 2),
    Case::new([1, 3, 5, 5], [3, 1, 1], [2, 2], [1, 1], [1, 1, 1, 1], 1),
    // pointwise nchw in two column tiles per image and group (cog 64: 512-pixel tiles)
    Case::new([2, 8, 30, 30], [128, 1, 1], [1, 1], [1, 1], [0; 4], 2),
    // depthwise
    Case::new([2, 5, 8, 7], [5, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 5),
    Case::new([1, 4, 9, 9], [4, 3, 2], [2, 3], [1, 2], [0, 1, 2, 0], 4),
    Case::new([1, 70, 4, 4], [70, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 70),
    // depthwise: the 9-tap 3×3 pass at strides 1 and 2 (with dilation), 5×5 stride 2, 7×7
    Case::new([1, 3, 13, 21], [3, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 3),
    Case::new([1, 2, 12, 20], [2, 3, 3], [1, 1], [2, 2], [2, 2, 2, 2], 2),
    Case::new([1, 2, 11, 19], [2, 3, 3], [1, 2], [1, 3], [0, 1, 3, 2], 2),
    Case::new([1, 2, 12, 23], [2, 5, 5], [2, 2], [1, 1], [2, 2, 2, 2], 2),
    Case::new([1, 2, 10, 17], [2, 7, 7], [1, 1], [1, 1], [3, 3, 3, 3], 2),
    // one pixel wide with a one-wide window: run along the width (`Geom::along_width`), with
    // right padding and a width stride that never reach the input; with left padding it is not
    Case::new([2, 5, 19, 1], [6, 5, 1], [2, 2], [2, 3], [3, 1, 0, 1], 1),
    Case::new([1, 4, 17, 1], [4, 3, 1], [1, 1], [1, 1], [1, 1, 0, 0], 4),
    Case::new([1, 3, 9, 1], [5, 1, 1], [1, 1], [1, 1], [0; 4], 1),
    Case::new([1, 3, 9, 1], [2, 3, 1], [1, 2], [1, 1], [0, 0, 1, 0], 1),
    // fewer than BY_PIXEL_MAX output pixels: im2col filled pixel by pixel, with padding on
    // every side, dilation and strides; 1-D (along the width) with a long strided window
    Case::new([2, 5, 3, 4], [9, 3, 3], [1, 2], [1, 2], [1, 2, 2, 1], 1),
    Case::new([1, 6, 4, 1], [10, 3, 1], [1, 1], [1, 1], [1, 1, 0, 0], 1),
    Case::new([1, 1, 40, 1], [5, 16, 1], [8, 1], [1, 1], [0; 4], 1),
    Case::new([1, 4, 5, 5], [6, 2, 3], [2, 2], [1, 1], [0, 1, 1, 1], 2),
    // depthwise planes above depthwise_blocked's 10×10 limit: the plane kernel (3×3 at strides
    // 1 and 2, 5×5 stride 2, 7×7, dilated), with 17 channels (a partial block of 16 below it)
    Case::new([1, 2, 30, 31], [2, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 2),
    Case::new([1, 2, 61, 63], [2, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 2),
    Case::new([1, 2, 62, 60], [2, 5, 5], [2, 2], [1, 1], [2, 2, 2, 2], 2),
    Case::new([1, 2, 30, 31], [2, 7, 7], [1, 1], [1, 1], [3, 3, 3, 3], 2),
    Case::new([1, 2, 34, 33], [2, 3, 3], [1, 1], [2, 2], [1, 1, 1, 1], 2),
    // nhwc depthwise (`depthwise_nhwc_avx512`): 5×5 stride 1 with 37 channels (two blocks of 16
    // and a partial one), 3×3 stride 2 on 7×7 with batch 2, a window wider than the input
    // (no interior pixel), a 3×5 window (kh ≠ kw) at width stride 2
    Case::new([1, 37, 11, 13], [37, 5, 5], [1, 1], [1, 1], [2, 2, 2, 2], 37),
    Case::new([2, 20, 7, 7], [20, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 20),
    Case::new([1, 16, 3, 2], [16, 5, 5], [1, 1], [1, 1], [2, 2, 2, 2], 16),
    Case::new([1, 18, 9, 21], [18, 3, 5], [1, 2], [1, 1], [1, 1, 2, 2], 18),
    // depthwise_blocked: 17 and 33 channels (partial blocks), batch 2, strides, dilation,
    // asymmetric padding, a 4-wide window (not 3/5/7), 1×1 outputs
    Case::new([2, 17, 9, 8], [17, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 17),
    Case::new([1, 33, 14, 13], [33, 5, 4], [2, 2], [1, 2], [2, 1, 0, 3], 33),
    Case::new([1, 16, 3, 3], [16, 3, 3], [2, 2], [1, 1], [0; 4], 16),
    // depthwise planes of the streamed AVX-512 kernel (3×3 and 5×5, strides 1 and 2): strips
    // of 1, 2 and 4 column vectors with masked tails (outputs 14, 37, 75 and 65 wide), rows
    // fewer than the window, asymmetric padding, no padding, batch 2
    Case::new([2, 3, 14, 14], [3, 5, 5], [1, 1], [1, 1], [2, 2, 2, 2], 3),
    Case::new([1, 2, 40, 37], [2, 5, 5], [1, 1], [1, 1], [1, 3, 2, 2], 2),
    Case::new([1, 2, 9, 75], [2, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 2),
    Case::new([1, 2, 7, 7], [2, 3, 3], [1, 1], [1, 1], [0; 4], 2),
    Case::new([1, 2, 1, 40], [2, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 2),
    Case::new([1, 2, 11, 130], [2, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 2),
    Case::new([2, 3, 29, 27], [3, 5, 5], [2, 2], [1, 1], [2, 1, 1, 2], 3),
    Case::new([1, 20, 7, 7], [20, 5, 5], [1, 1], [1, 1], [2, 2, 2, 2], 20),
    // few input channels, direct (conv_few_channels, AVX-512 or AVX2), as pixel vectors (fewer than
    // 64 taps): groups of 8 output channels (1 to 4 of them), strides, dilation, asymmetric
    // padding, output rows of 1, 3 and 5 vectors (blocks of 3: the last one partial, with a
    // vector wholly past the row)
    Case::new([2, 3, 23, 21], [32, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 1),
    Case::new([1, 1, 17, 40], [8, 5, 5], [1, 1], [2, 2], [4, 4, 4, 4], 1),
    Case::new([1, 4, 12, 75], [16, 3, 3], [1, 1], [1, 1], [0, 2, 1, 0], 1),
    Case::new([1, 2, 9, 31], [24, 3, 2], [1, 2], [1, 1], [1, 0, 0, 1], 1),
    // ... and with 64+ taps the direct kernel (conv_direct): ResNet's first conv (7×7 stride
    // 2, 3 → 64 channels, 147 taps), channel groups of 3 blocks (the last one 8 channels) and
    // of 4 + 1 blocks; with cout not a multiple of 8, im2col
    Case::new([1, 3, 37, 35], [64, 7, 7], [2, 2], [1, 1], [3, 3, 3, 3], 1),
    Case::new([1, 3, 10, 50], [40, 5, 5], [1, 1], [1, 1], [2, 2, 2, 2], 1),
    Case::new([1, 2, 19, 23], [72, 7, 7], [2, 2], [1, 1], [3, 3, 3, 3], 1),
    Case::new([2, 3, 9, 101], [20, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1),
    // direct with pixel-major sums (conv_direct, AVX-512; 64+ taps, not Winograd): channel
    // groups of 3 blocks (the last of 8 channels), of 4 + 1 blocks, two full groups; taps in
    // chunks with a partial last one; runs of pixels across rows, several runs per image
    // (more than 480 pixels); dilation, asymmetric padding, batch 2; a 1×1 stride-2 conv (left
    // to im2col), a 7×7 output
    Case::new([1, 16, 15, 17], [40, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 1),
    Case::new([2, 8, 13, 11], [72, 3, 3], [1, 1], [2, 2], [2, 1, 0, 3], 1),
    Case::new([1, 8, 30, 33], [128, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 1),
    Case::new([1, 8, 26, 27], [32, 5, 5], [1, 1], [1, 1], [2, 2, 2, 2], 1),
    Case::new([1, 72, 9, 9], [16, 1, 1], [2, 2], [1, 1], [0; 4], 1),
    Case::new([1, 24, 7, 7], [48, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1),
    // 1×1 on a one-pixel image (the squeeze-and-excitation convs), run as its channels-last
    // twin: batch 2, groups, more output channels than one 48-wide tile
    Case::new([1, 40, 1, 1], [10, 1, 1], [1, 1], [1, 1], [0; 4], 1),
    Case::new([2, 24, 1, 1], [100, 1, 1], [1, 1], [1, 1], [0; 4], 1),
    Case::new([2, 12, 1, 1], [18, 1, 1], [1, 1], [1, 1], [0; 4], 3),
    // depthwise with a channel multiplier (general path)
    Case::new([1, 3, 6, 6], [6, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 3),
    // depthwise with strides and padding of up to 2^32-1 around a 1x1 output (found by fuzz
    // target builder_ops: the padded plane was sized by them, 86 GB, and the process aborted)
    Case::new([1, 2, 5, 5], [2, 3, 3], [u32::MAX as usize; 2], [1, 1], [0; 4], 2),
    Case::new([1, 2, 5, 4], [2, 3, 2], [u32::MAX as usize; 2], [1, 1], [1, 4_000_000_000, 1, 4_000_000_000], 2),
    // depthwise_blocked with left padding past every window (found by fuzz target
    // onnx_import: the block's row offset of the padding ran past the block, a panic)
    Case::new([1, 1, 7, 5], [1, 3, 3], [2, 18], [1, 1], [0, 0, 8, 0], 1),
    Case::new([1, 17, 7, 5], [17, 3, 3], [2, 18], [1, 1], [1, 0, 8, 1], 17),
    // strides far beyond the input with right padding past it (found by fuzz target
    // onnx_import: the GEMM path sliced past its column buffer)
    Case::new([51, 1, 7, 37], [33, 3, 3], [79, 18], [1, 1], [0, 0, 0, 112], 1),
    // window larger than the input, covered by padding
    Case::new([1, 2, 2, 3], [3, 4, 5], [1, 1], [1, 1], [2, 1, 2, 2], 1),
    Case::new([1, 2, 2, 3], [2, 4, 5], [1, 1], [1, 1], [2, 1, 2, 2], 2),
];

fn conv_attrs(c: &Case, input_layout: InputOperandLayout, filter_layout: Conv2dFilterOperandLayout) -> Attrs {
    let (padding, strides, dilations, groups) = c.attr_values();
    Attrs::Conv2d { padding, strides, dilations, groups, input_layout, filter_layout }
}

fn run_conv_case(c: &Case, dt: DataType, with_bias: bool, constant: bool, seed: u32) {
    let (oh, ow) = conv_out_size(c);
    let xs = [c.n, c.cin, c.h, c.w];
    let fs = [c.cout, c.cin / c.groups, c.kh, c.kw];
    let run =
        ConvRun::new(dt, [xs, fs], (c.cout, with_bias), seed, |x, f, b| (conv_ref(c, x, f, b), [c.n, c.cout, oh, ow]));
    run.check(
        OpKind::Conv2d,
        constant,
        &[
            (Conv2dFilterOperandLayout::Oihw, [0, 1, 2, 3]),
            (Conv2dFilterOperandLayout::Hwio, [2, 3, 1, 0]),
            (Conv2dFilterOperandLayout::Ohwi, [0, 2, 3, 1]),
            (Conv2dFilterOperandLayout::Ihwo, [1, 2, 3, 0]),
        ],
        |layout, fl| conv_attrs(c, layout, fl),
        &format!("conv2d {c:?} bias={with_bias}"),
    );
}

#[test]
fn conv2d_matches_reference_for_every_layout_and_path() {
    for (i, c) in CASES.iter().enumerate() {
        run_conv_case(c, DataType::Float32, i % 2 == 0, true, 100 + i as u32);
        run_conv_case(c, DataType::Float32, i % 2 == 1, false, 200 + i as u32);
    }
}

#[test]
fn conv2d_float16_matches_reference() {
    for (i, c) in CASES.iter().enumerate() {
        run_conv_case(c, DataType::Float16, true, i % 2 == 0, 300 + i as u32);
    }
}

#[test]
fn conv2d_im2col_tiles_match_reference() {
    // kdim · pixels exceeds the im2col budget: several tiles per image.
    let c = Case::new([1, 64, 62, 62], [8, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 1);
    let (oh, ow) = conv_out_size(&c);
    assert!(c.cin * 9 * oh * ow > super::COL_BUDGET);
    let reference = |x: &[f32], f: &[f32], _: Option<&[f32]>| (conv_ref(&c, x, f, None), [1, 8, oh, ow]);
    let run = ConvRun {
        tol: 1e-4,
        ..ConvRun::new(DataType::Float32, [[1, 64, 62, 62], [8, 64, 3, 3]], (8, false), 1, reference)
    };
    let oihw = [(Conv2dFilterOperandLayout::Oihw, [0, 1, 2, 3])];
    run.check(OpKind::Conv2d, true, &oihw, |layout, fl| conv_attrs(&c, layout, fl), "tiled conv");
}

#[test]
fn span_counts_valid_positions() {
    for n in 1..6 {
        for stride in 1..4 {
            for offset in 0..5 {
                for pad in 0..5 {
                    for limit in 1..6 {
                        let (lo, hi) = span(n, stride, offset, pad, limit);
                        for i in 0..n {
                            let p = (i * stride + offset) as isize - pad as isize;
                            let inside = p >= 0 && p < limit as isize;
                            assert_eq!(
                                inside,
                                i >= lo && i < hi,
                                "n={n} s={stride} o={offset} p={pad} l={limit} i={i}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The nchw kernel geometry of a case.
fn geom(c: &Case) -> Geom {
    let (oh, ow) = conv_out_size(c);
    Geom {
        n: c.n,
        cin: c.cin,
        h: c.h,
        w: c.w,
        cout: c.cout,
        oh,
        ow,
        kh: c.kh,
        kw: c.kw,
        groups: c.groups,
        strides: c.strides,
        dilations: c.dilations,
        padding: c.padding,
        nhwc: false,
    }
}

#[test]
fn depthwise_padding_stays_zero_when_one_thread_changes_geometry() {
    // The plane kernel zeroes its padded plane only when the geometry changes: on one thread,
    // a conv without padding fills the whole 34×34 plane with input, then one with padding 1
    // on a 32×32 input (the same 34×34 plane) must see zeros in its border.
    let a = Case::new([1, 2, 34, 34], [2, 3, 3], [1, 1], [1, 1], [0; 4], 2);
    let b = Case { h: 32, w: 32, padding: [1; 4], ..a };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        for (i, c) in [a, b, a, b].iter().enumerate() {
            let (oh, ow) = conv_out_size(c);
            let g = geom(c);
            let x: Vec<f32> = pseudo(c.cin * c.h * c.w, 40 + i as u32).iter().map(|v| v + 100.0).collect();
            let f = pseudo(c.cout * 9, 50 + i as u32);
            let mut out = vec![0f32; c.cout * oh * ow];
            let none = super::super::epilogue::Epilogue::default();
            super::super::depthwise::planes(&g, &x, &f, None, &mut out, &none.bind(&[])).unwrap();
            assert_close(&out, &conv_ref(c, &x, &f, None), 1e-4, &format!("depthwise {c:?}"));
        }
    });
}

#[test]
fn depthwise_blocked_and_plane_kernels_each_match_reference() {
    // Both depthwise paths on every depthwise case above that each can hold (the routing in
    // `depthwise::depthwise` picks one per CPU, so each is also called directly), plus
    // strided planes large enough for several bands of `depthwise_blocked`, with a residual
    // add as the epilogue: each band's epilogue reads the residual at its own offsets.
    let extra = [
        Case::new([1, 17, 112, 112], [17, 3, 3], [2, 2], [1, 1], [0, 1, 0, 1], 17),
        Case::new([2, 18, 57, 61], [18, 5, 5], [2, 2], [1, 1], [2, 2, 2, 2], 18),
        Case::new([1, 16, 90, 40], [16, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 16),
        // 3×3 stride 2 rows of 15 pixels: a group of 8, then the row's rest of 7 as one group
        Case::new([1, 17, 9, 30], [17, 3, 3], [2, 2], [1, 1], [1, 1, 1, 1], 17),
    ];
    let cases = CASES.iter().chain(&extra).filter(|c| c.groups == c.cin && c.cin == c.cout);
    for (i, c) in cases.enumerate() {
        let run = ResidualRun::new(c, 500 + 4 * i as u32);
        let (g, x, f, b) = (&run.g, &run.x[..], &run.f[..], Some(&run.b[..]));
        if depthwise_blocked::fits(g) {
            run.check(&format!("depthwise blocked {c:?}"), |out, ep| {
                depthwise_blocked::depthwise_blocked(g, x, f, b, out, ep).unwrap()
            });
        }
        if depthwise::plane_fits(g) {
            run.check(&format!("depthwise planes {c:?}"), |out, ep| depthwise::planes(g, x, f, b, out, ep).unwrap());
        }
    }
}

#[test]
fn direct_and_im2col_each_match_reference() {
    // Both paths of the convs the direct kernel takes (the routing picks it on AVX2 and
    // AVX-512 CPUs, so im2col is also called directly), with bias and a residual add as the
    // epilogue (each run of pixels applies it at its own offsets), and the direct kernel on
    // each vector width this CPU runs, also with a clamp applied in its store.
    #[cfg(target_arch = "x86_64")]
    use super::super::conv_direct::{conv_with, DirectFilter, Width};
    let cases = CASES.iter().filter(|c| c.groups == 1 && c.cin * c.kh * c.kw >= 64);
    let mut direct_runs = 0;
    for (i, c) in cases.enumerate() {
        let run = ResidualRun::new(c, 900 + 4 * i as u32);
        let (g, x, f, b) = (&run.g, &run.x[..], &run.f[..], Some(&run.b[..]));
        run.check(&format!("im2col {c:?}"), |out, ep| im2col_conv(g, x, f, b, &Scratch::default(), out, ep).unwrap());
        #[cfg(target_arch = "x86_64")]
        if super::super::conv_direct::applies(g) {
            let filter = DirectFilter::new(g, f).unwrap();
            for width in [Width::Avx512, Width::Avx2].into_iter().filter(|w| w.available()) {
                run.check(&format!("direct {width:?} {c:?}"), |out, ep| {
                    conv_with(width, g, x, &filter, b, &Scratch::default(), out, ep).unwrap()
                });
                run.check_clamped(&format!("direct {width:?} clamped {c:?}"), |out, ep| {
                    conv_with(width, g, x, &filter, b, &Scratch::default(), out, ep).unwrap()
                });
            }
            direct_runs += 1;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if super::super::unary::has_avx2() {
        assert!(direct_runs >= 6, "the direct kernel took {direct_runs} cases");
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn few_channels_each_width_matches_reference() {
    // The few-input-channel kernel on each vector width this CPU runs (the routing runs only
    // the widest), with bias and a residual add as the epilogue, and with a clamp.
    use super::super::conv_direct::{DirectFilter, Width};
    use super::super::conv_few_channels::{applies, conv_with};
    let mut runs = 0;
    for (i, c) in CASES.iter().enumerate() {
        let run = ResidualRun::new(c, 700 + 4 * i as u32);
        let (g, x, b) = (&run.g, &run.x[..], Some(&run.b[..]));
        if !applies(g) {
            continue;
        }
        let filter = DirectFilter::new(g, &run.f).unwrap();
        for width in [Width::Avx512, Width::Avx2].into_iter().filter(|w| w.available()) {
            run.check(&format!("few channels {width:?} {c:?}"), |out, ep| {
                conv_with(width, g, x, &filter, b, &Scratch::default(), out, ep).unwrap()
            });
            run.check_clamped(&format!("few channels {width:?} clamped {c:?}"), |out, ep| {
                conv_with(width, g, x, &filter, b, &Scratch::default(), out, ep).unwrap()
            });
        }
        runs += 1;
    }
    if super::super::unary::has_avx2() {
        assert!(runs >= 4, "the few-channel kernel took {runs} cases");
    }
}

/// A case's pseudo-random operands, nchw (filter oihw), with a bias and a residual add as the
/// fused epilogue, and the reference output: conv + bias + residual.
struct ResidualRun {
    g: Geom,
    x: Vec<f32>,
    f: Vec<f32>,
    b: Vec<f32>,
    residual: Vec<f32>,
    want: Vec<f32>,
    desc: webnn_core::OperandDescriptor,
    ep: super::super::epilogue::Epilogue,
}

impl ResidualRun {
    fn new(c: &Case, seed: u32) -> ResidualRun {
        use super::super::epilogue::{Epilogue, EpilogueBinary, EpilogueStep};
        let (oh, ow) = conv_out_size(c);
        let x = pseudo(c.n * c.cin * c.h * c.w, seed);
        let f = pseudo(c.cout * c.cin / c.groups * c.kh * c.kw, seed + 1);
        let b = pseudo(c.cout, seed + 2);
        let len = c.n * c.cout * oh * ow;
        let residual = pseudo(len, seed + 3);
        let want = conv_ref(c, &x, &f, Some(&b)).iter().zip(&residual).map(|(y, r)| y + r).collect();
        let desc = webnn_core::OperandDescriptor::new(DataType::Float32, vec![len as u32]);
        let ep = Epilogue {
            steps: [EpilogueStep::Binary { op: EpilogueBinary::Add, input: 0, inner: 1, len }].into_iter().collect(),
        };
        ResidualRun { g: geom(c), x, f, b, residual, want, desc, ep }
    }

    /// Fills the output (NaN first) with `kernel` and compares it with the reference.
    fn check(&self, label: &str, kernel: impl FnOnce(&mut [f32], &super::super::epilogue::BoundEpilogue<'_>)) {
        let input = In { desc: &self.desc, bytes: bytemuck::cast_slice(&self.residual) };
        let mut out = vec![f32::NAN; self.want.len()];
        kernel(&mut out, &self.ep.bind(&[Some(input)]));
        assert_close(&out, &self.want, 1e-4, label);
    }

    /// [`ResidualRun::check`] with a clamp to [-0.5, 0.5] as the epilogue instead of the
    /// residual add (the kernels that apply it in their store).
    fn check_clamped(&self, label: &str, kernel: impl FnOnce(&mut [f32], &super::super::epilogue::BoundEpilogue<'_>)) {
        use super::super::activation::Activation;
        use super::super::epilogue::{Epilogue, EpilogueStep};
        let ep = Epilogue { steps: [EpilogueStep::Activation(Activation::Clamp(-0.5, 0.5))].into_iter().collect() };
        let want: Vec<f32> = self.want.iter().zip(&self.residual).map(|(y, r)| (y - r).clamp(-0.5, 0.5)).collect();
        let mut out = vec![f32::NAN; want.len()];
        kernel(&mut out, &ep.bind(&[]));
        assert_close(&out, &want, 1e-4, label);
    }
}
