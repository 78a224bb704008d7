//! The report as Markdown: the same sections and tables as the HTML page (its charts are
//! drawn from figures these tables hold), for a wiki page or a ticket.

use crate::document::{RunSource, slim_document};
use crate::format::{ExportError, Exporter};
use crate::view::{Section, Table, each_run_section, summary_view};
use std::fmt::Write;

pub struct MarkdownExporter;

/// The overview and the sections over every run, from slim runs; then each run's section as
/// the run is read again.
impl Exporter for MarkdownExporter {
    fn write(&self, runs: &dyn RunSource, out: &mut dyn std::io::Write) -> Result<(), ExportError> {
        let v = summary_view(&slim_document(runs)?);
        let mut text = format!("# {}\n\n", cell(&v.title));
        if !v.generated_at.is_empty() {
            let _ = writeln!(text, "Made by spindle at {}.\n", v.generated_at);
        }
        for line in &v.overview {
            let _ = writeln!(text, "{}\n", cell(line));
        }
        for s in &v.sections {
            section(&mut text, s);
        }
        out.write_all(text.as_bytes())?;
        each_run_section(runs, v.latency_unit, &mut |s| {
            let mut text = String::new();
            section(&mut text, &s);
            Ok(out.write_all(text.as_bytes())?)
        })
    }
}

fn section(out: &mut String, s: &Section) {
    let _ = writeln!(out, "{} {}\n", "#".repeat(s.level as usize), cell(&s.title));
    for note in &s.notes {
        let _ = writeln!(out, "{}\n", cell(note));
    }
    for t in &s.tables {
        table(out, t);
    }
    for (caption, text) in &s.blocks {
        let _ = writeln!(out, "{caption}:\n\n```\n{}\n```\n", text.replace("```", "'''"));
    }
}

/// Text made safe inside a table cell or a line: no pipe splits a cell, no markup starts.
fn cell(text: &str) -> String {
    let text = text
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    // An escape sequence in a label or an imported name would act on the terminal of whoever
    // prints the file: written out as `\x1b`, as the text views write it.
    if !text.contains(char::is_control) {
        return text;
    }
    text.chars().map(|c| if c.is_control() { format!("\\x{:02x}", c as u32) } else { c.to_string() }).collect()
}

fn table(out: &mut String, t: &Table) {
    if t.rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "**{}**\n", cell(&t.title));
    let pairs = t.columns.iter().all(|c| c.is_empty());
    let width = t.columns.len();
    let header: Vec<String> = if pairs { vec!["".into(); width] } else { t.columns.iter().map(|c| cell(c)).collect() };
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let align: Vec<&str> = (0..width)
        .map(|i| {
            if t.rows.iter().any(|r| r.get(i).is_some_and(|c| c.value.is_some())) && !(pairs && i == 0) {
                "---:"
            } else {
                "---"
            }
        })
        .collect();
    let _ = writeln!(out, "| {} |", align.join(" | "));
    for row in &t.rows {
        let cells: Vec<String> = (0..width).map(|i| row.get(i).map_or(String::new(), |c| cell(&c.text))).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cell_holds_no_markup_line_break_or_terminal_code() {
        assert_eq!(super::cell("t\u{1b}]0;owned\u{7}|<b>\nx"), "t\\x1b]0;owned\\x07\\|&lt;b&gt; x");
        assert_eq!(super::cell("plain 8KiB"), "plain 8KiB");
    }
}
