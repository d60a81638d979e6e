//! `webnn bench`: build time, first run, steady-state latency percentiles and peak memory.
//!
//! One run is `dispatch` followed by reading every output back (the same work an inference
//! call of another runtime does). Inputs come from `--input` files or are filled by the rule
//! of [`crate::fill`].

use crate::model::{ms, parse_inputs, ModelSource, Session};
use crate::progress::Progress;
use anyhow::{bail, Result};
use std::time::Instant;

/// What `webnn bench` was asked to do.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// The model.
    pub source: ModelSource,
    /// `NAME=DIMS` input shapes.
    pub shapes: Vec<String>,
    /// `NAME=FILE.npy` inputs (the others are filled).
    pub inputs: Vec<String>,
    /// Threads of the context.
    pub threads: Option<usize>,
    /// The engine.
    pub device: webnn::DeviceChoice,
    /// Measuring time after the first run.
    pub seconds: f64,
    /// Minimum number of measured runs.
    pub min_runs: usize,
    /// Print JSON.
    pub json: bool,
}

/// Never measure more runs than this, however fast the model.
const MAX_RUNS: usize = 1_000_000;

/// The measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchReport {
    /// Model name.
    pub model: String,
    /// "cpu", or "gpu: " and the adapter's name.
    pub device: String,
    /// Threads used inside one dispatch.
    pub threads: usize,
    /// Import or construction of the graph with the builder, ms.
    pub load_ms: f64,
    /// `build()`: validation and compilation, ms.
    pub build_ms: f64,
    /// The first run, ms.
    pub first_run_ms: f64,
    /// Latency statistics of the runs after the first.
    pub latency: Latency,
    /// Peak resident set size of the process (VmHWM), bytes; None where unknown.
    pub peak_rss_bytes: Option<u64>,
}

/// Latency statistics in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    /// Number of runs.
    pub runs: usize,
    /// Median.
    pub median_ms: f64,
    /// 10th percentile.
    pub p10_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// Mean.
    pub mean_ms: f64,
    /// Minimum.
    pub min_ms: f64,
    /// Maximum.
    pub max_ms: f64,
}

impl Latency {
    /// Statistics of `samples` (ms); percentiles interpolate linearly between order
    /// statistics (NumPy's default), so the median of an even count is the mean of the two
    /// middle values.
    pub fn from_samples(samples: &[f64]) -> Option<Latency> {
        if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let pct = |p: f64| {
            let pos = p / 100.0 * (s.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
        };
        Some(Latency {
            runs: s.len(),
            median_ms: pct(50.0),
            p10_ms: pct(10.0),
            p90_ms: pct(90.0),
            mean_ms: s.iter().sum::<f64>() / s.len() as f64,
            min_ms: s[0],
            max_ms: s[s.len() - 1],
        })
    }
}

impl BenchReport {
    /// The report as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let l = &self.latency;
        serde_json::json!({
            "model": self.model,
            "device": self.device,
            "threads": self.threads,
            "load_ms": round3(self.load_ms),
            "build_ms": round3(self.build_ms),
            "first_run_ms": round3(self.first_run_ms),
            "runs": l.runs,
            "median_ms": round3(l.median_ms),
            "p10_ms": round3(l.p10_ms),
            "p90_ms": round3(l.p90_ms),
            "mean_ms": round3(l.mean_ms),
            "min_ms": round3(l.min_ms),
            "max_ms": round3(l.max_ms),
            "peak_rss_bytes": self.peak_rss_bytes,
        })
    }

