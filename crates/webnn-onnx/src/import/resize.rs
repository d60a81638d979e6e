//! Resize and Upsample.
//!
//! Fast path — `resample2d`: WebNN uses half-pixel coordinates with the scale
//! `output / input`, clamps the source coordinate to the input, and rounds half down for
//! nearest-neighbor. ONNX has many coordinate modes and rounding rules, so rather than accept
//! a list of combinations the importer computes, for every output position along each resized
//! axis, the source index (nearest) or coordinate (linear) under ONNX's rule and under WebNN's,
//! and uses resample2d only when they agree everywhere (e.g. `asymmetric` nearest upsampling by
//! 2 picks the same pixels). At most two axes may change; inputs of rank < 4 get leading 1s.
//!
//! Otherwise — general path, exact for every coordinate mode, nearest rounding, cubic
//! coefficient and `exclude_outside`: the resize is separable, so each changed axis becomes a
//! `gather` with static indices (nearest), or a weighted sum of 2 (linear) or 4 (cubic) gathers
//! with static per-position weights, computed as ONNX's reference does. Antialiased
//! downscaling and `tf_crop_and_resize` are unsupported.

use super::support::OnnxOp;
use super::{bld, invalid, to_u32_shape, unsupported, Const, Ctx, Importer, NResult, Value};
use webnn_core::{GatherOptions, InterpolationMode, Operand, Resample2dOptions};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Nearest,
    Linear,
    Cubic,
}

/// Resize and Upsample.
pub(crate) const OPS: &[OnnxOp] = &[
    OnnxOp::new(&["Resize"], import)
        .attributes(&[
            "antialias",
            "axes",
            "coordinate_transformation_mode",
            "cubic_coeff_a",
            "exclude_outside",
            "extrapolation_value",
            "keep_aspect_ratio_policy",
            "mode",
            "nearest_mode",
        ])
        .inputs(1, 4),
    OnnxOp::new(&["Upsample"], import).attributes(&["mode", "scales"]).inputs(1, 2),
];

