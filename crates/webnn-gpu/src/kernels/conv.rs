//! Convolutions: `conv2d` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-conv2d)) and
//! `convTranspose2d` ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-convtranspose2d)),
//! float32 and float16 (computed in f32, rounded to f16 once when stored), every input layout
//! (nchw, nhwc) and filter layout, groups, padding, strides, dilations and the optional bias.
//!
//! Design: two paths sharing the same WGSL accessors — `x_at(b, ic, oh, ow, kh, kw)`, the
//! input element that filter tap (kh, kw) of output pixel (oh, ow) reads (0 in the padding,
//! and for convTranspose2d where the tap falls between the strided input pixels), and
//! `w_at(group, local oc, local ic, kh, kw)`, the filter element in any layout:
//! - implicit GEMM (when a group has at least 8 output channels and 8 taps·channels): per
//!   group, `out[oc][pixel] = Σ_k W[oc][k] · X[k][pixel]` with k = (ic, kh, kw), through the
//!   tiled kernel of `matmul.rs`, the im2col matrix never stored (its tile is gathered into
//!   workgroup memory). nhwc computes the transposed product (pixels × output channels) so
//!   that channels, contiguous in nhwc, are the fast index of loads and stores;
//!   convTranspose2d is the same product with the gather form of `x_at`.
//! - direct (depthwise and other narrow groups): one invocation per output element, an
//!   `fma` loop over the group's input channels and the filter taps.
//!
//! Numerics: each output is one f32 `fma` chain over (ic, kh, kw) (nchw) or (kh, kw, ic)
//! (nhwc implicit GEMM), plus the bias: the straightforward definition.

use super::matmul::{tiled, Tiled};
use super::{Lowering, Slot, Task, Work};
use crate::wgsl::{self, Binding};
use webnn_core::graph::{Attrs, Operation};
use webnn_core::{
    Conv2dFilterOperandLayout as FL, ConvTranspose2dFilterOperandLayout as TL, DataType, Error, InputOperandLayout,
    OpKind, Result,
};

/// Whether this family executes `member` of `op` with `dt` (a type the GPU stores).
pub(super) fn executes(op: OpKind, member: &str, dt: DataType) -> bool {
    let _ = member;
    matches!(op, OpKind::Conv2d | OpKind::ConvTranspose2d) && matches!(dt, DataType::Float32 | DataType::Float16)
}

/// The filter layout of either op.
#[derive(Clone, Copy)]
enum Layout {
    Conv(FL),
    Transpose(TL),
}

/// The geometry of a convolution (sizes of the input, output, filter; options).
struct Geom {
    nhwc: bool,
    layout: Layout,
    cin: u32,
    h: u32,
    w: u32,
    cout: u32,
    oh: u32,
    ow: u32,
    kh: u32,
    kw: u32,
    groups: u32,
    strides: [u32; 2],
    dilations: [u32; 2],
    /// [beginH, endH, beginW, endW]
    padding: [u32; 4],
}

impl Geom {
    fn cig(&self) -> u32 {
        self.cin / self.groups
    }
    fn cog(&self) -> u32 {
        self.cout / self.groups
    }

