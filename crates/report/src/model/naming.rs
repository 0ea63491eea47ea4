//! Names and dates: the result folder `<date>-<host>-<label>`, UTC timestamps without a date
//! library.

pub use triebench_record::time::{now, today};

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
    use triebench_record::time::{date_of, timestamp_of};

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