/// Imports Resize or Upsample.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let shape = x.shape();
    let rank = shape.len();
    let mode_name = c.attrs.string("mode", "nearest")?;
    let mode = match mode_name.as_str() {
        "nearest" => Mode::Nearest,
        "linear" | "bilinear" => Mode::Linear,
        "cubic" => Mode::Cubic,
        m => return Err(invalid(format!("{} mode '{m}'", c.op))),
    };
    let legacy = c.op == "Upsample" || c.opset < 11;
    let coord = if legacy {
        "asymmetric".to_string()
    } else {
        c.attrs.string("coordinate_transformation_mode", "half_pixel")?
    };
    let nearest_mode =
        if legacy { "floor".to_string() } else { c.attrs.string("nearest_mode", "round_prefer_floor")? };
    if coord == "tf_crop_and_resize" {
        return Err(unsupported("Resize with tf_crop_and_resize"));
    }

    // Scales or sizes, per axis of `axes` (default: every axis).
    let (scales, sizes) = if c.op == "Upsample" {
        let s = if c.opset >= 9 {
            imp.const_floats(c, 1)?
        } else {
            c.attrs.floats("scales")?.map(|v| v.into_iter().map(f64::from).collect())
        };
        (s, None)
    } else if c.opset < 11 {
        (imp.const_floats(c, 1)?, None)
    } else {
        (imp.const_floats(c, 2)?.filter(|s| !s.is_empty()), imp.const_ints(c, 3)?.filter(|s| !s.is_empty()))
    };
    let axes: Vec<usize> = match c.attrs.ints("axes")? {
        Some(a) => super::norm_axes(&a, rank, "axes")?,
        None => (0..rank).collect(),
    };
    let mut out: Vec<usize> = shape.clone();
    let mut scale: Vec<f64> = vec![1.0; rank];
    match (scales, sizes) {
        (_, Some(sz)) => {
            if sz.len() != axes.len() || sz.iter().any(|&s| s <= 0) {
                return Err(invalid(format!("Resize sizes {sz:?} do not fit axes {axes:?}")));
            }
            let policy = c.attrs.string("keep_aspect_ratio_policy", "stretch")?;
            let ratio = |i: usize| sz[i] as f64 / shape[axes[i]] as f64;
            let common = match policy.as_str() {
                "stretch" => None,
                "not_larger" => Some((0..axes.len()).map(ratio).fold(f64::INFINITY, f64::min)),
                "not_smaller" => Some((0..axes.len()).map(ratio).fold(0.0, f64::max)),
                p => return Err(invalid(format!("keep_aspect_ratio_policy '{p}'"))),
            };
            for (i, &a) in axes.iter().enumerate() {
                match common {
                    None => {
                        out[a] = sz[i] as usize;
                        scale[a] = ratio(i);
                    }
                    Some(s) => {
                        out[a] = (shape[a] as f64 * s).round() as usize;
                        scale[a] = s;
                    }
                }
            }
        }
        (Some(sc), None) => {
            if sc.len() != axes.len() || sc.iter().any(|&s| s.is_nan() || s <= 0.0) {
                return Err(invalid(format!("Resize scales {sc:?} do not fit axes {axes:?}")));
            }
            for (i, &a) in axes.iter().enumerate() {
                // Scales are float32 in ONNX; the size is floor(input * scale).
                let s = sc[i] as f32 as f64;
                out[a] = (shape[a] as f64 * s).floor() as usize;
                scale[a] = s;
            }
        }
        (None, None) => return Err(invalid(format!("{} needs scales or sizes", c.op))),
    }
    if out.contains(&0) {
        return Err(unsupported("Resize to an empty tensor"));
    }
    if super::constant::count(&out) > i32::MAX as usize {
        return Err(unsupported(format!("Resize output {out:?} is too large for WebNN")));
    }
    let changed: Vec<usize> = (0..rank).filter(|&a| out[a] != shape[a] || scale[a] != 1.0).collect();
    if changed.is_empty() {
        return Ok(vec![x.clone()]);
    }
    if mode != Mode::Nearest && c.attrs.int("antialias", 0)? != 0 && changed.iter().any(|&a| scale[a] < 1.0) {
        return Err(unsupported("antialiased downscaling"));
    }
    // Fast path: resample2d, when at most two axes of a rank <= 4 input change and ONNX
    // samples the same positions.
    let pad = 4usize.saturating_sub(rank);
    let mut axes4: Vec<usize> = changed.iter().map(|&a| a + pad).collect();
    if axes4.len() == 1 {
        let other = if axes4[0] == 3 { 2 } else { axes4[0] + 1 };
        axes4.push(other);
        axes4.sort_unstable();
    }
    let shape4: Vec<usize> = std::iter::repeat_n(1, pad).chain(shape.iter().copied()).collect();
    let out4: Vec<usize> = std::iter::repeat_n(1, pad).chain(out.iter().copied()).collect();
    let scale4: Vec<f64> = std::iter::repeat_n(1.0, pad).chain(scale.iter().copied()).collect();
    let mut fast = mode != Mode::Cubic && changed.len() <= 2 && rank <= 4;
    for &a in &axes4 {
        fast = fast && same_mapping(mode, &coord, &nearest_mode, shape4[a], out4[a], scale4[a])?;
    }
    if !fast {
        let taps = Taps {
            mode,
            coord: &coord,
            nearest_mode: &nearest_mode,
            cubic_a: c.attrs.float("cubic_coeff_a", -0.75)? as f64,
            exclude_outside: c.attrs.int("exclude_outside", 0)? != 0,
        };
        let y = gather_resize(imp, c, x, &changed, &out, &scale, &taps)?;
        return Ok(vec![Value::dynamic(y, x.ty())]);
    }
    let input = imp.operand(x)?;
    let input = imp.reshape_op(&input, &shape4, &c.label)?;
    let options = Resample2dOptions {
        label: c.label.clone(),
        mode: if mode == Mode::Nearest { InterpolationMode::NearestNeighbor } else { InterpolationMode::Linear },
        scales: None,
        sizes: Some(to_u32_shape(&axes4.iter().map(|&a| out4[a]).collect::<Vec<_>>())?),
        axes: Some(axes4.iter().map(|&a| a as u32).collect()),
    };
    let y = bld(imp.b.resample2d(&input, &options))?;
    let y = imp.reshape_op(&y, &out, &c.label)?;
    Ok(vec![Value::dynamic(y, x.ty())])
}

