//! `webnn`: the command-line tool of the WebNN engine.
//!
//! ```text
//! webnn run    MODEL.onnx | --builtin NAME  [--input NAME=FILE.npy]... [--shape NAME=DIMS]... [--output-dir DIR] [--threads N] [--device cpu|gpu|auto]
//! webnn bench  MODEL.onnx | --builtin NAME  [--threads N] [--device cpu|gpu|auto] [--seconds S] [--json] [--shape NAME=DIMS]... [--input NAME=FILE.npy]...
//! webnn inspect MODEL.onnx | --builtin NAME [--shape NAME=DIMS]... [--json]
//! webnn limits [--device cpu|gpu|auto]
//! webnn builtins
//! ```

mod bench;
mod builtin;
mod fill;
mod inspect;
mod loaded;
mod model;
mod onnx_import;
mod progress;
mod run;
mod stats;
#[cfg(test)]
mod testing;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use webnn_cli::npy;

/// The WebNN engine on the command line: run and benchmark ONNX or built-in models.
#[derive(Parser, Debug)]
#[command(name = "webnn", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a model once and write every output as OUTPUT_DIR/NAME.npy.
    ///
    /// Inputs not given with --input are filled deterministically: floats uniform in [-1, 1),
    /// integers in 0..10, from a xorshift64* generator seeded by the FNV-1a hash of the input
    /// name (so the same input always gets the same values, whatever the other inputs).
    Run(RunArgs),
    /// Measure build time, first run and steady-state latency (median, p10, p90) and peak RSS.
    Bench(BenchArgs),
    /// Print opSupportLimits() of a context (the CPU's, or with --device gpu the GPU's) as JSON.
    Limits(LimitsArgs),
    /// Show a model's operators (and whether they map to WebNN), parameter count and GFLOPs.
    Inspect(InspectArgs),
    /// List the built-in models.
    Builtins,
}

/// Which model: an ONNX file or a built-in.
#[derive(Args, Debug, Clone)]
struct ModelArgs {
    /// The ONNX model file.
    #[arg(value_name = "MODEL.onnx", required_unless_present = "builtin", conflicts_with = "builtin")]
    model: Option<PathBuf>,
    /// A built-in model (see `webnn builtins`) instead of an ONNX file.
    #[arg(long, value_name = "NAME")]
    builtin: Option<String>,
    /// Fix the shape of an input: NAME=DIMS with DIMS like 1x3x224x224 (repeatable).
    #[arg(long = "shape", value_name = "NAME=DIMS")]
    shapes: Vec<String>,
}

impl ModelArgs {
    fn source(&self) -> model::ModelSource {
        match (&self.model, &self.builtin) {
            (_, Some(name)) => model::ModelSource::Builtin(name.clone()),
            (Some(path), None) => model::ModelSource::Onnx(path.clone()),
            // clap requires one of the two.
            (None, None) => model::ModelSource::Builtin(String::new()),
        }
    }
}

#[derive(Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Feed an input from a .npy file: NAME=FILE.npy (repeatable).
    #[arg(long = "input", value_name = "NAME=FILE.npy")]
    inputs: Vec<String>,
    /// Where to write the outputs (created if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    output_dir: PathBuf,
    /// Threads used inside one dispatch (default: WEBNN_NUM_THREADS or all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    #[command(flatten)]
    device: DeviceArg,
}

/// Which engine runs the model.
#[derive(Args, Debug, Clone, Copy)]
struct DeviceArg {
    /// cpu (the default), gpu (any wgpu adapter, software ones included) or auto (what
    /// createContext() picks: a hardware GPU if there is one, else the CPU).
    #[arg(long, value_name = "DEVICE", default_value = "cpu", value_parser = parse_device)]
    device: webnn::DeviceChoice,
}

fn parse_device(s: &str) -> Result<webnn::DeviceChoice, String> {
    s.parse().map_err(|e: webnn::Error| e.message)
}

