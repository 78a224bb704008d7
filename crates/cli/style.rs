//! Colour, the way people expect it of a command-line tool: only on a terminal, never under
//! `NO_COLOR` (no-color.org) or `TERM=dumb`, and forced with `CLICOLOR_FORCE=1` (for pagers
//! such as `less -R`). Reports stay plain: exporters never colour, and what goes to a file or
//! a pipe is byte for byte what they wrote. On a terminal, the words that carry a verdict are
//! picked out: the ones to act on in red, the all-clear in green, the doubtful in yellow.

use std::io::IsTerminal;
use std::sync::OnceLock;

/// Which stream the text goes to.
#[derive(Clone, Copy)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Whether text for `stream` is coloured, decided once per stream.
pub fn enabled(stream: Stream) -> bool {
    static STDOUT: OnceLock<bool> = OnceLock::new();
    static STDERR: OnceLock<bool> = OnceLock::new();
    let (cell, terminal): (&OnceLock<bool>, fn() -> bool) = match stream {
        Stream::Stdout => (&STDOUT, || std::io::stdout().is_terminal()),
        Stream::Stderr => (&STDERR, || std::io::stderr().is_terminal()),
    };
    *cell.get_or_init(|| decide(&|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()), terminal()))
}

/// The rule, apart from the process's environment so it can be tested.
fn decide(env: &dyn Fn(&str) -> Option<String>, terminal: bool) -> bool {
    if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if env("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    terminal && env("TERM").as_deref() != Some("dumb")
}

const RED: &str = "\x1b[1;31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// `text` in red when `stream` takes colour (the error prefix).
pub fn error(text: &str, stream: Stream) -> String {
    paint(text, RED, stream)
}

/// `text` in yellow when `stream` takes colour (the warning prefix).
pub fn warning(text: &str, stream: Stream) -> String {
    paint(text, YELLOW, stream)
}

fn paint(text: &str, colour: &str, stream: Stream) -> String {
    if enabled(stream) { format!("{colour}{text}{RESET}") } else { text.to_string() }
}

/// Phrases that carry a verdict in spindle's text reports, and their colour.
const VERDICTS: [(&str, &str); 9] = [
    ("B worse", RED),
    ("FAULTY SECTORS", RED),
    ("ACKNOWLEDGED WRITES LOST", RED),
    ("B better", GREEN),
    (": no faults", GREEN),
    ("every acknowledged write is there", GREEN),
    ("inconclusive", YELLOW),
    ("hint:", YELLOW),
    ("warning:", YELLOW),
];

/// A text report as the terminal shows it: its verdict phrases coloured.
pub fn verdicts(text: &str) -> String {
    let mut out = text.to_string();
    for (phrase, colour) in VERDICTS {
        out = out.replace(phrase, &format!("{colour}{phrase}{RESET}"));
    }
    out
}

/// Text from a user or a file as a terminal may be given it: control characters (C0 but line
/// feed and tab, DEL, C1) written out as `\xNN`, so a label or an imported target cannot set
/// the window title, clear the screen or move the cursor. Every text spindle prints passes
/// here (`output::write_text`, `write_report`, notes, warnings and errors on stderr).
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.contains(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn colour_on_a_terminal_only_and_never_under_no_color() {
        assert!(decide(&env(&[]), true));
        assert!(!decide(&env(&[]), false));
        assert!(!decide(&env(&[("NO_COLOR", "1")]), true));
        assert!(!decide(&env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]), true), "NO_COLOR wins");
        assert!(decide(&env(&[("CLICOLOR_FORCE", "1")]), false));
        assert!(!decide(&env(&[("CLICOLOR_FORCE", "0")]), false));
        assert!(!decide(&env(&[("TERM", "dumb")]), true));
        assert!(decide(&env(&[("NO_COLOR", "")]), true), "an empty NO_COLOR is unset, as no-color.org says");
    }

    #[test]
    fn control_characters_are_shown_escaped_and_the_rest_as_is() {
        let hostile = "t\x1b]0;owned\x07\x1b[2J\r\u{9b}31m\x7f.dat";
        assert_eq!(printable(hostile), "t\\x1b]0;owned\\x07\\x1b[2J\\x0d\\x9b31m\\x7f.dat");
        let plain = "line\tone\nµs ±3% naïve\n";
        assert!(matches!(printable(plain), std::borrow::Cow::Borrowed(p) if p == plain));
    }

    #[test]
    fn verdict_phrases_are_picked_out_and_the_rest_left_alone() {
        let text = "IOPS  +12.00%  B better\nlatency  -3%  inconclusive\nplain line\n";
        let painted = verdicts(text);
        assert!(painted.contains("\x1b[32mB better\x1b[0m") && painted.contains("\x1b[33minconclusive\x1b[0m"));
        assert!(painted.contains("\nplain line\n"));
        assert_eq!(painted.replace(GREEN, "").replace(YELLOW, "").replace(RESET, ""), text);
    }
}
