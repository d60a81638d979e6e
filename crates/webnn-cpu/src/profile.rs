//! Optional per-step timing of a compiled plan, for finding where a model spends its time.
//!
//! Set `WEBNN_PROFILE=1` in the environment: every compiled graph then times each step of
//! every dispatch, and when the graph is dropped it prints to stderr the mean time per
//! dispatch of each op kind and of the slowest steps (`WEBNN_PROFILE=all`: of every step).
//! Without the variable nothing is timed. The variable is read once per process, when the first
//! graph is compiled; a compile then pays one load to know, and a dispatch of an unprofiled
//! graph one test of its `Option`.

use std::sync::OnceLock;
use std::time::Duration;

/// What `WEBNN_PROFILE` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Unset, empty or `0`.
    Off,
    /// Any other value: per op kind and the 15 slowest steps.
    Slowest,
    /// `all`: per op kind and every step.
    Every,
}

/// The mode, read from the environment once.
fn mode() -> Mode {
    static MODE: OnceLock<Mode> = OnceLock::new();
    *MODE.get_or_init(|| match std::env::var("WEBNN_PROFILE") {
        Ok(v) if v == "all" => Mode::Every,
        Ok(v) if !v.is_empty() && v != "0" => Mode::Slowest,
        _ => Mode::Off,
    })
}

/// Whether `WEBNN_PROFILE` asks for profiling (any value but empty or `0`).
pub fn enabled() -> bool {
    mode() != Mode::Off
}

/// Accumulated step times of one compiled graph.
#[derive(Debug)]
pub struct Profile {
    /// `(op kind, description)` of each step.
    steps: Vec<(String, String)>,
    /// Total time of each step over all dispatches.
    totals: Vec<Duration>,
    /// Number of dispatches timed.
    runs: u64,
    /// The first step that ran in the pool (the steps before it ran on the dispatching
    /// thread), if any did.
    first_in_pool: Option<usize>,
}

impl Profile {
    /// A profile for steps described by `(op kind, description)`.
    pub fn new(steps: Vec<(String, String)>) -> Self {
        let totals = vec![Duration::ZERO; steps.len()];
        Profile { steps, totals, runs: 0, first_in_pool: None }
    }

    /// Adds one dispatch's step times.
    pub fn record(&mut self, times: &[Duration]) {
        for (total, t) in self.totals.iter_mut().zip(times) {
            *total += *t;
        }
        self.runs += 1;
    }

    /// Notes the first step that ran in the pool (None: every step ran on the dispatching
    /// thread).
    pub fn set_first_in_pool(&mut self, step: Option<usize>) {
        self.first_in_pool = step;
    }

    /// The report: per op kind, then the slowest steps, in milliseconds per dispatch.
    pub fn report(&self) -> String {
        use std::fmt::Write;
        let runs = self.runs.max(1) as f64;
        let ms = |d: Duration| d.as_secs_f64() * 1e3 / runs;
        let all: Duration = self.totals.iter().sum();
        let mut by_kind: Vec<(&str, Duration, usize)> = Vec::new();
        for ((kind, _), &t) in self.steps.iter().zip(&self.totals) {
            match by_kind.iter_mut().find(|(k, _, _)| *k == kind) {
                Some(entry) => {
                    entry.1 += t;
                    entry.2 += 1;
                }
                None => by_kind.push((kind, t, 1)),
            }
        }
        by_kind.sort_by_key(|k| std::cmp::Reverse(k.1));
        let pct = |t: Duration| if all.is_zero() { 0.0 } else { 100.0 * t.as_secs_f64() / all.as_secs_f64() };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "webnn profile: {} steps, {} dispatches, {:.3} ms per dispatch",
            self.steps.len(),
            self.runs,
            ms(all)
        );
        let _ = match self.first_in_pool.and_then(|i| Some((i, self.steps.get(i)?))) {
            Some((i, (kind, what))) => {
                writeln!(out, "in the pool from #{i} {kind} {what} (the first step that wanted its threads)")
            }
            None => writeln!(out, "every step on the dispatching thread"),
        };
        let _ = writeln!(out, "{:>10} {:>6} {:>6}  op", "ms", "%", "steps");
        for (kind, t, n) in &by_kind {
            let _ = writeln!(out, "{:>10.3} {:>6.1} {:>6}  {kind}", ms(*t), pct(*t), n);
        }
        let mut order: Vec<usize> = (0..self.steps.len()).collect();
        order.sort_by(|&a, &b| self.totals[b].cmp(&self.totals[a]));
        let every = mode() == Mode::Every;
        let _ = writeln!(out, "{}", if every { "steps, slowest first:" } else { "slowest steps:" });
        for &i in order.iter().take(if every { usize::MAX } else { 15 }) {
            let (kind, what) = &self.steps[i];
            let _ = writeln!(out, "{:>10.3} {:>6.1}  #{i} {kind} {what}", ms(self.totals[i]), pct(self.totals[i]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_groups_by_kind_and_averages_over_dispatches() {
        let mut p = Profile::new(vec![
            ("conv2d".into(), "a".into()),
            ("relu".into(), "b".into()),
            ("conv2d".into(), "c".into()),
        ]);
        p.record(&[Duration::from_millis(4), Duration::from_millis(1), Duration::from_millis(2)]);
        p.record(&[Duration::from_millis(6), Duration::from_millis(1), Duration::from_millis(4)]);
        let r = p.report();
        assert!(r.contains("3 steps, 2 dispatches, 9.000 ms per dispatch"), "{r}");
        // conv2d: (10 + 6) / 2 = 8 ms, 88.9 %, two steps; listed before relu.
        let conv = r.find("     8.000   88.9      2  conv2d").expect(&r);
        let relu = r.find("     1.000   11.1      1  relu").expect(&r);
        assert!(conv < relu, "{r}");
        assert!(r.contains("     5.000   55.6  #0 conv2d a"), "{r}");
        assert!(r.contains("every step on the dispatching thread"), "{r}");
        p.set_first_in_pool(Some(1));
        let r = p.report();
        assert!(r.contains("in the pool from #1 relu b (the first step that wanted its threads)"), "{r}");
    }
}
