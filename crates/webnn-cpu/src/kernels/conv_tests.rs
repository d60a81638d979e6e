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

const CASES: &[Case] = &[
    Case {
        n: 1,
        cin: 1,
        h: 5,
        w: 5,
        cout: 1,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 1,
    },
    Case {
        n: 2,
        cin: 3,
        h: 7,
        w: 6,
        cout: 4,
        kh: 3,
        kw: 2,
        strides: [2, 1],
        dilations: [1, 1],
        padding: [1, 0, 2, 1],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 4,
        h: 9,
        w: 8,
        cout: 6,
        kh: 3,
        kw: 3,
        strides: [1, 2],
        dilations: [2, 1],
        padding: [2, 2, 1, 0],
        groups: 2,
    },
    Case {
        n: 2,
        cin: 5,
        h: 4,
        w: 6,
        cout: 7,
        kh: 1,
        kw: 1,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 6,
        h: 5,
        w: 5,
        cout: 4,
        kh: 1,
        kw: 1,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 3,
        h: 5,
        w: 5,
        cout: 3,
        kh: 1,
        kw: 1,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 1,
    },
    // pointwise nchw in two column tiles per image and group (cog 64: 512-pixel tiles)
    Case {
        n: 2,
        cin: 8,
        h: 30,
        w: 30,
        cout: 128,
        kh: 1,
        kw: 1,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 2,
    },
    // depthwise
    Case {
        n: 2,
        cin: 5,
        h: 8,
        w: 7,
        cout: 5,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 5,
    },
    Case {
        n: 1,
        cin: 4,
        h: 9,
        w: 9,
        cout: 4,
        kh: 3,
        kw: 2,
        strides: [2, 3],
        dilations: [1, 2],
        padding: [0, 1, 2, 0],
        groups: 4,
    },
    Case {
        n: 1,
        cin: 70,
        h: 4,
        w: 4,
        cout: 70,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 70,
    },
    // depthwise: the 9-tap 3×3 pass at strides 1 and 2 (with dilation), 5×5 stride 2, 7×7
    Case {
        n: 1,
        cin: 3,
        h: 13,
        w: 21,
        cout: 3,
        kh: 3,
        kw: 3,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 3,
    },
    Case {
        n: 1,
        cin: 2,
        h: 12,
        w: 20,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [2, 2],
        padding: [2, 2, 2, 2],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 11,
        w: 19,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 2],
        dilations: [1, 3],
        padding: [0, 1, 3, 2],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 12,
        w: 23,
        cout: 2,
        kh: 5,
        kw: 5,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [2, 2, 2, 2],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 10,
        w: 17,
        cout: 2,
        kh: 7,
        kw: 7,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [3, 3, 3, 3],
        groups: 2,
    },
    // one pixel wide with a one-wide window: run along the width (`Geom::along_width`), with
    // right padding and a width stride that never reach the input; with left padding it is not
    Case {
        n: 2,
        cin: 5,
        h: 19,
        w: 1,
        cout: 6,
        kh: 5,
        kw: 1,
        strides: [2, 2],
        dilations: [2, 3],
        padding: [3, 1, 0, 1],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 4,
        h: 17,
        w: 1,
        cout: 4,
        kh: 3,
        kw: 1,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 0, 0],
        groups: 4,
    },
    Case {
        n: 1,
        cin: 3,
        h: 9,
        w: 1,
        cout: 5,
        kh: 1,
        kw: 1,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 3,
        h: 9,
        w: 1,
        cout: 2,
        kh: 3,
        kw: 1,
        strides: [1, 2],
        dilations: [1, 1],
        padding: [0, 0, 1, 0],
        groups: 1,
    },
    // fewer than BY_PIXEL_MAX output pixels: im2col filled pixel by pixel, with padding on
    // every side, dilation and strides; 1-D (along the width) with a long strided window
    Case {
        n: 2,
        cin: 5,
        h: 3,
        w: 4,
        cout: 9,
        kh: 3,
        kw: 3,
        strides: [1, 2],
        dilations: [1, 2],
        padding: [1, 2, 2, 1],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 6,
        h: 4,
        w: 1,
        cout: 10,
        kh: 3,
        kw: 1,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 0, 0],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 1,
        h: 40,
        w: 1,
        cout: 5,
        kh: 16,
        kw: 1,
        strides: [8, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 4,
        h: 5,
        w: 5,
        cout: 6,
        kh: 2,
        kw: 3,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [0, 1, 1, 1],
        groups: 2,
    },
    // depthwise planes above depthwise_blocked's 10×10 limit: the plane kernel (3×3 at strides
    // 1 and 2, 5×5 stride 2, 7×7, dilated), with 17 channels (a partial block of 16 below it)
    Case {
        n: 1,
        cin: 2,
        h: 30,
        w: 31,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 61,
        w: 63,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 62,
        w: 60,
        cout: 2,
        kh: 5,
        kw: 5,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [2, 2, 2, 2],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 30,
        w: 31,
        cout: 2,
        kh: 7,
        kw: 7,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [3, 3, 3, 3],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 34,
        w: 33,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [2, 2],
        padding: [1, 1, 1, 1],
        groups: 2,
    },
    // depthwise_blocked: 17 and 33 channels (partial blocks), batch 2, strides, dilation,
    // asymmetric padding, a 4-wide window (not 3/5/7), 1×1 outputs
    Case {
        n: 2,
        cin: 17,
        h: 9,
        w: 8,
        cout: 17,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 17,
    },
    Case {
        n: 1,
        cin: 33,
        h: 14,
        w: 13,
        cout: 33,
        kh: 5,
        kw: 4,
        strides: [2, 2],
        dilations: [1, 2],
        padding: [2, 1, 0, 3],
        groups: 33,
    },
    Case {
        n: 1,
        cin: 16,
        h: 3,
        w: 3,
        cout: 16,
        kh: 3,
        kw: 3,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 16,
    },
    // depthwise planes of the streamed AVX-512 kernel (3×3 and 5×5, strides 1 and 2): strips
    // of 1, 2 and 4 column vectors with masked tails (outputs 14, 37, 75 and 65 wide), rows
    // fewer than the window, asymmetric padding, no padding, batch 2
    Case {
        n: 2,
        cin: 3,
        h: 14,
        w: 14,
        cout: 3,
        kh: 5,
        kw: 5,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [2, 2, 2, 2],
        groups: 3,
    },
    Case {
        n: 1,
        cin: 2,
        h: 40,
        w: 37,
        cout: 2,
        kh: 5,
        kw: 5,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 3, 2, 2],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 9,
        w: 75,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 7,
        w: 7,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 1,
        w: 40,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 11,
        w: 130,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 2,
    },
    Case {
        n: 2,
        cin: 3,
        h: 29,
        w: 27,
        cout: 3,
        kh: 5,
        kw: 5,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [2, 1, 1, 2],
        groups: 3,
    },
    Case {
        n: 1,
        cin: 20,
        h: 7,
        w: 7,
        cout: 20,
        kh: 5,
        kw: 5,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [2, 2, 2, 2],
        groups: 20,
    },
    // few input channels, direct (conv_few_channels, AVX-512): blocks of 16 and 8 output
    // channels, strides, dilation, asymmetric padding, output rows of 1, 2 and 4+ vectors
    Case {
        n: 2,
        cin: 3,
        h: 23,
        w: 21,
        cout: 32,
        kh: 3,
        kw: 3,
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 1,
        h: 17,
        w: 40,
        cout: 8,
        kh: 5,
        kw: 5,
        strides: [1, 1],
        dilations: [2, 2],
        padding: [4, 4, 4, 4],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 4,
        h: 12,
        w: 75,
        cout: 16,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0, 2, 1, 0],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 2,
        h: 9,
        w: 31,
        cout: 24,
        kh: 3,
        kw: 2,
        strides: [1, 2],
        dilations: [1, 1],
        padding: [1, 0, 0, 1],
        groups: 1,
    },
    // depthwise with a channel multiplier (general path)
    Case {
        n: 1,
        cin: 3,
        h: 6,
        w: 6,
        cout: 6,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 3,
    },
    // depthwise with strides and padding of up to 2^32-1 around a 1x1 output (found by fuzz
    // target builder_ops: the padded plane was sized by them, 86 GB, and the process aborted)
    Case {
        n: 1,
        cin: 2,
        h: 5,
        w: 5,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [u32::MAX as usize; 2],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 2,
    },
    Case {
        n: 1,
        cin: 2,
        h: 5,
        w: 4,
        cout: 2,
        kh: 3,
        kw: 2,
        strides: [u32::MAX as usize; 2],
        dilations: [1, 1],
        padding: [1, 4_000_000_000, 1, 4_000_000_000],
        groups: 2,
    },
    // depthwise_blocked with left padding past every window (found by fuzz target
    // onnx_import: the block's row offset of the padding ran past the block, a panic)
    Case {
        n: 1,
        cin: 1,
        h: 7,
        w: 5,
        cout: 1,
        kh: 3,
        kw: 3,
        strides: [2, 18],
        dilations: [1, 1],
        padding: [0, 0, 8, 0],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 17,
        h: 7,
        w: 5,
        cout: 17,
        kh: 3,
        kw: 3,
        strides: [2, 18],
        dilations: [1, 1],
        padding: [1, 0, 8, 1],
        groups: 17,
    },
    // strides far beyond the input with right padding past it (found by fuzz target
    // onnx_import: the GEMM path sliced past its column buffer)
    Case {
        n: 51,
        cin: 1,
        h: 7,
        w: 37,
        cout: 33,
        kh: 3,
        kw: 3,
        strides: [79, 18],
        dilations: [1, 1],
        padding: [0, 0, 0, 112],
        groups: 1,
    },
    // window larger than the input, covered by padding
    Case {
        n: 1,
        cin: 2,
        h: 2,
        w: 3,
        cout: 3,
        kh: 4,
        kw: 5,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [2, 1, 2, 2],
        groups: 1,
    },
    Case {
        n: 1,
        cin: 2,
        h: 2,
        w: 3,
        cout: 2,
        kh: 4,
        kw: 5,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [2, 1, 2, 2],
        groups: 2,
    },
];

