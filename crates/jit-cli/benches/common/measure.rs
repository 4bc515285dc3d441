//! Timing and medians for the runs a benchmark makes by hand, beside
//! divan's (interleaved runs, two builds alternating, engine times).

/// How long `f` takes, in milliseconds.
pub(crate) fn timed_ms<T>(f: impl FnOnce() -> T) -> f64 {
    let t = std::time::Instant::now();
    let _ = f();
    t.elapsed().as_secs_f64() * 1e3
}

/// The median of `values` (the upper one of an even count).
pub(crate) fn median<T: PartialOrd + Copy>(mut values: Vec<T>) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    values[values.len() / 2]
}
