//! `webnn run`: one run of a model, inputs from .npy files or filled deterministically,
//! every output written as `OUTPUT_DIR/NAME.npy`.

use crate::model::{file_stem, parse_inputs, ModelSource, Session};
use crate::npy::{self, NpyArray, NpyDtype};
use anyhow::{Context as _, Result};
use half::f16;
use std::path::PathBuf;
use webnn::{DataType, OperandDescriptor};

/// What `webnn run` was asked to do.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The model.
    pub source: ModelSource,
    /// `NAME=DIMS` input shapes.
    pub shapes: Vec<String>,
    /// `NAME=FILE.npy` inputs.
    pub inputs: Vec<String>,
    /// Where outputs go.
    pub output_dir: PathBuf,
    /// Threads of the context.
    pub threads: Option<usize>,
    /// The engine.
    pub device: webnn::DeviceChoice,
}

/// One written output.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenOutput {
    /// Output name.
    pub name: String,
    /// Its descriptor.
    pub descriptor: OperandDescriptor,
    /// The file written.
    pub path: PathBuf,
    /// Min, max and mean of the values (as f64), if there are any.
    pub summary: Option<(f64, f64, f64)>,
}

/// Runs the model and writes its outputs; returns what was written.
pub fn execute(opts: &RunOptions) -> Result<Vec<WrittenOutput>> {
    let given = parse_inputs(&opts.inputs)?;
    let session = Session::new(&opts.source, &opts.shapes, opts.threads, opts.device)?;
    session.write_inputs(&given)?;
    let stems: Vec<String> = session.outputs.iter().map(|(n, _, _)| file_stem(n)).collect();
    for (i, stem) in stems.iter().enumerate() {
        if let Some(j) = stems[..i].iter().position(|s| s == stem) {
            anyhow::bail!(
                "outputs '{}' and '{}' would both be written as {stem}.npy",
                session.outputs[j].0,
                session.outputs[i].0
            );
        }
    }
    let results = session.run()?;
    std::fs::create_dir_all(&opts.output_dir)
        .with_context(|| format!("cannot create {}", opts.output_dir.display()))?;
    let mut written = Vec::new();
    for ((name, desc, _), bytes) in session.outputs.iter().zip(results) {
        let path = opts.output_dir.join(format!("{}.npy", file_stem(name)));
        let summary = summarize(desc.data_type, &bytes);
        let array = NpyArray {
            dtype: NpyDtype::from_data_type(desc.data_type),
            shape: desc.shape.iter().map(|&d| d as usize).collect(),
            data: bytes,
        };
        npy::write(&path, &array)?;
        written.push(WrittenOutput { name: name.clone(), descriptor: desc.clone(), path, summary });
    }
    Ok(written)
}

/// `webnn run`.
pub fn run(opts: &RunOptions) -> Result<()> {
    let mut text = String::new();
    for out in execute(opts)? {
        let stats = match out.summary {
            Some((min, max, mean)) => format!("min {min:.6} max {max:.6} mean {mean:.6}"),
            None => "empty".into(),
        };
        text += &format!("{} {} -> {} ({stats})\n", out.name, out.descriptor, out.path.display());
    }
    crate::output(&text)
}

