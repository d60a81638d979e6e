//! Static input shapes: shape overrides (`NAME=1x128`) and the binding of symbolic dimensions.

use crate::error::{OnnxError, Result};
use crate::model::{Dim, InputInfo};
use std::collections::HashMap;

/// Parses a shape override `NAME=D1xD2x...` (`,` also separates dimensions), e.g.
/// `input_ids=1x128` or `batch=4`. The name is everything before the last `=`. Each dimension
/// must be a positive integer; `NAME=` (nothing after `=`) means a scalar.
///
/// `NAME` is either a graph input's name (the whole shape is given) or a symbolic dimension's
/// name (`dim_param`; exactly one value is given) — see [`crate::ImportOptions`].
///
/// The one parser of such overrides in the workspace: the `webnn` tool's `--shape` uses it for
/// ONNX and built-in models alike.
pub fn parse_shape_override(s: &str) -> Result<(String, Vec<u32>)> {
    let (name, dims) = s
        .rsplit_once('=')
        .ok_or_else(|| OnnxError::Invalid(format!("shape override '{s}' is not of the form NAME=1x128")))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(OnnxError::Invalid(format!("shape override '{s}' has an empty name")));
    }
    let dims = dims.trim();
    if dims.is_empty() {
        return Ok((name.to_string(), Vec::new()));
    }
    let shape = dims
        .split(['x', 'X', ','])
        .map(|d| match d.trim().parse::<u32>() {
            Ok(v) if v > 0 && v <= i32::MAX as u32 => Ok(v),
            _ => Err(OnnxError::Invalid(format!(
                "shape override '{s}': dimension '{d}' is not a positive integer below 2^31"
            ))),
        })
        .collect::<Result<Vec<u32>>>()?;
    Ok((name.to_string(), shape))
}

/// The static shape of a graph input: the override for the input's name if there is one
/// (its fixed dimensions must agree), else each dimension's fixed value, the override for its
/// symbolic name, or `default_batch` for an unbound leading dimension of a rank ≥ 2 input.
pub(crate) fn resolve_input_shape(
    info: &InputInfo,
    overrides: &HashMap<String, Vec<u32>>,
    default_batch: u32,
) -> Result<Vec<u32>> {
    let name = &info.name;
    if let Some(shape) = overrides.get(name) {
        if let Some(dims) = &info.dims {
            if dims.len() != shape.len() {
                return Err(OnnxError::Invalid(format!(
                    "shape override for input '{name}' has rank {} but the model declares rank {} [{}]",
                    shape.len(),
                    dims.len(),
                    join_dims(dims)
                )));
            }
            for (i, (d, &v)) in dims.iter().zip(shape).enumerate() {
                if let Dim::Fixed(f) = d {
                    if *f != v as u64 {
                        return Err(OnnxError::Invalid(format!(
                            "shape override for input '{name}' sets dimension {i} to {v} but the model fixes it to {f}"
                        )));
                    }
                }
            }
        }
        return Ok(shape.clone());
    }
    let Some(dims) = &info.dims else {
        return Err(OnnxError::Invalid(format!(
            "input '{name}' declares no shape; give one with a shape override such as {name}=1x3x224x224"
        )));
    };
    let mut shape = Vec::with_capacity(dims.len());
    for (i, d) in dims.iter().enumerate() {
        let v = match d {
            Dim::Fixed(v) => {
                if *v > i32::MAX as u64 {
                    return Err(OnnxError::Unsupported(format!(
                        "input '{name}' dimension {i} is {v}, above WebNN's largest dimension 2^31-1"
                    )));
                }
                *v as u32
            }
            Dim::Symbolic(sym) => match overrides.get(sym) {
                Some(v) if v.len() == 1 => v[0],
                Some(v) => {
                    return Err(OnnxError::Invalid(format!(
                        "shape override '{sym}' binds a symbolic dimension and must have one value, not {v:?}"
                    )))
                }
                None if i == 0 && dims.len() >= 2 => default_batch,
                None => return Err(unbound(name, i, d, dims)),
            },
            Dim::Unknown if i == 0 && dims.len() >= 2 => default_batch,
            Dim::Unknown => return Err(unbound(name, i, d, dims)),
        };
        shape.push(v);
    }
    Ok(shape)
}

fn join_dims(dims: &[Dim]) -> String {
    dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
}

fn unbound(name: &str, i: usize, d: &Dim, dims: &[Dim]) -> OnnxError {
    let hint = match d {
        Dim::Symbolic(sym) => format!("{sym}=N or "),
        _ => String::new(),
    };
    OnnxError::Invalid(format!(
        "input '{name}' [{}]: dimension {i} ('{d}') is not known; bind it with a shape override ({hint}{name}=...)",
        join_dims(dims)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_overrides() {
        assert_eq!(parse_shape_override("x=1x128").unwrap(), ("x".to_string(), vec![1, 128]));
        assert_eq!(parse_shape_override("a=b=3,4").unwrap(), ("a=b".to_string(), vec![3, 4]));
        assert_eq!(parse_shape_override("s=").unwrap(), ("s".to_string(), vec![]));
        for bad in ["x", "=1", "x=0", "x=1x", "x=-1", "x=1xa", "x=4294967296"] {
            assert!(matches!(parse_shape_override(bad), Err(OnnxError::Invalid(_))), "{bad}");
        }
    }

    fn info(dims: Vec<Dim>) -> InputInfo {
        InputInfo { name: "x".into(), elem_type: Some(1), dims: Some(dims) }
    }

    #[test]
    fn resolves_symbolic_dims() {
        let none = HashMap::new();
        let i = info(vec![Dim::Symbolic("N".into()), Dim::Fixed(3)]);
        assert_eq!(resolve_input_shape(&i, &none, 1).unwrap(), vec![1, 3]);
        assert_eq!(resolve_input_shape(&i, &none, 8).unwrap(), vec![8, 3]);
        let o: HashMap<_, _> = [("N".to_string(), vec![5])].into();
        assert_eq!(resolve_input_shape(&i, &o, 1).unwrap(), vec![5, 3]);
        let o: HashMap<_, _> = [("x".to_string(), vec![2, 3])].into();
        assert_eq!(resolve_input_shape(&i, &o, 1).unwrap(), vec![2, 3]);
        let o: HashMap<_, _> = [("x".to_string(), vec![2, 4])].into();
        assert!(resolve_input_shape(&i, &o, 1).unwrap_err().to_string().contains("fixes it to 3"));
        let i = info(vec![Dim::Fixed(1), Dim::Symbolic("seq".into())]);
        let err = resolve_input_shape(&i, &none, 1).unwrap_err().to_string();
        assert!(err.contains("seq=N"), "{err}");
        let i = InputInfo { name: "x".into(), elem_type: Some(1), dims: None };
        assert!(resolve_input_shape(&i, &none, 1).is_err());
    }
}