#[derive(Args, Debug)]
struct LimitsArgs {
    #[command(flatten)]
    device: DeviceArg,
}

#[derive(Args, Debug)]
struct BenchArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Feed an input from a .npy file: NAME=FILE.npy (repeatable; others are filled).
    #[arg(long = "input", value_name = "NAME=FILE.npy")]
    inputs: Vec<String>,
    /// Threads used inside one dispatch (default: WEBNN_NUM_THREADS or all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    #[command(flatten)]
    device: DeviceArg,
    /// How long to keep measuring after the first run.
    #[arg(long, value_name = "S", default_value_t = 5.0)]
    seconds: f64,
    /// Measure at least this many runs, even past --seconds.
    #[arg(long, value_name = "N", default_value_t = 5)]
    min_runs: usize,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct InspectArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Also print the CPU backend's plan: the steps after the compile passes (fusion).
    #[arg(long, conflicts_with = "json")]
    plan: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => run::run(&run::RunOptions {
            source: a.model.source(),
            shapes: a.model.shapes.clone(),
            inputs: a.inputs,
            output_dir: a.output_dir,
            threads: a.threads,
            device: a.device.device,
        }),
        Command::Bench(a) => bench::bench(&bench::BenchOptions {
            source: a.model.source(),
            shapes: a.model.shapes.clone(),
            inputs: a.inputs,
            threads: a.threads,
            device: a.device.device,
            seconds: a.seconds,
            min_runs: a.min_runs,
            json: a.json,
        }),
        Command::Limits(a) => limits(a.device.device),
        Command::Inspect(a) => inspect::inspect(&a.model.source(), &a.model.shapes, a.json, a.plan),
        Command::Builtins => {
            let list: String = builtin::LIST.iter().map(|(name, about)| format!("{name:<18} {about}\n")).collect();
            output(&list)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("webnn: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `text` to standard output; a closed pipe (`webnn inspect m.onnx | head`) is not an
/// error.
pub fn output(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// `webnn limits`: `MLContext.opSupportLimits()`
/// ([spec](https://www.w3.org/TR/webnn/#api-mlcontext-createtensor)) as pretty JSON.
fn limits(device: webnn::DeviceChoice) -> anyhow::Result<()> {
    let context =
        webnn::ml().create_context(&webnn::ContextOptions { threads: Some(1), device, ..Default::default() })?;
    let json = context.op_support_limits().to_json();
    output(&format!("{}\n", serde_json::to_string_pretty(&json)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_the_documented_command_lines() {
        let cli = Cli::try_parse_from([
            "webnn",
            "run",
            "m.onnx",
            "--input",
            "x=a.npy",
            "--shape",
            "x=1x3",
            "--output-dir",
            "o",
            "--threads",
            "2",
        ])
        .unwrap();
        match cli.command {
            Command::Run(a) => {
                assert_eq!(a.model.model, Some(PathBuf::from("m.onnx")));
                assert_eq!(
                    (a.inputs, a.model.shapes, a.threads),
                    (vec!["x=a.npy".into()], vec!["x=1x3".into()], Some(2))
                );
            }
            other => panic!("{other:?}"),
        }
        let cli = Cli::try_parse_from(["webnn", "bench", "--builtin", "resnet50", "--json", "--seconds", "1"]).unwrap();
        match cli.command {
            Command::Bench(a) => {
                assert_eq!(a.model.builtin.as_deref(), Some("resnet50"));
                assert!(a.json);
                assert_eq!(a.seconds, 1.0);
            }
            other => panic!("{other:?}"),
        }
        // Exactly one model source.
        assert!(Cli::try_parse_from(["webnn", "bench"]).is_err());
        assert!(Cli::try_parse_from(["webnn", "bench", "m.onnx", "--builtin", "bert"]).is_err());
        assert!(Cli::try_parse_from(["webnn", "inspect", "m.onnx", "--json"]).is_ok());
        assert!(Cli::try_parse_from(["webnn", "limits"]).is_ok());
    }
}