fn conv_attrs(c: &Case, input_layout: InputOperandLayout, filter_layout: Conv2dFilterOperandLayout) -> Attrs {
    Attrs::Conv2d {
        padding: c.padding.map(|v| v as u32),
        strides: c.strides.map(|v| v as u32),
        dilations: c.dilations.map(|v| v as u32),
        groups: c.groups as u32,
        input_layout,
        filter_layout,
    }
}

fn run_conv_case(c: &Case, dt: DataType, with_bias: bool, constant: bool, seed: u32) {
    let (oh, ow) = conv_out_size(c);
    let cig = c.cin / c.groups;
    let round = |v: Vec<f32>| if dt == DataType::Float16 { via_f16(&v) } else { v };
    let x = round(pseudo(c.n * c.cin * c.h * c.w, seed));
    let f = round(pseudo(c.cout * cig * c.kh * c.kw, seed + 1));
    let b = round(pseudo(c.cout, seed + 2));
    let want = conv_ref(c, &x, &f, with_bias.then_some(&b[..]));
    let xs = [c.n, c.cin, c.h, c.w];
    let fs = [c.cout, cig, c.kh, c.kw];
    let os = [c.n, c.cout, oh, ow];
    let tol = if dt == DataType::Float16 { 4e-3 } else { 1e-5 };
    for nhwc in [false, true] {
        let (xd, xsh) = if nhwc { permute(&x, xs, [0, 2, 3, 1]) } else { (x.clone(), xs) };
        let (wd, osh) = if nhwc { permute(&want, os, [0, 2, 3, 1]) } else { (want.clone(), os) };
        let layout = if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw };
        for (fl, perm) in [
            (Conv2dFilterOperandLayout::Oihw, [0, 1, 2, 3]),
            (Conv2dFilterOperandLayout::Hwio, [2, 3, 1, 0]),
            (Conv2dFilterOperandLayout::Ohwi, [0, 2, 3, 1]),
            (Conv2dFilterOperandLayout::Ihwo, [1, 2, 3, 0]),
        ] {
            let (fd, fsh) = permute(&f, fs, perm);
            let xsh32 = u32s(xsh);
            let fsh32 = u32s(fsh);
            let bsh = [c.cout as u32];
            let got = run_float(
                OpKind::Conv2d,
                dt,
                &[
                    Some((&xsh32, &xd, false)),
                    Some((&fsh32, &fd, constant)),
                    with_bias.then_some((&bsh[..], &b[..], constant)),
                ],
                conv_attrs(c, layout, fl),
                &u32s(osh),
            );
            assert_close(
                &got,
                &wd,
                tol,
                &format!("conv2d {c:?} {dt:?} nhwc={nhwc} {fl:?} bias={with_bias} const={constant}"),
            );
        }
    }
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
    let c = Case {
        n: 1,
        cin: 64,
        h: 62,
        w: 62,
        cout: 8,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        groups: 1,
    };
    let (oh, ow) = conv_out_size(&c);
    assert!(c.cin * 9 * oh * ow > super::COL_BUDGET);
    let x = pseudo(c.n * c.cin * c.h * c.w, 1);
    let f = pseudo(c.cout * c.cin * 9, 2);
    let want = conv_ref(&c, &x, &f, None);
    for nhwc in [false, true] {
        let (xd, xsh) = if nhwc { permute(&x, [1, 64, 62, 62], [0, 2, 3, 1]) } else { (x.clone(), [1, 64, 62, 62]) };
        let (wd, osh) =
            if nhwc { permute(&want, [1, 8, oh, ow], [0, 2, 3, 1]) } else { (want.clone(), [1, 8, oh, ow]) };
        let layout = if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw };
        let got = run_float(
            OpKind::Conv2d,
            DataType::Float32,
            &[Some((&u32s(xsh), &xd, false)), Some((&[8, 64, 3, 3], &f, true)), None],
            conv_attrs(&c, layout, Conv2dFilterOperandLayout::Oihw),
            &u32s(osh),
        );
        assert_close(&got, &wd, 1e-4, "tiled conv");
    }
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