    /// The WGSL helpers: `x_at`, `w_at`, `y_index`, `k_split`, `p_split`.
    fn helpers(&self, dt: DataType) -> String {
        let (cig, cog, cin, cout) = (self.cig(), self.cog(), self.cin, self.cout);
        let (kh, kw, h, w, oh, ow) = (self.kh, self.kw, self.h, self.w, self.oh, self.ow);
        let [sh, sw] = self.strides;
        let [dh, dw] = self.dilations;
        let (pt, pl) = (self.padding[0], self.padding[2]);
        let x_index = if self.nhwc {
            format!("((b * {h}u + ih) * {w}u + iw) * {cin}u + ic")
        } else {
            format!("((b * {cin}u + ic) * {h}u + ih) * {w}u + iw")
        };
        let y_index = if self.nhwc {
            format!("((b * {oh}u + oh) * {ow}u + ow) * {cout}u + oc")
        } else {
            format!("((b * {cout}u + oc) * {oh}u + oh) * {ow}u + ow")
        };
        // Exact in u32: `lower` checks that H + padding (conv2d) and OH + padding
        // (convTranspose2d) stay below 2^32, which bounds every sum below.
        let position = match self.layout {
            Layout::Conv(_) => format!(
                "let ph = oh * {sh}u + kh * {dh}u;\n\
                 let pw = ow * {sw}u + kw * {dw}u;\n\
                 if (ph < {pt}u || pw < {pl}u) {{ return 0.0; }}\n\
                 let ih = ph - {pt}u;\nlet iw = pw - {pl}u;"
            ),
            Layout::Transpose(_) => format!(
                "let qh = oh + {pt}u;\nlet qw = ow + {pl}u;\nlet eh = kh * {dh}u;\nlet ew = kw * {dw}u;\n\
                 if (qh < eh || qw < ew) {{ return 0.0; }}\n\
                 if ((qh - eh) % {sh}u != 0u || (qw - ew) % {sw}u != 0u) {{ return 0.0; }}\n\
                 let ih = (qh - eh) / {sh}u;\nlet iw = (qw - ew) / {sw}u;"
            ),
        };
        // Filter element (global output channel o / global input channel i as the layout needs).
        let w_index = match self.layout {
            Layout::Conv(l) => {
                let o = format!("(g * {cog}u + ocl)");
                match l {
                    FL::Oihw => format!("(({o} * {cig}u + icl) * {kh}u + kh) * {kw}u + kw"),
                    FL::Hwio => format!("((kh * {kw}u + kw) * {cig}u + icl) * {cout}u + {o}"),
                    FL::Ohwi => format!("(({o} * {kh}u + kh) * {kw}u + kw) * {cig}u + icl"),
                    FL::Ihwo => format!("((icl * {kh}u + kh) * {kw}u + kw) * {cout}u + {o}"),
                }
            }
            Layout::Transpose(l) => {
                let i = format!("(g * {cig}u + icl)");
                match l {
                    TL::Iohw => format!("(({i} * {cog}u + ocl) * {kh}u + kh) * {kw}u + kw"),
                    TL::Hwoi => format!("((kh * {kw}u + kw) * {cog}u + ocl) * {cin}u + {i}"),
                    TL::Ohwi => format!("((ocl * {kh}u + kh) * {kw}u + kw) * {cin}u + {i}"),
                }
            }
        };
        let taps = kh * kw;
        let k_split = if self.nhwc {
            format!("let r = k / {cig}u;\nreturn vec3<u32>(k % {cig}u, r / {kw}u, r % {kw}u);")
        } else {
            format!("let r = k % {taps}u;\nreturn vec3<u32>(k / {taps}u, r / {kw}u, r % {kw}u);")
        };
        let plane = oh * ow;
        format!(
            "\nfn x_at(b: u32, ic: u32, oh: u32, ow: u32, kh: u32, kw: u32) -> f32 {{\n{position}\n\
             if (ih >= {h}u || iw >= {w}u) {{ return 0.0; }}\nreturn {};\n}}\n\
             fn w_at(g: u32, ocl: u32, icl: u32, kh: u32, kw: u32) -> f32 {{\nreturn {};\n}}\n\
             fn y_index(b: u32, oc: u32, oh: u32, ow: u32) -> u32 {{\nreturn {y_index};\n}}\n\
             fn k_split(k: u32) -> vec3<u32> {{\n{k_split}\n}}\n\
             fn p_split(p: u32) -> vec3<u32> {{\nlet r = p % {plane}u;\nreturn vec3<u32>(p / {plane}u, r / {ow}u, r % {ow}u);\n}}\n",
            wgsl::load(dt, "x_", &x_index),
            wgsl::load(dt, "w_", &w_index),
        )
    }
}