/// How ONNX samples along one axis.
struct Taps<'a> {
    mode: Mode,
    coord: &'a str,
    nearest_mode: &'a str,
    cubic_a: f64,
    exclude_outside: bool,
}

impl Taps<'_> {
    /// For every output position of an axis of `input` → `output` elements: the source
    /// indices and weights of each tap (1 tap for nearest, 2 linear, 4 cubic), as ONNX's
    /// reference computes them (neighbors clamped to the edge, `exclude_outside` zeroes and
    /// renormalizes the weights of taps outside the input).
    fn compute(&self, input: usize, output: usize, scale: f64) -> NResult<Vec<(Vec<i64>, Vec<f64>)>> {
        let n = match self.mode {
            Mode::Nearest => 1,
            Mode::Linear => 2,
            Mode::Cubic => 4,
        };
        let max = input as i64 - 1;
        let mut taps: Vec<(Vec<i64>, Vec<f64>)> = vec![(Vec::with_capacity(output), Vec::with_capacity(output)); n];
        for x in 0..output {
            let o = onnx_coord(self.coord, x, input, output, scale)?;
            if self.mode == Mode::Nearest {
                let i = (onnx_nearest(self.nearest_mode, o)? as i64).clamp(0, max);
                taps[0].0.push(i);
                taps[0].1.push(1.0);
                continue;
            }
            let integral = o.fract() == 0.0;
            let f = o.floor();
            let ratio = if integral { 1.0 } else { o - f };
            let start = (if integral { o - 1.0 } else { f }) as i64 - (n as i64 / 2 - 1);
            let mut w: Vec<f64> = match self.mode {
                Mode::Linear => vec![1.0 - ratio, ratio],
                _ => {
                    let a = self.cubic_a;
                    let (r, q) = (ratio, 1.0 - ratio);
                    vec![
                        ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
                        ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                        ((a + 2.0) * q - (a + 3.0)) * q * q + 1.0,
                        ((a * (q + 1.0) - 5.0 * a) * (q + 1.0) + 8.0 * a) * (q + 1.0) - 4.0 * a,
                    ]
                }
            };
            if self.exclude_outside {
                for (k, wk) in w.iter_mut().enumerate() {
                    let i = start + k as i64;
                    if i < 0 || i > max {
                        *wk = 0.0;
                    }
                }
                let sum: f64 = w.iter().sum();
                if sum != 0.0 {
                    w.iter_mut().for_each(|v| *v /= sum);
                }
            }
            for (k, tap) in taps.iter_mut().enumerate() {
                tap.0.push((start + k as i64).clamp(0, max));
                tap.1.push(w[k]);
            }
        }
        Ok(taps)
    }
}

/// Resize as separable per-axis gathers: nearest is one gather with static indices; linear
/// and cubic are weighted sums of 2 or 4 gathers. Exact for every coordinate mode.
fn gather_resize(
    imp: &mut Importer,
    c: &Ctx,
    x: &Value,
    axes: &[usize],
    out: &[usize],
    scale: &[f64],
    taps: &Taps,
) -> NResult<Operand> {
    let ty = x.ty();
    if taps.mode != Mode::Nearest && !ty.is_float() {
        return Err(unsupported(format!("{} interpolation of {ty} values", c.op)));
    }
    let shape = x.shape();
    let rank = shape.len();
    let o = c.opts();
    let mut y = imp.operand(x)?;
    for &a in axes {
        if out[a] > imp.fold_limit {
            return Err(unsupported(format!("Resize output axis of {} elements", out[a])));
        }
        let mut acc: Option<Operand> = None;
        for (idx, w) in taps.compute(shape[a], out[a], scale[a])? {
            if w.iter().all(|&v| v == 0.0) {
                continue;
            }
            let idx = imp.operand(&Value::constant(Const::i64_vec(&idx)))?;
            let options = GatherOptions { label: c.label.clone(), axis: a as u32 };
            let g = bld(imp.b.gather(&y, &idx, &options))?;
            let term = if w.iter().all(|&v| v == 1.0) {
                g
            } else {
                let mut wshape = vec![1; rank];
                wshape[a] = out[a];
                let wc = imp.operand(&Value::constant(Const::from_f64s(ty, wshape, &w)))?;
                bld(imp.b.mul(&g, &wc, &o))?
            };
            acc = Some(match acc {
                None => term,
                Some(prev) => bld(imp.b.add(&prev, &term, &o))?,
            });
        }
        y = match acc {
            Some(v) => v,
            None => return Err(invalid("Resize weights are all zero")),
        };
    }
    Ok(y)
}

