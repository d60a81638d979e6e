//! convTranspose2d against a naive nchw reference, every filter layout, f32 and f16, constant
//! and non-constant filters. The case type and its runner in every layout are conv2d's.

use super::*;
use crate::kernels::conv::tests::{Case, ConvRun};
use webnn_core::{DataType, OpKind};

/// Naive grouped convTranspose2d, nchw input, iohw filter, output size given.
fn convt_ref(c: &Case, oh: usize, ow: usize, x: &[f32], f: &[f32], bias: Option<&[f32]>) -> Vec<f32> {
    let (cig, cog) = (c.cin / c.groups, c.cout / c.groups);
    let mut out = vec![0f64; c.n * c.cout * oh * ow];
    for n in 0..c.n {
        for o in 0..c.cout {
            for p in 0..oh * ow {
                out[(n * c.cout + o) * oh * ow + p] = bias.map_or(0.0, |b| b[o] as f64);
            }
        }
        for ci in 0..c.cin {
            let g = ci / cig;
            for ih in 0..c.h {
                for iw in 0..c.w {
                    let xv = x[((n * c.cin + ci) * c.h + ih) * c.w + iw] as f64;
                    for o in 0..cog {
                        for kh in 0..c.kh {
                            for kw in 0..c.kw {
                                let y = (ih * c.strides[0] + kh * c.dilations[0]) as isize - c.padding[0] as isize;
                                let xx = (iw * c.strides[1] + kw * c.dilations[1]) as isize - c.padding[2] as isize;
                                if y < 0 || xx < 0 || y >= oh as isize || xx >= ow as isize {
                                    continue;
                                }
                                let fv = f[((ci * cog + o) * c.kh + kh) * c.kw + kw] as f64;
                                out[((n * c.cout + g * cog + o) * oh + y as usize) * ow + xx as usize] += xv * fv;
                            }
                        }
                    }
                }
            }
        }
    }
    out.into_iter().map(|v| v as f32).collect()
}

fn run_convt_case(c: &Case, extra: [usize; 2], dt: DataType, with_bias: bool, constant: bool, seed: u32) {
    let calc = |i: usize, s: usize, k: usize, d: usize, pb: usize, pe: usize| (i - 1) * s + (k - 1) * d + 1 - pb - pe;
    let oh = calc(c.h, c.strides[0], c.kh, c.dilations[0], c.padding[0], c.padding[1]) + extra[0];
    let ow = calc(c.w, c.strides[1], c.kw, c.dilations[1], c.padding[2], c.padding[3]) + extra[1];
    let xs = [c.n, c.cin, c.h, c.w];
    let fs = [c.cin, c.cout / c.groups, c.kh, c.kw];
    let reference = |x: &[f32], f: &[f32], b: Option<&[f32]>| (convt_ref(c, oh, ow, x, f, b), [c.n, c.cout, oh, ow]);
    ConvRun::new(dt, [xs, fs], (c.cout, with_bias), seed, reference).check(
        OpKind::ConvTranspose2d,
        constant,
        &[
            (ConvTranspose2dFilterOperandLayout::Iohw, [0, 1, 2, 3]),
            (ConvTranspose2dFilterOperandLayout::Hwoi, [2, 3, 1, 0]),
            (ConvTranspose2dFilterOperandLayout::Ohwi, [1, 2, 3, 0]),
        ],
        |input_layout, filter_layout| {
            let (padding, strides, dilations, groups) = c.attr_values();
            Attrs::ConvTranspose2d { padding, strides, dilations, groups, input_layout, filter_layout }
        },
        &format!("convTranspose2d {c:?} +{extra:?} bias={with_bias}"),
    );
}

/// Each case and its output padding `[h, w]` (the output size beyond the smallest).
const T_CASES: &[(Case, [usize; 2])] = &[
    (Case::new([1, 1, 3, 3], [1, 3, 3], [1, 1], [1, 1], [0; 4], 1), [0, 0]),
    (Case::new([2, 3, 4, 5], [2, 3, 2], [2, 3], [1, 1], [1, 0, 0, 1], 1), [1, 2]),
    (Case::new([1, 4, 3, 4], [6, 2, 3], [2, 2], [2, 1], [0, 1, 1, 1], 2), [1, 0]),
    (Case::new([1, 3, 5, 5], [3, 3, 3], [1, 1], [1, 1], [1, 1, 1, 1], 3), [0, 0]),
    (Case::new([1, 2, 2, 2], [4, 1, 1], [3, 2], [1, 1], [0; 4], 1), [2, 1]),
    (Case::new([1, 8, 6, 6], [4, 4, 4], [2, 2], [1, 1], [1, 1, 1, 1], 1), [0, 0]),
];

#[test]
fn conv_transpose2d_matches_reference_for_every_layout() {
    for (i, (c, extra)) in T_CASES.iter().enumerate() {
        run_convt_case(c, *extra, DataType::Float32, i % 2 == 0, i % 3 != 0, 400 + i as u32);
        run_convt_case(c, *extra, DataType::Float32, i % 2 == 1, i % 3 == 0, 500 + i as u32);
        run_convt_case(c, *extra, DataType::Float16, true, i % 2 == 0, 600 + i as u32);
    }
}
