//! `webnn-conformance [DIR] [--device cpu|gpu]`: runs every WPT WebNN conformance vector in
//! DIR (default `../shared/wpt`) through the public `webnn` API, on a CPU context (default) or
//! a GPU one, at the exact tolerances of the vectors and prints each failure, each skip with
//! its reason (on a GPU context: the op × data type its limits leave out), and as the last
//! line `N passed, M failed, K skipped`. Exits non-zero on any failure.

use webnn_conformance::{case, errata};

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = PathBuf::from("../shared/wpt");
    let mut filter: Option<String> = None;
    let mut slowest = 0usize;
    let mut device = webnn::DeviceChoice::Cpu;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--filter" => filter = args.next(),
            "--slowest" => slowest = args.next().and_then(|v| v.parse().ok()).unwrap_or(10),
            "--device" => match args.next().unwrap_or_default().parse() {
                Ok(d) => device = d,
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(2);
                }
            },
            "-h" | "--help" => {
                println!("usage: webnn-conformance [DIR] [--device cpu|gpu] [--filter TEXT] [--slowest N]");
                return;
            }
            other => dir = PathBuf::from(other),
        }
    }
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
        println!("ERRATUM {}: {}: {}[{}]: the vector says {}, we compare with {} ({})", e.file, e.case, e.output, e.index, e.vector, e.corrected, e.reason);
    }
    let mut timings: Vec<(f64, String)> = Vec::new();
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                println!("FAIL {}: cannot read: {e}", file.display());
                failed += 1;
                continue;
            }
        };
        let json: serde_json::Value = match serde_json::from_str(&text) {
            Ok(j) => j,
            Err(e) => {
                println!("FAIL {}: bad JSON: {e}", file.display());
                failed += 1;
                continue;
            }
        };
        let file_name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for case in json["cases"].as_array().map(Vec::as_slice).unwrap_or_default() {
            let name = case["name"].as_str().unwrap_or("?");
            let full = format!("{file_name}: {name}");
            if filter.as_ref().is_some_and(|f| !full.contains(f.as_str())) {
                continue;
            }
            let start = Instant::now();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case::run(&context, &file_name, case)))
                .unwrap_or_else(|_| case::Outcome::Fail("panicked".into()));
            timings.push((start.elapsed().as_secs_f64() * 1e3, full.clone()));
            match outcome {
                case::Outcome::Pass => passed += 1,
                case::Outcome::Skip(reason) => {
                    skipped += 1;
                    println!("SKIP {full}: {reason}");
                }
                case::Outcome::Fail(msg) => {
                    failed += 1;
                    println!("FAIL {full}: {msg}");
                }
            }
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
