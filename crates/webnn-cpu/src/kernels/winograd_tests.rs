//! Winograd F(4×4, 3×3): the matrices and their written-out forms, and the convolution
//! against an f64 direct convolution written here (odd sizes, padding, batches, bias,
//! epilogues), its error measured next to the im2col path's.

use super::*;
use crate::kernels::activation::Activation;
use crate::kernels::conv::{im2col_conv, pack_conv_filter};
use crate::kernels::epilogue::{Epilogue, EpilogueBinary, EpilogueStep};
use crate::kernels::In;
use crate::testing::constant_operands::pseudo;
use webnn_core::types::Conv2dFilterOperandLayout;
use webnn_core::{DataType, OperandDescriptor};

#[test]
#[allow(clippy::needless_range_loop)] // indices name matrix entries here
fn matrices_compute_the_1d_correlation() {
    // Aᵀ·[(G·g) ⊙ (Bᵀ·d)] = (Σ_k g_k·d_{i+k})_i, checked on every pair of unit vectors
    // (bilinear, so this is the identity for all d, g).
    for dk in 0..PATCH {
        for gk in 0..3 {
            let gg: Vec<f64> = (0..PATCH).map(|a| G[a][gk]).collect();
            let bd: Vec<f64> = (0..PATCH).map(|a| BT[a][dk]).collect();
            for i in 0..TILE {
                let got: f64 = (0..PATCH).map(|a| AT[i][a] * gg[a] * bd[a]).sum();
                let want = if dk == i + gk { 1.0 } else { 0.0 };
                assert!((got - want).abs() < 1e-12, "d{dk} g{gk} y{i}: {got}");
            }
        }
    }
}

#[test]
fn written_out_transforms_equal_the_matrices() {
    for k in 0..PATCH {
        let unit: [Lane; PATCH] = std::array::from_fn(|i| Lane([if i == k { 1.0 } else { 0.0 }; L]));
        let b = bt(unit);
        let a = at(unit);
        for r in 0..PATCH {
            assert_eq!(b[r].0, [BT[r][k] as f32; L], "Bᵀ[{r}][{k}]");
        }
        for r in 0..TILE {
            assert_eq!(a[r].0, [AT[r][k] as f32; L], "Aᵀ[{r}][{k}]");
        }
    }
}

/// One test convolution (nchw, oihw filter, 3×3, stride 1).
#[derive(Clone, Copy, Debug)]
struct Case {
    n: usize,
    cin: usize,
    cout: usize,
    h: usize,
    w: usize,
    padding: [usize; 4],
}

impl Case {
    fn geom(&self) -> Geom {
        let [pt, pb, pl, pr] = self.padding;
        Geom {
            n: self.n,
            cin: self.cin,
            h: self.h,
            w: self.w,
            cout: self.cout,
            oh: self.h + pt + pb - 2,
            ow: self.w + pl + pr - 2,
            kh: 3,
            kw: 3,
            groups: 1,
            strides: [1, 1],
            dilations: [1, 1],
            padding: self.padding,
            nhwc: false,
        }
    }
}

const CASES: &[Case] = &[
    Case { n: 1, cin: 16, cout: 16, h: 8, w: 8, padding: [1, 1, 1, 1] },
    // output 9×11: partial tiles at both edges; batch 2; channels not multiples of 8
    Case { n: 2, cin: 17, cout: 19, h: 9, w: 11, padding: [1, 1, 1, 1] },
    // 1×1 output
    Case { n: 1, cin: 16, cout: 16, h: 3, w: 3, padding: [0; 4] },
    // asymmetric padding, no padding on some sides
    Case { n: 1, cin: 20, cout: 24, h: 13, w: 10, padding: [0, 2, 1, 0] },
    Case { n: 1, cin: 16, cout: 33, h: 10, w: 7, padding: [2, 2, 2, 2] },
    // padding wider than the window: outputs that see only zeros
    Case { n: 1, cin: 16, cout: 16, h: 3, w: 3, padding: [5, 4, 6, 5] },
    // several 16-tile steps per tile row (ow 70)
    Case { n: 1, cin: 24, cout: 16, h: 30, w: 70, padding: [1, 1, 1, 1] },
    // 32 input channels: Winograd on every CPU (below 32 the AVX-512 direct kernel takes them)
    Case { n: 1, cin: 32, cout: 16, h: 17, w: 17, padding: [1, 1, 1, 1] },
    // several blocks per image, batch 2
    Case { n: 2, cin: 64, cout: 72, h: 38, w: 41, padding: [1, 1, 1, 1] },
];