/// Min, max and mean of little-endian elements of `data_type`.
fn summarize(data_type: DataType, bytes: &[u8]) -> Option<(f64, f64, f64)> {
    let size = data_type.byte_size();
    let value = |c: &[u8]| -> f64 {
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(c);
        match data_type {
            DataType::Float32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            DataType::Float16 => f16::from_le_bytes([b[0], b[1]]).to_f64(),
            DataType::Int32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            DataType::Uint32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            DataType::Int64 => i64::from_le_bytes(b) as f64,
            DataType::Uint64 => u64::from_le_bytes(b) as f64,
            DataType::Int8 => b[0] as i8 as f64,
            DataType::Uint8 => b[0] as f64,
        }
    };
    let mut it = bytes.chunks_exact(size).map(value);
    let first = it.next()?;
    let (mut min, mut max, mut sum, mut n) = (first, first, first, 1usize);
    for v in it {
        min = min.min(v);
        max = max.max(v);
        sum += v;
        n += 1;
    }
    Some((min, max, sum / n as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fill;
    use std::path::Path;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("webnn-cli-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn f32s(bytes: &[u8]) -> Vec<f32> {
        bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    fn opts(dir: &Path, inputs: Vec<String>) -> RunOptions {
        RunOptions {
            source: ModelSource::Builtin("axpy".into()),
            shapes: vec!["x=4x8".into()],
            inputs,
            output_dir: dir.join("out"),
            threads: Some(1),
            device: webnn::DeviceChoice::Cpu,
        }
    }

    #[test]
    fn runs_with_given_and_filled_inputs() {
        let dir = temp_dir("run");
        // Filled input: y = a * fill(x) + b.
        let filled = execute(&opts(&dir, vec![])).unwrap();
        assert_eq!(filled.len(), 1);
        assert_eq!(filled[0].path, dir.join("out").join("y.npy"));
        let y_filled = npy::read(&filled[0].path).unwrap();
        assert_eq!((y_filled.dtype, y_filled.shape.clone()), (NpyDtype::F32, vec![4, 8]));
        // Given input x = 0: y = b; given x = 1: y = a + b; so y(fill) = a * fill + b.
        let write_x = |v: f32, file: &str| {
            let path = dir.join(file);
            let data = [v; 32].iter().flat_map(|x| x.to_le_bytes()).collect();
            npy::write(&path, &NpyArray { dtype: NpyDtype::F32, shape: vec![4, 8], data }).unwrap();
            format!("x={}", path.display())
        };
        let zero = write_x(0.0, "zero.npy");
        let one = write_x(1.0, "one.npy");
        let b = f32s(&npy::read(&execute(&opts(&dir, vec![zero])).unwrap()[0].path).unwrap().data);
        let ab = f32s(&npy::read(&execute(&opts(&dir, vec![one])).unwrap()[0].path).unwrap().data);
        let x = f32s(&fill::input_bytes("x", &OperandDescriptor::new(DataType::Float32, [4, 8])));
        for (i, y) in f32s(&y_filled.data).iter().enumerate() {
            let a = ab[i] - b[i];
            assert!((y - (a * x[i] + b[i])).abs() < 1e-5, "{i}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn input_errors_are_reported() {
        let dir = temp_dir("errors");
        let path = dir.join("x.npy");
        let arr = |dtype, shape: Vec<usize>| {
            let n: usize = shape.iter().product();
            NpyArray { dtype, data: vec![0; n * NpyDtype::size(dtype)], shape }
        };
        let cases: Vec<(Option<NpyArray>, Vec<String>, &str)> = vec![
            (None, vec!["x".into()], "expected NAME=FILE.npy"),
            (None, vec![format!("z={}", path.display())], "no such input"),
            (None, vec![format!("x={}", dir.join("missing.npy").display())], "cannot read"),
            (Some(arr(NpyDtype::I32, vec![4, 8])), vec![format!("x={}", path.display())], "holds <i4"),
            (Some(arr(NpyDtype::F32, vec![8, 4])), vec![format!("x={}", path.display())], "has shape [8, 4]"),
            (
                Some(arr(NpyDtype::F32, vec![4, 8])),
                vec![format!("x={}", path.display()), format!("x={}", path.display())],
                "given twice",
            ),
        ];
        for (array, inputs, needle) in cases {
            if let Some(a) = array {
                npy::write(&path, &a).unwrap();
            }
            let e = format!("{:#}", execute(&opts(&dir, inputs)).unwrap_err());
            assert!(e.contains(needle), "'{e}' does not contain '{needle}'");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn summaries() {
        let bytes: Vec<u8> = [1.0f32, -2.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(summarize(DataType::Float32, &bytes), Some((-2.0, 4.0, 1.0)));
        assert_eq!(summarize(DataType::Int8, &[0xff, 1]), Some((-1.0, 1.0, 0.0)));
        assert_eq!(summarize(DataType::Int64, &[]), None);
    }
}
