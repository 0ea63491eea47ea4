//! [`redact`]: a PostgreSQL connection string (`POSTGRES_URL`) with every password form the
//! client accepts replaced by `***`, for messages.
//!
//! The client takes two forms: a URL, `postgres://user:password@host/db?password=...`, and
//! libpq's keyword form, `host=... user=... password=secret` (the value maybe quoted,
//! `password='se cret'`, with `\'` and `\\` escapes). Both are redacted; the rest is kept, so a
//! message still says which server was meant.

/// `conninfo` with its passwords replaced by `***`.
pub fn redact(conninfo: &str) -> String {
    let trimmed = conninfo.trim_start();
    if trimmed.starts_with("postgres://") || trimmed.starts_with("postgresql://") {
        redact_url(conninfo)
    } else {
        redact_keywords(conninfo)
    }
}

/// The URL form: the userinfo's password and any `password` query parameter.
fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (main, query) = match rest.split_once('?') {
        Some((main, query)) => (main, Some(query)),
        None => (rest, None),
    };
    // The authority ends at the first '/'; its userinfo at the last '@' within it.
    let (authority, path) = match main.find('/') {
        Some(i) => main.split_at(i),
        None => (main, ""),
    };
    let mut out = format!("{scheme}://");
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            match userinfo.split_once(':') {
                Some((user, _password)) => out.push_str(&format!("{user}:***")),
                None => out.push_str(userinfo),
            }
            out.push('@');
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    out.push_str(path);
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => pair.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

/// The keyword form: the value of every `password` keyword, quoted or not.
fn redact_keywords(conninfo: &str) -> String {
    let mut out = String::with_capacity(conninfo.len());
    let mut rest = conninfo;
    loop {
        // Copy whitespace, then read one `key = value` pair.
        let start = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        if rest.is_empty() {
            return out;
        }
        let key_end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let key = &rest[..key_end];
        out.push_str(key);
        rest = &rest[key_end..];
        let spaces = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..spaces]);
        rest = &rest[spaces..];
        let Some(after_eq) = rest.strip_prefix('=') else {
            // Not a keyword pair (malformed): keep the remainder as it is.
            out.push_str(rest);
            return out;
        };
        out.push('=');
        rest = after_eq;
        let spaces = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..spaces]);
        rest = &rest[spaces..];
        let value_end = value_len(rest);
        if key.eq_ignore_ascii_case("password") {
            out.push_str("***");
        } else {
            out.push_str(&rest[..value_end]);
        }
        rest = &rest[value_end..];
    }
}

/// The length of the value at the start of `s`: a quoted value up to its closing quote (with
/// `\'` and `\\` escapes), else up to the next whitespace.
fn value_len(s: &str) -> usize {
    let mut chars = s.char_indices();
    if s.starts_with('\'') {
        chars.next();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '\'' => return i + 1,
                _ => {}
            }
        }
        return s.len();
    }
    s.find(char::is_whitespace).unwrap_or(s.len())
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn url_userinfo_password_is_redacted() {
        assert_eq!(
            redact("postgres://alice:SECRET@db.example/x"),
            "postgres://alice:***@db.example/x"
        );
        assert_eq!(
            redact("postgresql://alice@db.example/x"),
            "postgresql://alice@db.example/x"
        );
    }

    #[test]
    fn url_password_parameter_is_redacted() {
        assert_eq!(
            redact("postgres://alice@h/x?sslmode=disable&password=SECRET"),
            "postgres://alice@h/x?sslmode=disable&password=***"
        );
    }

    #[test]
    fn keyword_password_is_redacted_quoted_or_not() {
        assert_eq!(
            redact("host=/tmp user=alice password=SECRET dbname=x"),
            "host=/tmp user=alice password=*** dbname=x"
        );
        assert_eq!(
            redact("host=/tmp password = 'SE \\' CRET' dbname=x"),
            "host=/tmp password = *** dbname=x"
        );
        assert_eq!(redact("PASSWORD=SECRET"), "PASSWORD=***");
        assert_eq!(redact("host=/tmp user=alice"), "host=/tmp user=alice");
    }
}