/// f64 direct convolution: the output and, per output, Σ|w·x| (the scale of its sum).
fn direct(c: &Case, x: &[f32], f: &[f32], bias: Option<&[f32]>) -> (Vec<f64>, Vec<f64>) {
    let g = c.geom();
    let (mut out, mut mag) = (Vec::new(), Vec::new());
    for n in 0..c.n {
        for o in 0..c.cout {
            for y in 0..g.oh {
                for xx in 0..g.ow {
                    let mut s = bias.map_or(0.0, |b| b[o] as f64);
                    let mut m = bias.map_or(0.0, |b| (b[o] as f64).abs());
                    for i in 0..c.cin {
                        for kh in 0..3 {
                            for kw in 0..3 {
                                let ih = (y + kh) as isize - c.padding[0] as isize;
                                let iw = (xx + kw) as isize - c.padding[2] as isize;
                                if ih < 0 || iw < 0 || ih >= c.h as isize || iw >= c.w as isize {
                                    continue;
                                }
                                let xv = x[((n * c.cin + i) * c.h + ih as usize) * c.w + iw as usize] as f64;
                                let p = xv * f[((o * c.cin + i) * 3 + kh) * 3 + kw] as f64;
                                s += p;
                                m += p.abs();
                            }
                        }
                    }
                    out.push(s);
                    mag.push(m);
                }
            }
        }
    }
    (out, mag)
}

/// max |got − want| / max scale.
fn error(got: &[f32], want: &[f64], scale: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let max_err = got.iter().zip(want).map(|(&a, &e)| (a as f64 - e).abs()).fold(0.0, f64::max);
    max_err / scale.iter().copied().fold(f64::MIN_POSITIVE, f64::max)
}

/// Fraction of outputs outside the WPT conv2d tolerance: 3·3·cin·2 ULP of the expected value.
fn wpt_misses(got: &[f32], want: &[f64], cin: usize) -> f64 {
    let ulp = |e: f32| (f32::from_bits(e.abs().to_bits() + 1) - e.abs()) as f64;
    let miss =
        got.iter().zip(want).filter(|&(&a, &e)| (a as f64 - e).abs() > (18 * cin) as f64 * ulp(e as f32)).count();
    miss as f64 / got.len().max(1) as f64
}

/// Runs a case through Winograd and im2col with `ep` (bound to `inputs`); returns both
/// outputs.
fn run_both(c: &Case, x: &[f32], f: &[f32], bias: Option<&[f32]>, ep: &BoundEpilogue<'_>) -> (Vec<f32>, Vec<f32>) {
    let g = c.geom();
    assert!(applies(&g));
    let mut packed = vec![0f32; f.len()];
    pack_conv_filter(Conv2dFilterOperandLayout::Oihw, &g, false, f, &mut packed);
    let wf = WinogradFilter::new(&g, &packed).expect("filter");
    let len = c.n * c.cout * g.oh * g.ow;
    let (mut ours, mut base) = (vec![f32::NAN; len], vec![f32::NAN; len]);
    conv(&g, x, &wf, bias, &mut ours, ep).expect("winograd");
    im2col_conv(&g, x, &packed, bias, &Default::default(), &mut base, ep).expect("im2col");
    (ours, base)
}

#[test]
fn winograd_matches_direct_f64_convolution() {
    // Error relative to the scale of the sums: max |ours − exact| / max Σ|w·x|.
    let (mut worst_w, mut worst_i) = (0f64, 0f64);
    for (k, c) in CASES.iter().enumerate() {
        let g = c.geom();
        let x = pseudo(c.n * c.cin * c.h * c.w, 10 + k as u32);
        let f = pseudo(c.cout * c.cin * 9, 20 + k as u32);
        let b = pseudo(c.cout, 30 + k as u32);
        for with_bias in [false, true] {
            let bias = with_bias.then_some(&b[..]);
            let (want, scale) = direct(c, &x, &f, bias);
            let none = Epilogue::default();
            let (ours, base) = run_both(c, &x, &f, bias, &none.bind(&[]));
            let (ew, ei) = (error(&ours, &want, &scale), error(&base, &want, &scale));
            let (mw, mi) = (wpt_misses(&ours, &want, c.cin), wpt_misses(&base, &want, c.cin));
            println!("{c:?} bias={with_bias}: winograd {ew:.2e}, im2col {ei:.2e} (oh {} ow {}); outside the WPT tolerance: winograd {:.2}%, im2col {:.2}%", g.oh, g.ow, mw * 100.0, mi * 100.0);
            worst_w = worst_w.max(ew);
            worst_i = worst_i.max(ei);
        }
    }
    println!("worst: winograd {worst_w:.2e}, im2col {worst_i:.2e}");
    assert!(worst_w < 3e-6, "winograd error {worst_w:e}");
}

