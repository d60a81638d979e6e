//! A one-line progress bar on standard error, drawn only when it is a terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// A progress bar redrawn at most ten times a second.
pub struct Progress {
    enabled: bool,
    last: Option<Instant>,
}

impl Progress {
    /// A bar shown if standard error is a terminal.
    pub fn on_terminal() -> Self {
        Progress { enabled: std::io::stderr().is_terminal(), last: None }
    }

    /// Shows `fraction` (0..=1) done with a message.
    pub fn update(&mut self, fraction: f64, message: &str) {
        if !self.enabled || self.last.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
            return;
        }
        self.last = Some(Instant::now());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{}\x1b[K", render(fraction, 30, message));
        let _ = err.flush();
    }

    /// Clears the line.
    pub fn finish(&mut self) {
        if self.enabled && self.last.is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
        self.last = None;
    }
}

/// `[#####.....]  50% message`
pub fn render(fraction: f64, width: usize, message: &str) -> String {
    let f = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
    let filled = ((f * width as f64).round() as usize).min(width);
    format!("[{}{}] {:>3.0}% {message}", "#".repeat(filled), ".".repeat(width - filled), f * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_bars() {
        assert_eq!(render(0.0, 4, "x"), "[....]   0% x");
        assert_eq!(render(0.5, 4, "x"), "[##..]  50% x");
        assert_eq!(render(1.0, 4, ""), "[####] 100% ");
        assert_eq!(render(7.0, 4, ""), "[####] 100% ");
        assert_eq!(render(f64::NAN, 2, ""), "[..]   0% ");
    }
}