/// Lowers an op of this family, or None if `op` is not one.
pub(super) fn lower(op: &Operation, l: &Lowering) -> Result<Option<Work>> {
    let (padding, strides, dilations, groups, input_layout, layout) = match (op.kind, &op.attrs) {
        (OpKind::Conv2d, &Attrs::Conv2d { padding, strides, dilations, groups, input_layout, filter_layout }) => {
            (padding, strides, dilations, groups, input_layout, Layout::Conv(filter_layout))
        }
        (
            OpKind::ConvTranspose2d,
            &Attrs::ConvTranspose2d { padding, strides, dilations, groups, input_layout, filter_layout },
        ) => (padding, strides, dilations, groups, input_layout, Layout::Transpose(filter_layout)),
        (OpKind::Conv2d | OpKind::ConvTranspose2d, _) => {
            return Err(Error::unknown(format!("{}: missing attributes", op.kind)))
        }
        _ => return Ok(None),
    };
    let (x, f, y) = (l.input(op, 0)?, l.input(op, 1)?, op.outputs[0]);
    let bias = op.input(2);
    let dt = l.data_type(y);
    let (xs, fs, ys) = (l.shape(x), l.shape(f), l.shape(y));
    if xs.len() != 4 || fs.len() != 4 || ys.len() != 4 {
        return Err(Error::unknown(format!("{}: operands must have rank 4", op.kind)));
    }
    let nhwc = input_layout == InputOperandLayout::Nhwc;
    let (batches, cin, h, w) = if nhwc { (xs[0], xs[3], xs[1], xs[2]) } else { (xs[0], xs[1], xs[2], xs[3]) };
    let (cout, oh, ow) = if nhwc { (ys[3], ys[1], ys[2]) } else { (ys[1], ys[2], ys[3]) };
    let (kh, kw) = match layout {
        Layout::Conv(FL::Oihw) | Layout::Transpose(TL::Iohw) => (fs[2], fs[3]),
        Layout::Conv(FL::Hwio) | Layout::Transpose(TL::Hwoi) => (fs[0], fs[1]),
        Layout::Conv(FL::Ohwi | FL::Ihwo) | Layout::Transpose(TL::Ohwi) => (fs[1], fs[2]),
    };
    let g = Geom {
        nhwc,
        layout,
        cin,
        h,
        w,
        cout,
        oh,
        ow,
        kh,
        kw,
        groups,
        strides: strides.map(|s| s.max(1)),
        dilations,
        padding,
    };
    if groups == 0 || cin % groups != 0 || cout % groups != 0 || strides.contains(&0) {
        return Err(Error::unknown(format!("{}: channels not divisible by groups", op.kind)));
    }
    // The u32 position arithmetic of `x_at` is exact below these bounds.
    let extent = |size: u32, begin: u32, end: u32| size as u64 + begin as u64 + end as u64;
    let (span_h, span_w) = match layout {
        Layout::Conv(_) => (extent(h, padding[0], padding[1]), extent(w, padding[2], padding[3])),
        Layout::Transpose(_) => (extent(oh, padding[0], padding[1]), extent(ow, padding[2], padding[3])),
    };
    if span_h >= 1 << 32 || span_w >= 1 << 32 {
        return Err(Error::not_supported(format!("{}: padding too large for the GPU kernel", op.kind)));
    }
    let filter_len = g.cig() as u64 * g.cout as u64 * kh as u64 * kw as u64;
    if l.elements(f) != filter_len || bias.is_some_and(|b| l.elements(b) != cout as u64) {
        return Err(Error::unknown(format!("{}: filter or bias size does not match", op.kind)));
    }
    let mut bindings = vec![Binding::read("x_", dt), Binding::read("w_", dt)];
    let mut slots = vec![Slot::Operand(x), Slot::Operand(f)];
    let bias_of = |oc: &str| match bias {
        Some(_) => format!(" + {}", wgsl::load(dt, "bias_", oc)),
        None => String::new(),
    };
    if let Some(b) = bias {
        bindings.push(Binding::read("bias_", dt));
        slots.push(Slot::Operand(b));
    }
    bindings.push(Binding::write("y_", dt));
    slots.push(Slot::Operand(y));
    let helpers = format!("{}{}", g.helpers(dt), l.epilogue_helpers());
    let (cig, cog) = (g.cig(), g.cog());
    let taps = cig as u64 * kh as u64 * kw as u64;
    let pixels = batches as u64 * oh as u64 * ow as u64;
    let label = op.kind.idl_name();
    let kernel = if cog >= 8 && taps >= 8 && taps <= u32::MAX as u64 && pixels <= u32::MAX as u64 {
        let (pixels, taps) = (pixels as u32, taps as u32);
        let store = |pixel: &str, channel: &str| {
            format!(
                "let p = p_split({pixel});\nlet oc = z * {cog}u + {channel};\n{}",
                wgsl::store(dt, "y_", "y_index(p.x, oc, p.y, p.z)", &l.activated(&format!("v{}", bias_of("oc"))))
            )
        };
        let im2col = |pixel: &str| {
            format!(
                "let q = k_split(gk);\nlet p = p_split({pixel});\nv = x_at(p.x, z * {cig}u + q.x, p.y, p.z, q.y, q.z);"
            )
        };
        let weight = |channel: &str| format!("let q = k_split(gk);\nv = w_at(z, {channel}, q.x, q.y, q.z);");
        // Whether consecutive output channels of the filter are adjacent in memory.
        let o_fast = matches!(layout, Layout::Conv(FL::Hwio | FL::Ihwo));
        let t = if nhwc {
            Tiled {
                label: label.into(),
                bindings,
                slots,
                helpers,
                batches: groups as u64,
                m: pixels,
                n: cog,
                k: taps,
                prologue: String::new(),
                load_a: im2col("gm"),
                load_b: weight("gn"),
                store: store("gm", "gn"),
                a_k_fast: true,
                b_n_fast: o_fast,
            }
        } else {
            Tiled {
                label: label.into(),
                bindings,
                slots,
                helpers,
                batches: groups as u64,
                m: cog,
                n: pixels,
                k: taps,
                prologue: String::new(),
                load_a: weight("gm"),
                load_b: im2col("gn"),
                store: store("gn", "gm"),
                a_k_fast: !o_fast,
                b_n_fast: true,
            }
        };
        tiled(l, t)?
    } else {
        let coords = wgsl::coordinates(ys, "i");
        let names = if nhwc {
            "let b = c0; let oh = c1; let ow = c2; let oc = c3;"
        } else {
            "let b = c0; let oc = c1; let oh = c2; let ow = c3;"
        };
        let body = format!(
            "{coords}{names}\nlet g = oc / {cog}u;\nlet ocl = oc % {cog}u;\nvar acc: f32 = 0.0;\n\
             for (var icl: u32 = 0u; icl < {cig}u; icl++) {{\n  let ic = g * {cig}u + icl;\n  \
             for (var kh: u32 = 0u; kh < {kh}u; kh++) {{\n    for (var kw: u32 = 0u; kw < {kw}u; kw++) {{\n      \
             acc = fma(x_at(b, ic, oh, ow, kh, kw), w_at(g, ocl, icl, kh, kw), acc);\n    }}\n  }}\n}}\n\
             return {};",
            l.activated(&format!("acc{}", bias_of("oc")))
        );
        l.per_element(label, &bindings, slots, &helpers, &body, l.elements(y))
    };
    Ok(Some(Work { scratch: vec![], tasks: vec![Task::Kernel(kernel)] }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{backend, check_within, data, run_typed, time};
    use webnn_core::backend::Backend;
    use webnn_core::{Conv2dOptions, ConvTranspose2dOptions};

    /// One convolution to check against a reference computed in f64.
    struct Case {
        transpose: bool,
        nhwc: bool,
        conv_layout: FL,
        convt_layout: TL,
        /// [N, Cin, H, W]
        input: [u32; 4],
        cout: u32,
        kernel: [u32; 2],
        groups: u32,
        padding: [u32; 4],
        strides: [u32; 2],
        dilations: [u32; 2],
        output_padding: [u32; 2],
        bias: bool,
    }

    fn conv() -> Case {
        Case {
            transpose: false,
            nhwc: false,
            conv_layout: FL::Oihw,
            convt_layout: TL::Iohw,
            input: [1, 1, 1, 1],
            cout: 1,
            kernel: [1, 1],
            groups: 1,
            padding: [0; 4],
            strides: [1, 1],
            dilations: [1, 1],
            output_padding: [0, 0],
            bias: false,
        }
    }

    fn check_case(c: &Case) {
        check_typed(c, DataType::Float32);
    }

    fn check_typed(c: &Case, dt: DataType) {
        let Some(gpu) = backend() else { return };
        let [n, cin, h, w] = c.input.map(|v| v as usize);
        let [kh, kw] = c.kernel.map(|v| v as usize);
        let (cout, groups) = (c.cout as usize, c.groups as usize);
        let (cig, cog) = (cin / groups, cout / groups);
        let [sh, sw] = c.strides.map(|v| v as usize);
        let [dh, dw] = c.dilations.map(|v| v as usize);
        let [pt, pb, pl, pr] = c.padding.map(|v| v as usize);
        let (oh, ow) = if c.transpose {
            (
                (h - 1) * sh + (kh - 1) * dh + 1 - pt - pb + c.output_padding[0] as usize,
                (w - 1) * sw + (kw - 1) * dw + 1 - pl - pr + c.output_padding[1] as usize,
            )
        } else {
            ((h + pt + pb - (kh - 1) * dh - 1) / sh + 1, (w + pl + pr - (kw - 1) * dw - 1) / sw + 1)
        };
        let u = |v: usize| v as u32;
        let x_shape = if c.nhwc { vec![u(n), u(h), u(w), u(cin)] } else { vec![u(n), u(cin), u(h), u(w)] };
        // Filter shape and the index of (global oc, local ic) for conv2d, (global ic, local oc)
        // for convTranspose2d, as the CPU engine's conv_filter_index / convt_filter_index.
        type Index = Box<dyn Fn(usize, usize, usize, usize) -> usize>;
        let (f_shape, f_index): (Vec<u32>, Index) = if c.transpose {
            match c.convt_layout {
                TL::Iohw => {
                    (vec![u(cin), u(cog), u(kh), u(kw)], Box::new(move |i, o, y, x| ((i * cog + o) * kh + y) * kw + x))
                }
                TL::Hwoi => {
                    (vec![u(kh), u(kw), u(cog), u(cin)], Box::new(move |i, o, y, x| ((y * kw + x) * cog + o) * cin + i))
                }
                TL::Ohwi => {
                    (vec![u(cog), u(kh), u(kw), u(cin)], Box::new(move |i, o, y, x| ((o * kh + y) * kw + x) * cin + i))
                }
            }
        } else {
            match c.conv_layout {
                FL::Oihw => {
                    (vec![u(cout), u(cig), u(kh), u(kw)], Box::new(move |o, i, y, x| ((o * cig + i) * kh + y) * kw + x))
                }
                FL::Hwio => (
                    vec![u(kh), u(kw), u(cig), u(cout)],
                    Box::new(move |o, i, y, x| ((y * kw + x) * cig + i) * cout + o),
                ),
                FL::Ohwi => {
                    (vec![u(cout), u(kh), u(kw), u(cig)], Box::new(move |o, i, y, x| ((o * kh + y) * kw + x) * cig + i))
                }
                FL::Ihwo => (
                    vec![u(cig), u(kh), u(kw), u(cout)],
                    Box::new(move |o, i, y, x| ((i * kh + y) * kw + x) * cout + o),
                ),
            }
        };
        // Values representable in float16, so that the reference is exact for both types.
        let round = |v: Vec<f32>| -> Vec<f32> { v.into_iter().map(|x| half::f16::from_f32(x).to_f32()).collect() };
        let xv = round(data(n * cin * h * w, 7));
        let fv = round(data(cin * cog * kh * kw, 8));
        let bv = round(data(cout, 9));
        let mut shapes: Vec<&[u32]> = vec![&x_shape, &f_shape];
        let mut inputs = vec![xv.clone(), fv.clone()];
        let b_shape = [u(cout)];
        if c.bias {
            shapes.push(&b_shape);
            inputs.push(bv.clone());
        }
        let layout = if c.nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw };
        let got = run_typed(gpu, dt, &shapes, &inputs, |g, o| {
            if c.transpose {
                let options = ConvTranspose2dOptions {
                    padding: Some(c.padding.to_vec()),
                    strides: Some(c.strides.to_vec()),
                    dilations: Some(c.dilations.to_vec()),
                    output_padding: Some(c.output_padding.to_vec()),
                    groups: c.groups,
                    input_layout: layout,
                    filter_layout: c.convt_layout,
                    bias: o.get(2).cloned(),
                    ..Default::default()
                };
                g.conv_transpose2d(&o[0], &o[1], &options).unwrap()
            } else {
                let options = Conv2dOptions {
                    padding: Some(c.padding.to_vec()),
                    strides: Some(c.strides.to_vec()),
                    dilations: Some(c.dilations.to_vec()),
                    groups: c.groups,
                    input_layout: layout,
                    filter_layout: c.conv_layout,
                    bias: o.get(2).cloned(),
                    ..Default::default()
                };
                g.conv2d(&o[0], &o[1], &options).unwrap()
            }
        });
        let x_at = |b: usize, ch: usize, y: usize, x: usize| {
            if c.nhwc {
                xv[((b * h + y) * w + x) * cin + ch]
            } else {
                xv[((b * cin + ch) * h + y) * w + x]
            }
        };
        let mut want = vec![(0f64, 0f64); n * cout * oh * ow];
        for b in 0..n {
            for oc in 0..cout {
                let (grp, ocl) = (oc / cog, oc % cog);
                for y in 0..oh {
                    for x in 0..ow {
                        let (mut s, mut t) = if c.bias { (bv[oc] as f64, (bv[oc] as f64).abs()) } else { (0.0, 0.0) };
                        for icl in 0..cig {
                            let ic = grp * cig + icl;
                            for ky in 0..kh {
                                for kx in 0..kw {
                                    let (iy, ix) = if c.transpose {
                                        let ty = (y + pt) as isize - (ky * dh) as isize;
                                        let tx = (x + pl) as isize - (kx * dw) as isize;
                                        if ty < 0
                                            || tx < 0
                                            || !(ty as usize).is_multiple_of(sh)
                                            || !(tx as usize).is_multiple_of(sw)
                                        {
                                            continue;
                                        }
                                        (ty as usize / sh, tx as usize / sw)
                                    } else {
                                        let iy = (y * sh + ky * dh) as isize - pt as isize;
                                        let ix = (x * sw + kx * dw) as isize - pl as isize;
                                        if iy < 0 || ix < 0 {
                                            continue;
                                        }
                                        (iy as usize, ix as usize)
                                    };
                                    if iy >= h || ix >= w {
                                        continue;
                                    }
                                    let wv = if c.transpose {
                                        fv[f_index(ic, ocl, ky, kx)]
                                    } else {
                                        fv[f_index(oc, icl, ky, kx)]
                                    };
                                    let v = x_at(b, ic, iy, ix) as f64 * wv as f64;
                                    s += v;
                                    t += v.abs();
                                }
                            }
                        }
                        let at = if c.nhwc {
                            ((b * oh + y) * ow + x) * cout + oc
                        } else {
                            ((b * cout + oc) * oh + y) * ow + x
                        };
                        want[at] = (s, t);
                    }
                }
            }
        }
        let what = format!(
            "{} {dt} {:?} nhwc {} cout {} groups {}",
            if c.transpose { "convTranspose2d" } else { "conv2d" },
            c.input,
            c.nhwc,
            c.cout,
            c.groups
        );
        check_within(&what, &got, &want, if dt == DataType::Float16 { 1.0 / 2048.0 } else { 0.0 });
    }

    #[test]
    fn conv2d_implicit_gemm_and_direct_match_reference() {
        // Implicit GEMM (cog ≥ 8), every layout.
        check_case(&Case {
            input: [2, 5, 9, 9],
            cout: 17,
            kernel: [3, 3],
            padding: [1, 1, 1, 1],
            bias: true,
            ..conv()
        });
        check_case(&Case {
            nhwc: true,
            conv_layout: FL::Hwio,
            input: [1, 6, 7, 11],
            cout: 20,
            kernel: [2, 3],
            groups: 2,
            padding: [0, 1, 2, 0],
            strides: [2, 1],
            dilations: [1, 2],
            bias: true,
            ..conv()
        });
        check_case(&Case {
            nhwc: true,
            conv_layout: FL::Ohwi,
            input: [1, 16, 13, 13],
            cout: 33,
            kernel: [3, 3],
            ..conv()
        });
        check_case(&Case {
            conv_layout: FL::Ihwo,
            input: [3, 8, 6, 5],
            cout: 32,
            kernel: [3, 3],
            groups: 4,
            strides: [1, 2],
            ..conv()
        });
        check_case(&Case {
            nhwc: true,
            conv_layout: FL::Oihw,
            input: [2, 64, 20, 20],
            cout: 70,
            kernel: [1, 1],
            bias: true,
            ..conv()
        });
        // Direct: depthwise, and few output channels.
        check_case(&Case {
            input: [1, 8, 10, 7],
            cout: 8,
            kernel: [3, 3],
            groups: 8,
            padding: [1, 1, 1, 1],
            strides: [2, 2],
            bias: true,
            ..conv()
        });
        check_case(&Case {
            nhwc: true,
            conv_layout: FL::Ihwo,
            input: [2, 6, 5, 5],
            cout: 12,
            kernel: [3, 2],
            groups: 6,
            dilations: [2, 1],
            ..conv()
        });
        check_case(&Case {
            conv_layout: FL::Hwio,
            input: [1, 3, 8, 8],
            cout: 2,
            kernel: [5, 5],
            padding: [2, 2, 2, 2],
            ..conv()
        });
    }

    #[test]
    fn conv_transpose2d_implicit_gemm_and_direct_match_reference() {
        let t = || Case { transpose: true, ..conv() };
        check_case(&Case {
            input: [1, 5, 6, 7],
            cout: 12,
            kernel: [3, 3],
            strides: [2, 2],
            padding: [1, 0, 0, 1],
            dilations: [1, 2],
            output_padding: [1, 0],
            bias: true,
            ..t()
        });
        check_case(&Case {
            nhwc: true,
            convt_layout: TL::Hwoi,
            input: [2, 6, 5, 4],
            cout: 16,
            kernel: [2, 3],
            groups: 2,
            strides: [3, 1],
            ..t()
        });
        check_case(&Case {
            nhwc: true,
            convt_layout: TL::Ohwi,
            input: [1, 9, 4, 4],
            cout: 9,
            kernel: [4, 4],
            strides: [2, 2],
            padding: [1, 1, 1, 1],
            bias: true,
            ..t()
        });
        check_case(&Case {
            convt_layout: TL::Hwoi,
            input: [1, 4, 3, 3],
            cout: 4,
            kernel: [3, 3],
            groups: 2,
            strides: [2, 2],
            ..t()
        });
        check_case(&Case {
            nhwc: true,
            input: [1, 3, 5, 5],
            cout: 2,
            kernel: [2, 2],
            dilations: [2, 2],
            bias: true,
            ..t()
        });
    }

    #[test]
    fn float16_convolutions_match_reference() {
        let Some(gpu) = backend() else { return };
        if gpu
            .op_support_limits()
            .check_member(
                OpKind::Conv2d,
                "",
                "input",
                &webnn_core::OperandDescriptor::new(DataType::Float16, vec![1, 1, 1, 1]),
            )
            .is_err()
        {
            return;
        }
        check_typed(
            &Case { input: [2, 5, 9, 9], cout: 17, kernel: [3, 3], padding: [1, 1, 1, 1], bias: true, ..conv() },
            DataType::Float16,
        );
        check_typed(
            &Case { nhwc: true, input: [1, 8, 6, 6], cout: 8, kernel: [3, 3], groups: 8, bias: true, ..conv() },
            DataType::Float16,
        );
        check_typed(
            &Case {
                transpose: true,
                nhwc: true,
                convt_layout: TL::Hwoi,
                input: [2, 6, 5, 4],
                cout: 16,
                kernel: [2, 3],
                groups: 2,
                strides: [3, 1],
                ..conv()
            },
            DataType::Float16,
        );
    }

    /// Timing for information (`cargo test --release -p webnn-gpu --lib timing -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn timing_conv2d() {
        let Some(gpu) = backend() else { return };
        for (name, nhwc, cin, hw, cout, k, groups) in [
            ("3x3 64->64 56x56 nchw", false, 64u32, 56u32, 64u32, 3u32, 1u32),
            ("3x3 64->64 56x56 nhwc", true, 64, 56, 64, 3, 1),
            ("1x1 256->64 56x56 nchw", false, 256, 56, 64, 1, 1),
            ("depthwise 3x3 144 56x56 nchw", false, 144, 56, 144, 3, 144),
        ] {
            let x: Vec<u32> = if nhwc { vec![1, hw, hw, cin] } else { vec![1, cin, hw, hw] };
            let f: Vec<u32> = if nhwc { vec![k, k, cin / groups, cout] } else { vec![cout, cin / groups, k, k] };
            let t = time(gpu, &[&x, &f], |g, o| {
                let options = Conv2dOptions {
                    padding: Some(vec![k / 2; 4]),
                    groups,
                    input_layout: if nhwc { InputOperandLayout::Nhwc } else { InputOperandLayout::Nchw },
                    filter_layout: if nhwc { FL::Hwio } else { FL::Oihw },
                    ..Conv2dOptions::new()
                };
                g.conv2d(&o[0], &o[1], &options).unwrap()
            });
            let flops = 2.0 * (hw * hw) as f64 * cout as f64 * (cin / groups) as f64 * (k * k) as f64;
            eprintln!("conv2d {name}: {:.2} ms, {:.2} GFLOP/s ({})", t * 1e3, flops / t / 1e9, gpu.adapter_name());
        }
    }
}
