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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_shown_as_text() {
        assert_eq!(esc("<script>alert(1)</script>").to_string(), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(esc("a\"b'c&d").to_string(), "a&quot;b&#39;c&amp;d");
        assert_eq!(esc("x\u{1}y").to_string(), "x\u{fffd}y");
    }
}
