//! Names and dates: the result folder `<date>-<host>-<label>`, UTC timestamps without a date
//! library.

use std::time::{SystemTime, UNIX_EPOCH};

/// (year, month, day) of the proleptic Gregorian calendar for `days` since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `YYYY-MM-DD` for `secs` since the epoch (UTC).
pub fn date_of(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DDTHH:MM:SSZ` for `secs` since the epoch.
pub fn timestamp_of(secs: i64) -> String {
    let rem = secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        date_of(secs),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Today's date (UTC).
pub fn today() -> String {
    date_of(now_secs())
}

/// The current time (UTC, RFC 3339).
pub fn now() -> String {
    timestamp_of(now_secs())
}

/// `text` reduced to `[A-Za-z0-9._-]` (other characters become `_`), never empty.
pub fn file_safe(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('.').to_string();
    if s.is_empty() {
        "_".to_string()
    } else {
        s
    }
}

/// The result folder's name: `<date>-<host>-<label>`.
pub fn folder_name(date: &str, host: &str, label: &str) -> String {
    format!("{date}-{}-{}", file_safe(host), file_safe(label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_right() {
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(timestamp_of(951_782_400 + 3661), "2000-02-29T01:01:01Z");
        assert_eq!(date_of(1_709_251_199), "2024-02-29");
        assert_eq!(date_of(-86_400), "1969-12-31");
    }

    #[test]
    fn names_are_file_safe() {
        assert_eq!(
            folder_name("2024-01-02", "my host", "tmpfs-ext4"),
            "2024-01-02-my_host-tmpfs-ext4"
        );
        assert_eq!(file_safe("../x"), "_x");
        assert_eq!(file_safe(""), "_");
    }
}
