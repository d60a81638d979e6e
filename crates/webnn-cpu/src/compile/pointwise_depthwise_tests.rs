//! Tests of pointwise → depthwise fusion: which pairs fuse, and fused results against a
//! straightforward f64 evaluation of the same block, on two threads.
//!
//! The fused step is not the two steps apart bit for bit: a band's GEMM has other column
//! tails than the whole plane's, and the narrow tail kernel sums a dot product in four
//! partial sums. Both stay within the forward error bound of the dot products they compute,
//! which is what these tests check (and the measured worst case is printed).

use super::super::{NodeKind, Program};
use crate::testing::graphs::*;
use webnn_core::types::InputOperandLayout;
use webnn_core::{ClampOptions, Conv2dOptions, Graph, GraphBuilder, Operand};

/// An activation of the block, in the graph and in f64.
#[derive(Clone, Copy, PartialEq)]
enum Act {
    None,
    Relu6,
    /// `x · sigmoid(x)` (the pattern pass's swish).
    Swish,
}

impl Act {
    fn build(self, b: &mut GraphBuilder, x: Operand) -> Operand {
        match self {
            Act::None => x,
            Act::Relu6 => {
                let options =
                    ClampOptions { min_value: Some(0.0.into()), max_value: Some(6.0.into()), ..Default::default() };
                b.clamp(&x, &options).unwrap()
            }
            Act::Swish => {
                let s = b.sigmoid(&x, &opts()).unwrap();
                b.mul(&x, &s, &opts()).unwrap()
            }
        }
    }

    fn eval(self, x: f64) -> f64 {
        match self {
            Act::None => x,
            Act::Relu6 => x.clamp(0.0, 6.0),
            Act::Swish => x / (1.0 + (-x).exp()),
        }
    }
}

/// An inverted-residual pair: x [n, cin, h, w] → 1×1 conv to `c` channels → `pw_act` →
/// depthwise `k`×`k` conv (bias) → (+ residual input) → `dw_act`.
#[derive(Clone)]
struct Block {
    shape: [u32; 4],
    c: u32,
    pw_bias: bool,
    pw_act: Act,
    k: u32,
    stride: u32,
    dilation: u32,
    padding: [u32; 4],
    residual: bool,
    dw_act: Act,
}

impl Block {
    fn new(shape: [u32; 4], c: u32, k: u32, stride: u32, padding: [u32; 4]) -> Block {
        Block {
            shape,
            c,
            pw_bias: true,
            pw_act: Act::Relu6,
            k,
            stride,
            dilation: 1,
            padding,
            residual: false,
            dw_act: Act::Relu6,
        }
    }

    fn out_hw(&self) -> (usize, usize) {
        let [_, _, h, w] = self.shape.map(|d| d as usize);
        let [pt, pb, pl, pr] = self.padding.map(|d| d as usize);
        let reach = (self.k as usize - 1) * self.dilation as usize + 1;
        let s = self.stride as usize;
        ((h + pt + pb - reach) / s + 1, (w + pl + pr - reach) / s + 1)
    }

    /// Filters and biases: pointwise filter, bias, depthwise filter, bias.
    fn params(&self) -> [Vec<f32>; 4] {
        let (cin, c, kk) = (self.shape[1] as usize, self.c as usize, (self.k * self.k) as usize);
        [values(c * cin, 1, 0.5), values(c, 2, 0.5), values(c * kk, 3, 0.5), values(c, 4, 0.5)]
    }

    fn inputs(&self) -> Vec<Vec<f32>> {
        let len = |s: &[u32]| s.iter().product::<u32>() as usize;
        let mut v = vec![values(len(&self.shape), 10, 2.0)];
        if self.residual {
            let (oh, ow) = self.out_hw();
            v.push(values(self.shape[0] as usize * self.c as usize * oh * ow, 11, 2.0));
        }
        v
    }

    /// The graph; with `mid_output` the pointwise result is a second output (which blocks
    /// the fusion).
    fn graph(&self, mid_output: bool) -> Graph {
        let mut b = builder();
        let [pw_w, pw_b, dw_w, dw_b] = self.params();
        let (cin, c, k) = (self.shape[1], self.c, self.k);
        let constant =
            |b: &mut GraphBuilder, shape: &[u32], v: &[f32]| b.constant(&f32_desc(shape), &f32_bytes(v)).unwrap();
        let x = b.input("x", &f32_desc(&self.shape)).unwrap();
        let filter = constant(&mut b, &[c, cin, 1, 1], &pw_w);
        let bias = self.pw_bias.then(|| constant(&mut b, &[c], &pw_b));
        let p = b.conv2d(&x, &filter, &Conv2dOptions { bias, ..Conv2dOptions::new() }).unwrap();
        let mid = self.pw_act.build(&mut b, p);
        let filter = constant(&mut b, &[c, 1, k, k], &dw_w);
        let bias = constant(&mut b, &[c], &dw_b);
        let options = Conv2dOptions {
            padding: Some(self.padding.to_vec()),
            strides: Some(vec![self.stride; 2]),
            dilations: Some(vec![self.dilation; 2]),
            groups: c,
            bias: Some(bias),
            ..Conv2dOptions::new()
        };
        let mut y = b.conv2d(&mid, &filter, &options).unwrap();
        if self.residual {
            let (oh, ow) = self.out_hw();
            let r = b.input("r", &f32_desc(&[self.shape[0], c, oh as u32, ow as u32])).unwrap();
            y = b.add(&y, &r, &opts()).unwrap();
        }
        let y = self.dw_act.build(&mut b, y);
        if mid_output {
            b.build(&[("y", &y), ("mid", &mid)]).unwrap()
        } else {
            b.build(&[("y", &y)]).unwrap()
        }
    }