/// ONNX's source coordinate of output position `x`.
/// `output` is the integer output size; like ONNX's reference, the formulas use the resized
/// length `input * scale`, which is fractional when a scale (not a size) is given.
fn onnx_coord(coord: &str, x: usize, input: usize, output: usize, scale: f64) -> NResult<f64> {
    let x = x as f64;
    let resized = input as f64 * scale;
    Ok(match coord {
        "half_pixel" => (x + 0.5) / scale - 0.5,
        "half_pixel_symmetric" => {
            let adjustment = output as f64 / (scale * input as f64);
            let center = input as f64 / 2.0;
            center * (1.0 - adjustment) + (x + 0.5) / scale - 0.5
        }
        "pytorch_half_pixel" => {
            if resized > 1.0 {
                (x + 0.5) / scale - 0.5
            } else {
                0.0
            }
        }
        "align_corners" => {
            if resized == 1.0 {
                0.0
            } else {
                x * (input as f64 - 1.0) / (resized - 1.0)
            }
        }
        "asymmetric" => x / scale,
        "tf_half_pixel_for_nn" => (x + 0.5) / scale,
        other => return Err(invalid(format!("coordinate_transformation_mode '{other}'"))),
    })
}

fn onnx_nearest(mode: &str, v: f64) -> NResult<f64> {
    Ok(match mode {
        "round_prefer_floor" => {
            if v.fract() == 0.5 || v.fract() == -0.5 {
                v.floor()
            } else {
                v.round()
            }
        }
        "round_prefer_ceil" => {
            if v.fract() == 0.5 || v.fract() == -0.5 {
                v.ceil()
            } else {
                v.round()
            }
        }
        "floor" => v.floor(),
        "ceil" => v.ceil(),
        other => return Err(invalid(format!("nearest_mode '{other}'"))),
    })
}

/// True when ONNX and resample2d sample the same positions along one axis.
fn same_mapping(mode: Mode, coord: &str, nearest_mode: &str, input: usize, output: usize, scale: f64) -> NResult<bool> {
    let webnn_scale = output as f64 / input as f64;
    let max = (input - 1) as f64;
    for x in 0..output {
        let w = ((x as f64 + 0.5) / webnn_scale - 0.5).clamp(0.0, max);
        let o = onnx_coord(coord, x, input, output, scale)?;
        let same = match mode {
            Mode::Nearest => {
                let wi = (w - 0.5).ceil().clamp(0.0, max);
                let oi = onnx_nearest(nearest_mode, o)?.clamp(0.0, max);
                wi == oi
            }
            Mode::Linear => (o.clamp(0.0, max) - w).abs() <= 1e-5 * (1.0 + max),
            Mode::Cubic => false,
        };
        if !same {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_equivalences() {
        // Integer nearest upsampling picks the same pixels in every common mode.
        for coord in ["asymmetric", "half_pixel", "pytorch_half_pixel"] {
            assert!(same_mapping(Mode::Nearest, coord, "floor", 4, 8, 2.0).unwrap() || coord != "asymmetric");
            assert!(
                same_mapping(Mode::Nearest, coord, "round_prefer_floor", 3, 9, 3.0).unwrap() || coord == "asymmetric"
            );
        }
        assert!(same_mapping(Mode::Nearest, "asymmetric", "floor", 3, 9, 3.0).unwrap());
        assert!(same_mapping(Mode::Linear, "half_pixel", "", 4, 8, 2.0).unwrap());
        assert!(!same_mapping(Mode::Linear, "asymmetric", "", 4, 8, 2.0).unwrap());
        assert!(!same_mapping(Mode::Linear, "align_corners", "", 4, 8, 2.0).unwrap());
        assert!(!same_mapping(Mode::Linear, "half_pixel", "", 4, 2, 0.6).unwrap());
    }
}
