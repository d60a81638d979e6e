//! Resize and Upsample → `resample2d`.
//!
//! WebNN's resample2d uses half-pixel coordinates with the scale `output / input`, clamps the
//! source coordinate to the input, and rounds half down for nearest-neighbor. ONNX has many
//! coordinate modes and rounding rules. Rather than accept a list of combinations, the
//! importer computes, for every output position along each resized axis, the source index
//! (nearest) or source coordinate (linear) under ONNX's rule and under WebNN's, and maps the
//! node only when they agree everywhere. So `asymmetric` nearest upsampling by 2 maps (it
//! picks the same pixels), while a half-pixel downscale by 0.6 does not (ONNX uses 0.6 where
//! WebNN uses 2/4). At most two axes may change; inputs of rank < 4 get leading 1s.

use super::{bld, invalid, to_u32_shape, unsupported, Ctx, Importer, NResult, Value};
use webnn_core::{InterpolationMode, Resample2dOptions};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Nearest,
    Linear,
}

/// Imports Resize or Upsample.
pub(crate) fn import(imp: &mut Importer, c: &Ctx) -> NResult<Vec<Value>> {
    let x = c.req(0)?;
    let shape = x.shape();
    let rank = shape.len();
    let mode_name = c.attrs.string("mode", "nearest")?;
    let mode = match mode_name.as_str() {
        "nearest" => Mode::Nearest,
        "linear" | "bilinear" => Mode::Linear,
        m => {
            return Err(unsupported(format!(
                "{} mode '{m}' (only nearest and linear map to resample2d)",
                c.op
            )))
        }
    };
    let legacy = c.op == "Upsample" || c.opset < 11;
    let coord = if legacy {
        "asymmetric".to_string()
    } else {
        c.attrs
            .string("coordinate_transformation_mode", "half_pixel")?
    };
    let nearest_mode = if legacy {
        "floor".to_string()
    } else {
        c.attrs.string("nearest_mode", "round_prefer_floor")?
    };
    if coord == "tf_crop_and_resize" {
        return Err(unsupported("Resize with tf_crop_and_resize"));
    }

    // Scales or sizes, per axis of `axes` (default: every axis).
    let (scales, sizes) = if c.op == "Upsample" {
        let s = if c.opset >= 9 {
            imp.const_floats(c, 1)?
        } else {
            c.attrs
                .floats("scales")?
                .map(|v| v.into_iter().map(f64::from).collect())
        };
        (s, None)
    } else if c.opset < 11 {
        (imp.const_floats(c, 1)?, None)
    } else {
        (
            imp.const_floats(c, 2)?.filter(|s| !s.is_empty()),
            imp.const_ints(c, 3)?.filter(|s| !s.is_empty()),
        )
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
                return Err(invalid(format!(
                    "Resize sizes {sz:?} do not fit axes {axes:?}"
                )));
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
                return Err(invalid(format!(
                    "Resize scales {sc:?} do not fit axes {axes:?}"
                )));
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
    if super::konst::count(&out) > i32::MAX as usize {
        return Err(unsupported(format!(
            "Resize output {out:?} is too large for WebNN"
        )));
    }
    let changed: Vec<usize> = (0..rank)
        .filter(|&a| out[a] != shape[a] || scale[a] != 1.0)
        .collect();
    if changed.is_empty() {
        return Ok(vec![x.clone()]);
    }
    if changed.len() > 2 || rank > 4 {
        return Err(unsupported(format!("Resize of axes {changed:?} of a rank-{rank} input (resample2d resizes 2 axes of a 4-D tensor)")));
    }
    if mode == Mode::Linear
        && c.attrs.int("antialias", 0)? != 0
        && changed.iter().any(|&a| scale[a] < 1.0)
    {
        return Err(unsupported("antialiased linear downscaling"));
    }
    // Work on a 4-D view; pick a second, unchanged axis when only one changes.
    let pad = 4 - rank;
    let mut axes4: Vec<usize> = changed.iter().map(|&a| a + pad).collect();
    if axes4.len() == 1 {
        let other = if axes4[0] == 3 { 2 } else { axes4[0] + 1 };
        axes4.push(other);
        axes4.sort_unstable();
    }
    let shape4: Vec<usize> = std::iter::repeat(1)
        .take(pad)
        .chain(shape.iter().copied())
        .collect();
    let out4: Vec<usize> = std::iter::repeat(1)
        .take(pad)
        .chain(out.iter().copied())
        .collect();
    let scale4: Vec<f64> = std::iter::repeat(1.0)
        .take(pad)
        .chain(scale.iter().copied())
        .collect();
    for &a in &axes4 {
        if !same_mapping(mode, &coord, &nearest_mode, shape4[a], out4[a], scale4[a])? {
            return Err(unsupported(format!(
                "{} {mode_name} with coordinate_transformation_mode '{coord}'{} and scale {} on axis {}: its sampling \
                 positions differ from resample2d's half-pixel mapping",
                c.op,
                if mode == Mode::Nearest { format!(", nearest_mode '{nearest_mode}'") } else { String::new() },
                scale4[a],
                a - pad
            )));
        }
    }
    let input = imp.operand(x)?;
    let input = imp.reshape_op(&input, &shape4, &c.label)?;
    let options = Resample2dOptions {
        label: c.label.clone(),
        mode: if mode == Mode::Nearest {
            InterpolationMode::NearestNeighbor
        } else {
            InterpolationMode::Linear
        },
        scales: None,
        sizes: Some(to_u32_shape(
            &axes4.iter().map(|&a| out4[a]).collect::<Vec<_>>(),
        )?),
        axes: Some(axes4.iter().map(|&a| a as u32).collect()),
    };
    let y = bld(imp.b.resample2d(&input, &options))?;
    let y = imp.reshape_op(&y, &out, &c.label)?;
    Ok(vec![Value::dynamic(y, x.ty())])
}

/// ONNX's source coordinate of output position `x`.
fn onnx_coord(coord: &str, x: usize, input: usize, output: usize, scale: f64) -> NResult<f64> {
    let x = x as f64;
    Ok(match coord {
        "half_pixel" => (x + 0.5) / scale - 0.5,
        "half_pixel_symmetric" => {
            let adjustment = output as f64 / (scale * input as f64);
            let center = input as f64 / 2.0;
            center * (1.0 - adjustment) + (x + 0.5) / scale - 0.5
        }
        "pytorch_half_pixel" => {
            if output > 1 {
                (x + 0.5) / scale - 0.5
            } else {
                0.0
            }
        }
        "align_corners" => {
            if output == 1 {
                0.0
            } else {
                x * (input as f64 - 1.0) / (output as f64 - 1.0)
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
fn same_mapping(
    mode: Mode,
    coord: &str,
    nearest_mode: &str,
    input: usize,
    output: usize,
    scale: f64,
) -> NResult<bool> {
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
            assert!(
                same_mapping(Mode::Nearest, coord, "floor", 4, 8, 2.0).unwrap()
                    || coord != "asymmetric"
            );
            assert!(
                same_mapping(Mode::Nearest, coord, "round_prefer_floor", 3, 9, 3.0).unwrap()
                    || coord == "asymmetric"
            );
        }
        assert!(same_mapping(Mode::Nearest, "asymmetric", "floor", 3, 9, 3.0).unwrap());
        assert!(same_mapping(Mode::Linear, "half_pixel", "", 4, 8, 2.0).unwrap());
        assert!(!same_mapping(Mode::Linear, "asymmetric", "", 4, 8, 2.0).unwrap());
        assert!(!same_mapping(Mode::Linear, "align_corners", "", 4, 8, 2.0).unwrap());
        assert!(!same_mapping(Mode::Linear, "half_pixel", "", 4, 2, 0.6).unwrap());
    }
}