    /// The output in f64, and per element the bound on a float32 evaluation's error: the
    /// forward error of the two dot products (n·u·Σ|terms|, n their length plus the bias and
    /// the residual), the pointwise values' own bound (and the activation's few ULP) carried
    /// through the depthwise taps.
    fn reference(&self, inputs: &[Vec<f32>]) -> (Vec<f64>, Vec<f64>) {
        let [n, cin, h, w] = self.shape.map(|d| d as usize);
        let (c, k) = (self.c as usize, self.k as usize);
        let (oh, ow) = self.out_hw();
        let [pt, _, pl, _] = self.padding.map(|d| d as usize);
        let (s, dl) = (self.stride as usize, self.dilation as usize);
        let [pw_w, pw_b, dw_w, dw_b] = self.params().map(|v| v.iter().map(|&x| x as f64).collect::<Vec<_>>());
        let x: Vec<f64> = inputs[0].iter().map(|&v| v as f64).collect();
        let u = f64::powi(2.0, -24);
        let (mut mid, mut mid_err) = (vec![0f64; n * c * h * w], vec![0f64; n * c * h * w]);
        for img in 0..n {
            for ch in 0..c {
                for p in 0..h * w {
                    let terms = (0..cin).map(|i| pw_w[ch * cin + i] * x[(img * cin + i) * h * w + p]);
                    let b = if self.pw_bias { pw_b[ch] } else { 0.0 };
                    let (sum, mag) = terms.fold((b, b.abs()), |(s, m), t| (s + t, m + t.abs()));
                    let v = self.pw_act.eval(sum);
                    let at = (img * c + ch) * h * w + p;
                    mid[at] = v;
                    // An activation is 1-Lipschitz here (relu6; swish's slope ≤ 1.1) and
                    // adds at most 8 ULP of its result.
                    mid_err[at] = 1.1 * (cin + 2) as f64 * u * mag + 8.0 * u * v.abs();
                }
            }
        }
        let (mut out, mut bound) = (vec![0f64; n * c * oh * ow], vec![0f64; n * c * oh * ow]);
        for img in 0..n {
            for ch in 0..c {
                let plane = (img * c + ch) * h * w;
                for (oy, ox) in (0..oh).flat_map(|y| (0..ow).map(move |x| (y, x))) {
                    let (mut sum, mut mag, mut carried) = (dw_b[ch], dw_b[ch].abs(), 0.0);
                    for (ky, kx) in (0..k).flat_map(|y| (0..k).map(move |x| (y, x))) {
                        let (iy, ix) = ((oy * s + ky * dl).wrapping_sub(pt), (ox * s + kx * dl).wrapping_sub(pl));
                        if iy < h && ix < w {
                            let wt = dw_w[ch * k * k + ky * k + kx];
                            sum += wt * mid[plane + iy * w + ix];
                            mag += (wt * mid[plane + iy * w + ix]).abs();
                            carried += wt.abs() * mid_err[plane + iy * w + ix];
                        }
                    }
                    let at = (img * c + ch) * oh * ow + oy * ow + ox;
                    if self.residual {
                        sum += inputs[1][at] as f64;
                        mag += (inputs[1][at] as f64).abs();
                    }
                    out[at] = self.dw_act.eval(sum);
                    bound[at] = 1.1 * (carried + (k * k + 3) as f64 * u * mag) + 8.0 * u * out[at].abs() + 1e-30;
                }
            }
        }
        (out, bound)
    }
}

fn fused_steps(graph: &Graph) -> usize {
    let program = Program::compile(graph).1;
    program.nodes.iter().filter(|n| matches!(n.kind, NodeKind::PointwiseDepthwise(_))).count()
}

