//! At most [`EXCERPT_BYTES`] of any input in a message: a 100 KB manifest value or a 1 MB
//! `ratios.json` value must not become a 1 MB error line.
//!
//! [`excerpt`] cuts one value; [`clip_quoted`] cuts every stretch between a pair of quote
//! characters (`"` or a backtick, how serde and triebench's messages quote what they read) in
//! a message, leaving its fixed text whole. Every error type of the readers (the record's, the
//! report's) formats its variable parts through them.

use std::borrow::Cow;

/// The most bytes of one input a message quotes.
pub const EXCERPT_BYTES: usize = 100;

/// `text` whole when it is at most [`EXCERPT_BYTES`] long, else its first [`EXCERPT_BYTES`]
/// (cut at a character boundary) and how long it was.
pub fn excerpt(text: &str) -> Cow<'_, str> {
    if text.len() <= EXCERPT_BYTES {
        return text.into();
    }
    let mut end = EXCERPT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len()).into()
}

/// `message` with the inside of every pair of quote characters (`"`...`"`, `` ` ``...`` ` ``)
/// cut to an [`excerpt`]; an unclosed quote's rest is cut too.
pub fn clip_quoted(message: &str) -> Cow<'_, str> {
    if message.len() <= EXCERPT_BYTES {
        return message.into();
    }
    let mut out = String::with_capacity(message.len().min(4096));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = &rest[open..open + 1];
        out.push_str(&rest[..=open]);
        let inside = &rest[open + 1..];
        match inside.find(quote) {
            Some(close) => {
                out.push_str(&excerpt(&inside[..close]));
                out.push_str(quote);
                rest = &inside[close + 1..];
            }
            None => {
                out.push_str(&excerpt(inside));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_stretches_are_cut_and_fixed_text_kept() {
        let huge = "x".repeat(100_000);
        let msg = format!("invalid type: string \"{huge}\", expected u32 at line 1 column 9");
        let clipped = clip_quoted(&msg);
        assert!(clipped.len() < 250, "{clipped}");
        assert!(
            clipped.ends_with("expected u32 at line 1 column 9"),
            "{clipped}"
        );
        assert!(clipped.contains("(100000 bytes in all)"), "{clipped}");
        let short = "run `a` again";
        assert_eq!(clip_quoted(short), short);
    }
}
