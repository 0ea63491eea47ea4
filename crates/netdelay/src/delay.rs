//! [`DelaySpec`]: what the proxy adds per direction, parsed from `500us`, `1ms`, `0`.

use std::fmt;
use std::time::Duration;

/// What the proxy adds to each direction of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DelaySpec {
    /// Delay from the client to the server.
    pub up: Duration,
    /// Delay from the server back to the client.
    pub down: Duration,
    /// Each chunk's delay is the direction's plus a uniform draw in `0..=jitter` (order kept).
    pub jitter: Duration,
    /// Bytes per second each direction carries at most (`None`: unlimited).
    pub bandwidth: Option<u64>,
}

/// A delay or bandwidth that does not parse.
#[derive(Debug, thiserror::Error)]
pub enum DelaySpecError {
    /// Not a duration such as `500us`, `0.25ms` or `1ms`.
    #[error("`{0}` is not a duration: give a number with us, ms or s (`500us`, `0.25ms`, `0`)")]
    Duration(String),
    /// Not a rate such as `100mbit` or `12500000` (bytes per second).
    #[error("`{0}` is not a bandwidth: give bytes per second or a number with kbit, mbit, gbit")]
    Bandwidth(String),
}

impl DelaySpec {
    /// A round trip of `rtt`, half each way, no jitter, unlimited bandwidth.
    pub fn from_rtt(rtt: Duration) -> Self {
        DelaySpec {
            up: rtt / 2,
            down: rtt - rtt / 2,
            ..DelaySpec::default()
        }
    }

    /// The round trip the spec adds (both directions' delays, jitter not counted).
    pub fn rtt(&self) -> Duration {
        self.up + self.down
    }

    /// Whether the proxy holds chunks at all (a delay, jitter or bandwidth is set).
    pub fn delays(&self) -> bool {
        !self.up.is_zero()
            || !self.down.is_zero()
            || !self.jitter.is_zero()
            || self.bandwidth.is_some()
    }

    /// Parses a duration: `0`, or a decimal number followed by `ns`, `us` (`µs`), `ms` or `s`.
    pub fn parse_duration(text: &str) -> Result<Duration, DelaySpecError> {
        let t = text.trim();
        if t == "0" {
            return Ok(Duration::ZERO);
        }
        let bad = || DelaySpecError::Duration(text.to_string());
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (number, unit) = t.split_at(split);
        let number: f64 = number.parse().map_err(|_| bad())?;
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            _ => return Err(bad()),
        };
        let secs = number * scale;
        if !secs.is_finite() || !(0.0..=60.0).contains(&secs) {
            return Err(bad());
        }
        Ok(Duration::from_secs_f64(secs))
    }

    /// Parses a bandwidth: bytes per second, or a number followed by `kbit`, `mbit` or `gbit`.
    pub fn parse_bandwidth(text: &str) -> Result<u64, DelaySpecError> {
        let t = text.trim().to_ascii_lowercase();
        let bad = || DelaySpecError::Bandwidth(text.to_string());
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let number: f64 = number.parse().map_err(|_| bad())?;
        let bits = match unit {
            "" => 8.0,
            "kbit" => 1e3,
            "mbit" => 1e6,
            "gbit" => 1e9,
            _ => return Err(bad()),
        };
        let bytes = number * bits / 8.0;
        if !bytes.is_finite() || bytes < 1.0 {
            return Err(bad());
        }
        Ok(bytes as u64)
    }
}

impl fmt::Display for DelaySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rtt {} µs", self.rtt().as_micros())?;
        if !self.jitter.is_zero() {
            write!(f, ", jitter {} µs", self.jitter.as_micros())?;
        }
        if let Some(bw) = self.bandwidth {
            write!(f, ", {} bytes/s", bw)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_bandwidths_parse_and_bad_ones_are_errors() {
        assert_eq!(
            DelaySpec::parse_duration("500us").unwrap(),
            Duration::from_micros(500)
        );
        assert_eq!(
            DelaySpec::parse_duration("0.25ms").unwrap(),
            Duration::from_micros(250)
        );
        assert_eq!(
            DelaySpec::parse_duration("1ms").unwrap(),
            Duration::from_millis(1)
        );
        assert_eq!(DelaySpec::parse_duration("0").unwrap(), Duration::ZERO);
        for bad in ["", "5", "ms", "1h", "-1ms", "99s"] {
            assert!(DelaySpec::parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(DelaySpec::parse_bandwidth("100mbit").unwrap(), 12_500_000);
        assert_eq!(DelaySpec::parse_bandwidth("1000").unwrap(), 1000);
        assert!(DelaySpec::parse_bandwidth("fast").is_err());
        let spec = DelaySpec::from_rtt(Duration::from_micros(501));
        assert_eq!(spec.rtt(), Duration::from_micros(501));
        assert!(spec.delays());
        assert!(!DelaySpec::default().delays());
    }
}
