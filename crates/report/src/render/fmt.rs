//! Human-readable numbers for tables and plots: durations, ratios, intervals, rates.

use crate::model::results::{Throughput, ThroughputUnit};

/// `x` with three significant digits (no exponent), e.g. `1.23`, `12.3`, `123`.
pub fn sig3(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else if a >= 0.1 {
        format!("{x:.3}")
    } else {
        format!("{x:.2e}")
    }
}

/// A duration given in nanoseconds, e.g. `812 ns`, `12.3 µs`, `4.56 ms`, `1.23 s`.
pub fn time_ns(ns: f64) -> String {
    let a = ns.abs();
    if !ns.is_finite() {
        "–".to_string()
    } else if a < 1e3 {
        format!("{} ns", sig3(ns))
    } else if a < 1e6 {
        format!("{} µs", sig3(ns / 1e3))
    } else if a < 1e9 {
        format!("{} ms", sig3(ns / 1e6))
    } else {
        format!("{} s", sig3(ns / 1e9))
    }
}

/// `text` with trailing zeros of its number removed: `1.00 µs` → `1 µs`, `2.50×` → `2.5×`.
pub fn trim_zeros(text: &str) -> String {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(end);
    if number.contains('.') {
        format!(
            "{}{unit}",
            number.trim_end_matches('0').trim_end_matches('.')
        )
    } else {
        text.to_string()
    }
}

/// A ratio, e.g. `1.02×`, `18.2×`, `99×`.
pub fn ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{}×", sig3(r))
    } else {
        "–".to_string()
    }
}

/// A ratio with its interval, e.g. `18.2× [17.9–18.6]`.
pub fn ratio_ci(r: f64, low: f64, high: f64) -> String {
    format!("{} [{}–{}]", ratio(r), sig3(low), sig3(high))
}

/// A rate with SI prefixes, e.g. `372 MB/s`, `1.25 Melem/s`.
pub fn rate(per_second: f64, unit: ThroughputUnit) -> String {
    let name = match unit {
        ThroughputUnit::Bytes => "B",
        ThroughputUnit::Elements => "elem",
        ThroughputUnit::Bits => "bit",
    };
    let (scaled, prefix) = if per_second >= 1e9 {
        (per_second / 1e9, "G")
    } else if per_second >= 1e6 {
        (per_second / 1e6, "M")
    } else if per_second >= 1e3 {
        (per_second / 1e3, "K")
    } else {
        (per_second, "")
    };
    format!("{} {prefix}{name}/s", sig3(scaled))
}

/// Every declared throughput at `ns_per_iter`, joined with `, ` (empty if none).
pub fn throughputs(list: &[Throughput], ns_per_iter: f64) -> String {
    list.iter()
        .map(|t| rate(t.per_second(ns_per_iter), t.unit))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An axis label for a value in µs, as a time (`1.5 ms`), trailing zeros dropped.
pub fn axis_us(v: f64) -> String {
    trim_zeros(&time_ns(v * 1e3))
}

/// An axis label for a count, three significant figures, trailing zeros dropped.
pub fn axis_count(v: f64) -> String {
    trim_zeros(&sig3(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(time_ns(812.4), "812 ns");
        assert_eq!(time_ns(12_345.0), "12.3 µs");
        assert_eq!(time_ns(4_560_000.0), "4.56 ms");
        assert_eq!(time_ns(663.6e9), "664 s");
        assert_eq!(ratio(18.24), "18.2×");
        assert_eq!(ratio_ci(1.0, 0.951, 1.049), "1.00× [0.951–1.05]");
        assert_eq!(rate(372e6, ThroughputUnit::Bytes), "372 MB/s");
        assert_eq!(trim_zeros("1.00 µs"), "1 µs");
        assert_eq!(trim_zeros("2.50×"), "2.5×");
        assert_eq!(trim_zeros("100 ms"), "100 ms");
        assert_eq!(rate(1250.0, ThroughputUnit::Elements), "1.25 Kelem/s");
    }
}
