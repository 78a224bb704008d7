//! Every string from a run (labels, paths, host names, imported file content) goes through
//! here before it reaches the page: as text, never as markup.

use std::fmt::Write;

pub struct Escaped<'a>(pub &'a str);

impl std::fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in self.0.chars() {
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                // Control characters (from a corrupt or hostile file) would make the page
                // invalid XML inside SVG; they carry nothing a reader needs.
                c if c.is_control() && c != '\n' && c != '\t' => f.write_char('\u{fffd}')?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

pub fn esc(s: &str) -> Escaped<'_> {
    Escaped(s)
}

/// Words longer than this may break after their punctuation.
pub const LONG_WORD: usize = 20;

/// Escaped text whose words longer than `long` (paths, mount options, counter names) may
/// break after a `/`, `\`, `,`, `=` or `_` (a `<wbr>`), so a table column of them wraps where
/// a reader expects, and shorter words (`complete`, a date) are never cut.
pub fn esc_breakable(s: &str, long: usize) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for (i, word) in s.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if word.chars().count() <= long {
            let _ = write!(out, "{}", esc(word));
            continue;
        }
        for c in word.chars() {
            let mut one = [0u8; 4];
            let _ = write!(out, "{}", esc(c.encode_utf8(&mut one)));
            if matches!(c, '/' | '\\' | ',' | '=' | '_') {
                out.push_str("<wbr>");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_words_break_after_their_punctuation_and_short_ones_never() {
        assert_eq!(esc_breakable("complete 2026-11-28T21:28:04Z", LONG_WORD), "complete 2026-11-28T21:28:04Z");
        assert_eq!(
            esc_breakable("rw,relatime,discard,resv=<x>", LONG_WORD),
            "rw,<wbr>relatime,<wbr>discard,<wbr>resv=<wbr>&lt;x&gt;"
        );
        assert_eq!(esc_breakable("log_write_ios I/O", 10), "log_<wbr>write_<wbr>ios I/O");
    }

    #[test]
    fn markup_is_shown_as_text() {
        assert_eq!(esc("<script>alert(1)</script>").to_string(), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(esc("a\"b'c&d").to_string(), "a&quot;b&#39;c&amp;d");
        assert_eq!(esc("x\u{1}y").to_string(), "x\u{fffd}y");
    }
}
