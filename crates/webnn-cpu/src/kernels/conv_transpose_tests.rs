//! convTranspose2d against a naive nchw reference, every filter layout, f32 and f16, constant
//! and non-constant filters. The case table type and the permutation helpers are conv2d's.

use super::*;
use crate::kernels::conv::tests::{permute, u32s, Case};
use crate::testing::constant_operands::{assert_close, pseudo, run_float, via_f16};
use webnn_core::OpKind;

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
    let (cig, cog) = (c.cin / c.groups, c.cout / c.groups);
    let _ = cig;
    let round = |v: Vec<f32>| if dt == DataType::Float16 { via_f16(&v) } else { v };
    let x = round(pseudo(c.n * c.cin * c.h * c.w, seed));
    let f = round(pseudo(c.cin * cog * c.kh * c.kw, seed + 1));
    let b = round(pseudo(c.cout, seed + 2));
    let want = convt_ref(c, oh, ow, &x, &f, with_bias.then_some(&b[..]));
    let xs = [c.n, c.cin, c.h, c.w];
    let fs = [c.cin, cog, c.kh, c.kw];
    let os = [c.n, c.cout, oh, ow];
    let tol = if dt == DataType::Float16 { 4e-3 } else { 1e-5 };
    for nhwc in [false, true] {
        let (xd, xsh) = if nhwc { permute(&x, xs, [0, 2, 3, 1]) } else { (x.clone(), xs) };
        let (wd, osh) = if nhwc { permute(&want, os, [0, 2, 3, 1]) } else { (want.clone(), os) };
        let layout = if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw };
        for (fl, perm) in [
            (ConvTranspose2dFilterOperandLayout::Iohw, [0, 1, 2, 3]),
            (ConvTranspose2dFilterOperandLayout::Hwoi, [2, 3, 1, 0]),
            (ConvTranspose2dFilterOperandLayout::Ohwi, [1, 2, 3, 0]),
        ] {
            let (fd, fsh) = permute(&f, fs, perm);
            let bsh = [c.cout as u32];
            let attrs = Attrs::ConvTranspose2d {
                padding: c.padding.map(|v| v as u32),
                strides: c.strides.map(|v| v as u32),
                dilations: c.dilations.map(|v| v as u32),
                groups: c.groups as u32,
                input_layout: layout,
                filter_layout: fl,
            };
            let got = run_float(
                OpKind::ConvTranspose2d,
                dt,
                &[
                    Some((&u32s(xsh), &xd, false)),
                    Some((&u32s(fsh), &fd, constant)),
                    with_bias.then_some((&bsh[..], &b[..], constant)),
                ],
                attrs,
                &u32s(osh),
            );
            assert_close(&got, &wd, tol, &format!("convTranspose2d {c:?} +{extra:?} {dt:?} nhwc={nhwc} {fl:?}"));
        }
    }
}

const T_CASES: &[(Case, [usize; 2])] = &[
    (
        Case {
            n: 1,
            cin: 1,
            h: 3,
            w: 3,
            cout: 1,
            kh: 3,
            kw: 3,
            strides: [1, 1],
            dilations: [1, 1],
            padding: [0; 4],
            groups: 1,
        },
        [0, 0],
    ),
    (
        Case {
            n: 2,
            cin: 3,
            h: 4,
            w: 5,
            cout: 2,
            kh: 3,
            kw: 2,
            strides: [2, 3],
            dilations: [1, 1],
            padding: [1, 0, 0, 1],
            groups: 1,
        },
        [1, 2],
    ),
    (
        Case {
            n: 1,
            cin: 4,
            h: 3,
            w: 4,
            cout: 6,
            kh: 2,
            kw: 3,
            strides: [2, 2],
            dilations: [2, 1],
            padding: [0, 1, 1, 1],
            groups: 2,
        },
        [1, 0],
    ),
    (
        Case {
            n: 1,
            cin: 3,
            h: 5,
            w: 5,
            cout: 3,
            kh: 3,
            kw: 3,
            strides: [1, 1],
            dilations: [1, 1],
            padding: [1, 1, 1, 1],
            groups: 3,
        },
        [0, 0],
    ),
    (
        Case {
            n: 1,
            cin: 2,
            h: 2,
            w: 2,
            cout: 4,
            kh: 1,
            kw: 1,
            strides: [3, 2],
            dilations: [1, 1],
            padding: [0; 4],
            groups: 1,
        },
        [2, 1],
    ),
    (
        Case {
            n: 1,
            cin: 8,
            h: 6,
            w: 6,
            cout: 4,
            kh: 4,
            kw: 4,
            strides: [2, 2],
            dilations: [1, 1],
            padding: [1, 1, 1, 1],
            groups: 1,
        },
        [0, 0],
    ),
];

#[test]
fn conv_transpose2d_matches_reference_for_every_layout() {
    for (i, (c, extra)) in T_CASES.iter().enumerate() {
        run_convt_case(c, *extra, DataType::Float32, i % 2 == 0, i % 3 != 0, 400 + i as u32);
        run_convt_case(c, *extra, DataType::Float32, i % 2 == 1, i % 3 == 0, 500 + i as u32);
        run_convt_case(c, *extra, DataType::Float16, true, i % 2 == 0, 600 + i as u32);
    }
}
