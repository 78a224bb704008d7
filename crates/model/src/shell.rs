//! Words put in a command line spindle prints for a user to paste, or hands to a shell: each
//! reads back unchanged, whatever it holds (a space, a quote, `$(...)`).

/// `word` as a POSIX shell reads it back unchanged: as it is when plainly safe, else in single
/// quotes (a quote in it closed, escaped and reopened).
pub fn word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::word;

    #[test]
    fn words_read_back_unchanged() {
        assert_eq!(word("it's"), "'it'\\''s'");
        assert_eq!(word("a b"), "'a b'");
        assert_eq!(word("-oX=1"), "-oX=1");
        assert_eq!(word("DIR/x$(touch y)"), "'DIR/x$(touch y)'");
        assert_eq!(word(""), "''");
    }
}