/// Checks that `block` fuses (and not with its pointwise result also an output), and that the
/// fused and the unfused results both lie within the reference's error bound.
fn check(what: &str, block: &Block) {
    let (fused, apart) = (block.graph(false), block.graph(true));
    assert_eq!(fused_steps(&fused), 1, "{what}: {}", Program::compile(&fused).1.dump(&fused));
    assert_eq!(fused_steps(&apart), 0, "{what}");
    let inputs = block.inputs();
    let bytes: Vec<Vec<u8>> = inputs.iter().map(|v| f32_bytes(v)).collect();
    let ins: Vec<&[u8]> = bytes.iter().map(|v| v.as_slice()).collect();
    let (want, bound) = block.reference(&inputs);
    for (name, graph) in [("fused", &fused), ("apart", &apart)] {
        let got = f32_values(&run_graph(graph, &ins)[0]);
        assert_eq!(got.len(), want.len(), "{what}");
        let mut worst = 0f64;
        for (i, ((&g, &r), &e)) in got.iter().zip(&want).zip(&bound).enumerate() {
            let err = (g as f64 - r).abs();
            assert!(err <= e, "{what}, {name}: element {i}: {g}, reference {r}, error {err:e} > bound {e:e}");
            worst = worst.max(err / e);
        }
        eprintln!("{what}, {name}: worst error {worst:.3} of the bound");
    }
}

#[test]
fn fused_pairs_stay_within_the_error_bound_of_the_two_convs() {
    // 24 channels of 100×111 (1.07 MB): several bands, and on two threads a full chunk of 16
    // channels and a partial one of 8.
    let x = [1, 8, 100, 111];
    check("3x3 stride 1", &Block::new(x, 24, 3, 1, [1; 4]));
    check("3x3 stride 2, padded after only", &Block::new(x, 24, 3, 2, [0, 1, 0, 1]));
    check("5x5 stride 2", &Block::new(x, 24, 5, 2, [2; 4]));
    check("3x3 dilation 2, unpadded", &Block { dilation: 2, ..Block::new(x, 24, 3, 1, [0; 4]) });
    // Swish (the pattern pass's activation), no pointwise bias, no depthwise activation.
    check("swish", &Block { pw_bias: false, pw_act: Act::Swish, dw_act: Act::None, ..Block::new(x, 24, 3, 2, [1; 4]) });
    // No pointwise activation; a residual the depthwise epilogue reads (slot 5), then relu6.
    check("residual", &Block { pw_act: Act::None, residual: true, ..Block::new(x, 24, 3, 1, [1; 4]) });
    // Two images, 40 channels.
    check("batch 2", &Block::new([2, 16, 64, 256], 40, 3, 1, [1; 4]));
}

#[test]
fn what_must_not_fuse() {
    let fuses = |block: &Block| fused_steps(&block.graph(false));
    let base = Block::new([1, 8, 100, 111], 24, 3, 1, [1; 4]);
    assert_eq!(fuses(&base), 1);
    // An expanded tensor under 1 MiB (it stays in cache between two steps).
    assert_eq!(fuses(&Block { shape: [1, 8, 56, 56], ..base.clone() }), 0);
    // Padding beyond the window's reach (an output row could read only padding).
    assert_eq!(fuses(&Block { padding: [3, 3, 1, 1], ..base.clone() }), 0);
    // The pointwise result read twice.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, 8, 100, 111])).unwrap();
    let constant = |b: &mut GraphBuilder, shape: &[u32]| {
        let d = f32_desc(shape);
        b.constant(&d, &f32_bytes(&values(d.len(), 1, 0.5))).unwrap()
    };
    let filter = constant(&mut b, &[24, 8, 1, 1]);
    let p = b.conv2d(&x, &filter, &Conv2dOptions::new()).unwrap();
    let filter = constant(&mut b, &[24, 1, 3, 3]);
    let options = Conv2dOptions { padding: Some(vec![1; 4]), groups: 24, ..Conv2dOptions::new() };
    let d = b.conv2d(&p, &filter, &options).unwrap();
    let y = b.add(&d, &p, &opts()).unwrap();
    assert_eq!(fused_steps(&b.build(&[("y", &y)]).unwrap()), 0);
    // A 3×3 conv instead of the pointwise one.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, 8, 100, 111])).unwrap();
    let filter = constant(&mut b, &[24, 8, 3, 3]);
    let p = b.conv2d(&x, &filter, &Conv2dOptions { padding: Some(vec![1; 4]), ..Conv2dOptions::new() }).unwrap();
    let filter = constant(&mut b, &[24, 1, 3, 3]);
    let y = b.conv2d(&p, &filter, &options).unwrap();
    assert_eq!(fused_steps(&b.build(&[("y", &y)]).unwrap()), 0);
    // nhwc.
    let mut b = builder();
    let x = b.input("x", &f32_desc(&[1, 100, 111, 8])).unwrap();
    let nhwc = |groups, pad| Conv2dOptions {
        input_layout: InputOperandLayout::Nhwc,
        filter_layout: webnn_core::types::Conv2dFilterOperandLayout::Ohwi,
        padding: Some(vec![pad; 4]),
        groups,
        ..Conv2dOptions::new()
    };
    let filter = constant(&mut b, &[24, 1, 1, 8]);
    let p = b.conv2d(&x, &filter, &nhwc(1, 0)).unwrap();
    let filter = constant(&mut b, &[24, 3, 3, 1]);
    let y = b.conv2d(&p, &filter, &nhwc(24, 1)).unwrap();
    assert_eq!(fused_steps(&b.build(&[("y", &y)]).unwrap()), 0);
}