    /// The report as aligned text.
    pub fn to_text(&self) -> String {
        let l = &self.latency;
        let rss = match self.peak_rss_bytes {
            Some(b) => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
            None => "unknown".into(),
        };
        format!(
            "model        {}\ndevice       {}\nthreads      {}\nload         {:.2} ms\nbuild        {:.2} ms\nfirst run    {:.3} ms\n\
             runs         {}\nmedian       {:.3} ms\np10 / p90    {:.3} / {:.3} ms\nmin / max    {:.3} / {:.3} ms\n\
             peak RSS     {rss}",
            self.model,
            self.device,
            self.threads,
            self.load_ms,
            self.build_ms,
            self.first_run_ms,
            l.runs,
            l.median_ms,
            l.p10_ms,
            l.p90_ms,
            l.min_ms,
            l.max_ms
        )
    }
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The threads a context created with `threads` uses (the CPU backend's rule).
pub fn resolved_threads(threads: Option<usize>) -> usize {
    threads
        .filter(|&n| n > 0)
        .or_else(|| std::env::var("WEBNN_NUM_THREADS").ok().and_then(|v| v.parse().ok()))
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

/// Peak resident set size from `/proc/self/status` (`VmHWM`), in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    parse_vm_hwm(&std::fs::read_to_string("/proc/self/status").ok()?)
}

fn parse_vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let mut parts = line["VmHWM:".len()..].split_whitespace();
    let value: u64 = parts.next()?.parse().ok()?;
    let unit = match parts.next() {
        Some("kB") | Some("KB") => 1024,
        Some("mB") | Some("MB") => 1024 * 1024,
        None | Some("B") => 1,
        Some(_) => return None,
    };
    value.checked_mul(unit)
}

/// Runs the benchmark and returns the report.
pub fn measure(opts: &BenchOptions) -> Result<BenchReport> {
    if !(opts.seconds.is_finite() && opts.seconds >= 0.0) {
        bail!("--seconds must be a non-negative number, not {}", opts.seconds);
    }
    let given = parse_inputs(&opts.inputs)?;
    let session = Session::new(&opts.source, &opts.shapes, opts.threads, opts.device)?;
    session.write_inputs(&given)?;
    let mut buffers: Vec<Vec<u8>> =
        session.outputs.iter().map(|(_, d, _)| vec![0u8; d.byte_length() as usize]).collect();
    let start = Instant::now();
    session.run_into(&mut buffers)?;
    let first_run_ms = ms(start);

    let mut progress = Progress::on_terminal();
    let mut samples = Vec::new();
    let begin = Instant::now();
    while samples.len() < MAX_RUNS && (samples.len() < opts.min_runs || begin.elapsed().as_secs_f64() < opts.seconds) {
        let t = Instant::now();
        session.run_into(&mut buffers)?;
        samples.push(ms(t));
        // Done when both the time and the minimum run count are reached.
        let done = (begin.elapsed().as_secs_f64() / opts.seconds.max(1e-9))
            .min(samples.len() as f64 / opts.min_runs.max(1) as f64)
            .min(1.0);
        progress.update(done, &format!("{} runs, last {:.3} ms", samples.len(), samples[samples.len() - 1]));
    }
    progress.finish();
    // With --seconds 0 and --min-runs 0, the first run is the only sample.
    if samples.is_empty() {
        samples.push(first_run_ms);
    }
    let latency = Latency::from_samples(&samples).ok_or_else(|| anyhow::anyhow!("no valid timing"))?;
    Ok(BenchReport {
        model: opts.source.display_name(),
        device: session.device_name.clone(),
        threads: resolved_threads(opts.threads),
        load_ms: session.load_ms,
        build_ms: session.build_ms,
        first_run_ms,
        latency,
        peak_rss_bytes: peak_rss_bytes(),
    })
}

/// `webnn bench`.
pub fn bench(opts: &BenchOptions) -> Result<()> {
    let report = measure(opts)?;
    if opts.json {
        crate::output(&format!("{}\n", report.to_json()))?;
    } else {
        crate::output(&format!("{}\n", report.to_text()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let l = Latency::from_samples(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        // numpy.percentile([1,2,3,4], [10, 50, 90]) == [1.3, 2.5, 3.7]
        assert!((l.p10_ms - 1.3).abs() < 1e-12 && (l.median_ms - 2.5).abs() < 1e-12 && (l.p90_ms - 3.7).abs() < 1e-12);
        assert_eq!((l.runs, l.min_ms, l.max_ms, l.mean_ms), (4, 1.0, 4.0, 2.5));
        let l = Latency::from_samples(&[5.0]).unwrap();
        assert_eq!((l.median_ms, l.p10_ms, l.p90_ms), (5.0, 5.0, 5.0));
        let odd: Vec<f64> = (1..=11).map(|v| v as f64).collect();
        let l = Latency::from_samples(&odd).unwrap();
        assert_eq!((l.median_ms, l.p10_ms, l.p90_ms), (6.0, 2.0, 10.0));
        assert!(Latency::from_samples(&[]).is_none());
        assert!(Latency::from_samples(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn vm_hwm_parses() {
        let status = "Name:\twebnn\nVmPeak:\t  200 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(1234 * 1024));
        assert_eq!(parse_vm_hwm("VmRSS: 5 kB"), None);
        assert_eq!(parse_vm_hwm("VmHWM: x kB"), None);
        assert_eq!(parse_vm_hwm("VmHWM: 5 parsecs"), None);
        if cfg!(target_os = "linux") {
            assert!(peak_rss_bytes().unwrap() > 1024 * 1024);
        }
    }

    fn opts(name: &str, seconds: f64, min_runs: usize) -> BenchOptions {
        BenchOptions {
            source: ModelSource::Builtin(name.into()),
            shapes: vec!["x=64x64".into()],
            inputs: vec![],
            threads: Some(1),
            device: webnn::DeviceChoice::Cpu,
            seconds,
            min_runs,
            json: true,
        }
    }

    #[test]
    fn measures_a_model_that_runs() {
        let report = measure(&opts("axpy", 0.0, 7)).unwrap();
        assert_eq!((report.latency.runs, report.threads), (7, 1));
        assert_eq!(report.model, "builtin:axpy");
        let json = report.to_json();
        for key in ["build_ms", "median_ms", "p10_ms", "p90_ms", "runs", "peak_rss_bytes", "first_run_ms"] {
            assert!(json.get(key).is_some(), "{key}");
        }
        assert!(json["p10_ms"].as_f64() <= json["p90_ms"].as_f64());
        assert!(report.to_text().contains("median"));
        // --seconds 0 --min-runs 0: the first run is the sample.
        assert_eq!(measure(&opts("axpy", 0.0, 0)).unwrap().latency.runs, 1);
        assert!(measure(&opts("axpy", f64::NAN, 1)).is_err());
    }

    #[test]
    fn threads_resolve() {
        assert_eq!(resolved_threads(Some(3)), 3);
        assert!(resolved_threads(None) >= 1);
    }
}