#[test]
fn winograd_applies_the_epilogue_to_every_output_once() {
    // conv + bias, + residual, relu: the same steps as im2col's, on outputs that match the
    // direct convolution.
    for (k, c) in CASES.iter().enumerate() {
        let g = c.geom();
        let len = c.n * c.cout * g.oh * g.ow;
        let x = pseudo(c.n * c.cin * c.h * c.w, 40 + k as u32);
        let f = pseudo(c.cout * c.cin * 9, 50 + k as u32);
        let b = pseudo(c.cout, 60 + k as u32);
        let r: Vec<f32> = pseudo(len, 70 + k as u32).iter().map(|v| v * 4.0).collect();
        let desc = OperandDescriptor::new(DataType::Float32, vec![len as u32]);
        let inputs = [Some(In { desc: &desc, bytes: bytemuck::cast_slice(&r) })];
        let ep = Epilogue {
            steps: [
                EpilogueStep::Binary { op: EpilogueBinary::Add, input: 0, inner: 1, len },
                EpilogueStep::Activation(Activation::Relu),
            ]
            .into_iter()
            .collect(),
        };
        let (want, scale) = direct(c, &x, &f, Some(&b));
        let want: Vec<f64> = want.iter().zip(&r).map(|(&y, &r)| (y + r as f64).max(0.0)).collect();
        let scale: Vec<f64> = scale.iter().zip(&r).map(|(&s, &r)| s + (r as f64).abs()).collect();
        let (ours, base) = run_both(c, &x, &f, Some(&b), &ep.bind(&inputs));
        let (ew, ei) = (error(&ours, &want, &scale), error(&base, &want, &scale));
        assert!(ew < 3e-6 && ei < 1e-6, "{c:?}: winograd {ew:e}, im2col {ei:e}");
    }
}

#[test]
fn winograd_results_do_not_depend_on_the_thread_count() {
    // Blocks split across threads (7), and blocks fewer than the threads, whose transforms
    // and 36 products are split inside the block instead (1: two images of one block; 6).
    for c in [CASES[7], CASES[1], CASES[6]] {
        let x = pseudo(c.n * c.cin * c.h * c.w, 5);
        let f = pseudo(c.cout * c.cin * 9, 6);
        let b = pseudo(c.cout, 7);
        let none = Epilogue::default();
        let runs: Vec<Vec<f32>> = [1, 2, 3, 8]
            .iter()
            .map(|&t| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
                pool.install(|| run_both(&c, &x, &f, Some(&b), &none.bind(&[])).0)
            })
            .collect();
        assert!(runs.iter().all(|r| r.iter().zip(&runs[0]).all(|(a, b)| a.to_bits() == b.to_bits())), "{c:?}");
    }
}

#[test]
fn conv2d_lowering_takes_winograd_for_its_shapes() {
    // Through the kernel (constant filter, float32, nchw): matches the direct convolution.
    // `run_float` dispatches on a 2-thread pool: single-image cases (one block) take the
    // im2col fallback there, the batch-2 case (two blocks) Winograd.
    use crate::testing::constant_operands::run_float;
    use webnn_core::graph::Attrs;
    use webnn_core::types::InputOperandLayout;
    use webnn_core::OpKind;
    let chosen: Vec<&Case> = CASES.iter().filter(|c| pays(&c.geom())).collect();
    assert!(chosen.len() >= 2);
    for c in chosen {
        let g = c.geom();
        let x = pseudo(c.n * c.cin * c.h * c.w, 1);
        let f = pseudo(c.cout * c.cin * 9, 2);
        let b = pseudo(c.cout, 3);
        let (want, scale) = direct(c, &x, &f, Some(&b));
        let attrs = Attrs::Conv2d {
            padding: c.padding.map(|v| v as u32),
            strides: [1, 1],
            dilations: [1, 1],
            groups: 1,
            input_layout: InputOperandLayout::Nchw,
            filter_layout: Conv2dFilterOperandLayout::Oihw,
        };
        let s = |v: [usize; 4]| v.map(|d| d as u32);
        let got = run_float(
            OpKind::Conv2d,
            DataType::Float32,
            &[
                Some((&s([c.n, c.cin, c.h, c.w]), &x, false)),
                Some((&s([c.cout, c.cin, 3, 3]), &f, true)),
                Some((&[c.cout as u32], &b, true)),
            ],
            attrs,
            &s([c.n, c.cout, g.oh, g.ow]),
        );
        let e = error(&got, &want, &scale);
        assert!(e < 3e-6, "{c:?}: {e:e}");
    }
}
