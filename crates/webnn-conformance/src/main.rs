//! `webnn-conformance [DIR] [--device cpu|gpu|auto] [--filter TEXT] [--slowest [N]]`: runs
//! every WPT WebNN conformance vector in DIR (default `../shared/wpt`) through the public
//! `webnn` API, on a CPU context (default) or a GPU one, at the exact tolerances of the vectors
//! and prints each failure, each skip with its reason (on a GPU context: the op × data type its
//! limits leave out), and as the last line `N passed, M failed, K skipped`. Exits non-zero on
//! any failure; bad arguments exit with status 2 and a message (clap).

use webnn_conformance::{case, errata};

use clap::Parser;
use std::path::PathBuf;

/// Runs the WPT WebNN conformance vectors through the public `webnn` API at their exact
/// tolerances; the last line is `N passed, M failed, K skipped`.
#[derive(Parser, Debug)]
#[command(name = "webnn-conformance", version, about)]
struct Args {
    /// The directory of the vector files (every `*.json` but `index.json`).
    #[arg(value_name = "DIR", default_value = "../shared/wpt")]
    dir: PathBuf,
    /// The context the vectors run on: cpu, gpu (any wgpu adapter, software ones included;
    /// cases outside its limits are skipped) or auto (what createContext() picks).
    #[arg(long, value_name = "DEVICE", default_value = "cpu", value_parser = parse_device)]
    device: webnn::DeviceChoice,
    /// Run only the cases whose `FILE: CASE` name contains TEXT.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Also print the N slowest cases (`--slowest` alone: 10).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10", default_value_t = 0)]
    slowest: usize,
}

fn parse_device(s: &str) -> Result<webnn::DeviceChoice, String> {
    s.parse().map_err(|e: webnn::Error| e.message)
}

fn main() {
    let Args { dir, device, filter, slowest } = Args::parse();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json") && p.file_name().is_some_and(|n| n != "index.json"))
            .collect(),
        Err(e) => {
            eprintln!("cannot read {}: {e}", dir.display());
            std::process::exit(2);
        }
    };
    files.sort();
    let context = match webnn::ml().create_context(&webnn::ContextOptions { device, ..Default::default() }) {
        Ok(c) => {
            if let Some(adapter) = c.adapter_name() {
                println!("device: {adapter}");
            }
            c
        }
        Err(e) => {
            eprintln!("cannot create a context: {e}");
            std::process::exit(2);
        }
    };
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for e in errata::all() {
        println!(
            "ERRATUM {}: {}: {}[{}]: the vector says {}, we compare with {} ({})",
            e.file, e.case, e.output, e.index, e.vector, e.corrected, e.reason
        );
    }
    let mut timings: Vec<(f64, String)> = Vec::new();
    for file in &files {
        let keep = |name: &str| filter.as_ref().is_none_or(|f| name.contains(f.as_str()));
        for result in webnn_conformance::run_file(&context, file, keep) {
            match result.outcome {
                case::Outcome::Pass => passed += 1,
                case::Outcome::Skip(reason) => {
                    skipped += 1;
                    println!("SKIP {}: {reason}", result.name);
                }
                case::Outcome::Fail(msg) => {
                    failed += 1;
                    println!("FAIL {}: {msg}", result.name);
                }
            }
            timings.push((result.millis, result.name));
        }
    }
    if slowest > 0 {
        timings.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("slowest cases:");
        for (ms, name) in timings.iter().take(slowest) {
            println!("  {ms:8.2} ms  {name}");
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn arguments_parse_as_documented() {
        Args::command().debug_assert();
        use webnn::DeviceChoice::{Auto, Cpu, Gpu};
        let wpt = PathBuf::from("../shared/wpt");
        let a = Args::try_parse_from(["webnn-conformance"]).unwrap();
        assert_eq!((a.dir, a.device, a.filter, a.slowest), (wpt.clone(), Cpu, None, 0));
        let a = Args::try_parse_from(["webnn-conformance", "--device", "gpu", "../shared/wpt", "--filter", "conv2d"])
            .unwrap();
        assert_eq!((a.dir, a.device, a.filter.as_deref()), (wpt, Gpu, Some("conv2d")));
        assert_eq!(Args::try_parse_from(["webnn-conformance", "d", "--slowest"]).unwrap().slowest, 10);
        assert_eq!(Args::try_parse_from(["webnn-conformance", "--slowest", "3", "d"]).unwrap().slowest, 3);
        assert_eq!(Args::try_parse_from(["webnn-conformance", "--device=auto"]).unwrap().device, Auto);
        let e = Args::try_parse_from(["webnn-conformance", "--device", "tpu"]).unwrap_err().to_string();
        assert!(e.contains("unknown device 'tpu'"), "{e}");
        assert!(Args::try_parse_from(["webnn-conformance", "--slowest", "many"]).is_err());
        assert!(Args::try_parse_from(["webnn-conformance", "a", "b"]).is_err());
        assert!(Args::try_parse_from(["webnn-conformance", "--bogus"]).is_err());
    }
}