#[test]
fn depthwise_padding_stays_zero_when_one_thread_changes_geometry() {
    // The plane kernel zeroes its padded plane only when the geometry changes: on one thread,
    // a conv without padding fills the whole 18×18 plane with input, then one with padding 1
    // on a 16×16 input (the same 18×18 plane) must see zeros in its border.
    let a = Case {
        n: 1,
        cin: 2,
        h: 18,
        w: 18,
        cout: 2,
        kh: 3,
        kw: 3,
        strides: [1, 1],
        dilations: [1, 1],
        padding: [0; 4],
        groups: 2,
    };
    let b = Case { h: 16, w: 16, padding: [1; 4], ..a };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        for (i, c) in [a, b, a, b].iter().enumerate() {
            let (oh, ow) = conv_out_size(c);
            let g = Geom {
                n: 1,
                cin: c.cin,
                h: c.h,
                w: c.w,
                cout: c.cout,
                oh,
                ow,
                kh: 3,
                kw: 3,
                groups: c.groups,
                strides: c.strides,
                dilations: c.dilations,
                padding: c.padding,
                nhwc: false,
            };
            let x: Vec<f32> = pseudo(c.cin * c.h * c.w, 40 + i as u32).iter().map(|v| v + 100.0).collect();
            let f = pseudo(c.cout * 9, 50 + i as u32);
            let mut out = vec![0f32; c.cout * oh * ow];
            let none = super::super::epilogue::Epilogue::default();
            super::super::depthwise::depthwise(&g, &x, &f, &mut out, &none.bind(&[])).unwrap();
            assert_close(&out, &conv_ref(c, &x, &f, None), 1e-4, &format!("depthwise {c:?}"));
        }
    });
}
