//! The report as one self-contained HTML page: inline CSS and SVG, no script, nothing fetched,
//! so it opens offline, mails as one file, and prints (each chart and table kept on a page).
//! `spindle serve` draws its pages with the same renderer, inside a `Frame` of its own.

pub mod escape;
mod svg;

use crate::document::{RunSource, slim_document};
use crate::format::{ExportError, Exporter};
use crate::view::{ReportView, Section, Table, each_run_section, summary_view};
use escape::{esc, esc_breakable};
use std::fmt::Write;

pub struct HtmlExporter;

/// The page's top and its sections over every run, from slim runs; then each run's section
/// as the run is read again, written at once.
impl Exporter for HtmlExporter {
    fn write(&self, runs: &dyn RunSource, out: &mut dyn std::io::Write) -> Result<(), ExportError> {
        let view = summary_view(&slim_document(runs)?);
        let frame = Frame::default();
        out.write_all(top(&view, &frame).as_bytes())?;
        each_run_section(runs, view.latency_unit, &mut |s| {
            let mut text = String::new();
            section(&mut text, &s);
            Ok(out.write_all(text.as_bytes())?)
        })?;
        out.write_all(bottom(&frame).as_bytes())?;
        Ok(())
    }
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:2px solid #246;margin-top:2em}h3{margin-top:1.6em;color:#246}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:12.5px;max-width:100%}th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
td{overflow-wrap:break-word}table:has(th.wide){width:100%}th.wide{width:25%}
th{background:#eef2f7;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{text-align:left;font-weight:600;padding:2px 0}
figure{margin:.8em 0}figcaption{font-weight:600}svg{max-width:100%;height:auto;font-size:11px}
svg text.l{text-anchor:end}svg text.m{text-anchor:middle}svg text.axis{fill:#555}svg rect{fill:#3a6ea5}
svg path.ax{stroke:#888;fill:none}svg path.s0{stroke:#3a6ea5;stroke-width:2;fill:none}svg path.s1{stroke:#c0504d;stroke-width:2;fill:none}
svg path.s2{stroke:#9bbb59;stroke-width:2;fill:none}svg circle{fill:#3a6ea5}svg path.mark{stroke:#c0504d;stroke-dasharray:4 3}
svg text.markt{fill:#c0504d;font-weight:600}svg path.ci{stroke:#3a6ea5;stroke-width:3}svg rect.band{fill:#eee}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px;white-space:pre-wrap}
.note{margin:.3em 0}.toc{columns:2}
@media print{body{margin:0;max-width:none}figure,table,pre{break-inside:avoid}h2,h3{break-after:avoid}a{color:inherit}}";

/// What a page adds around the report: markup its maker wrote (and escaped) itself. The
/// exported report has none; a served page has its navigation, forms and script.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// Inside `<head>`, after the report's style.
    pub head: String,
    /// First in `<body>`, before the title.
    pub top: String,
    /// After the sections, last in `<body>`.
    pub bottom: String,
}

/// The report page with `frame`'s markup around it.
pub fn render_framed(v: &ReportView, frame: &Frame) -> String {
    let mut out = top(v, frame);
    out.push_str(&bottom(frame));
    out
}

/// The page up to its end: the head, the title, the overview, the contents and the sections.
fn top(v: &ReportView, frame: &Frame) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><style>{STYLE}</style>{}</head><body>\n{}<h1>{}</h1>\n",
        esc(&v.title),
        frame.head,
        frame.top,
        esc(&v.title)
    );
    if !v.generated_at.is_empty() {
        let _ = writeln!(out, "<p>Made by spindle at {}.</p>", esc(&v.generated_at));
    }
    for line in &v.overview {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(line));
    }
    if v.contents.len() > 1 {
        out.push_str("<ul class=\"toc\">");
        for (anchor, title) in &v.contents {
            let _ = write!(out, "<li><a href=\"#{}\">{}</a></li>", esc(anchor), esc(title));
        }
        out.push_str("</ul>\n");
    }
    for s in &v.sections {
        section(&mut out, s);
    }
    out
}

/// What follows the last section: the frame's bottom and the page's end.
fn bottom(frame: &Frame) -> String {
    format!("{}</body></html>\n", frame.bottom)
}

fn section(out: &mut String, s: &Section) {
    let level = s.level.clamp(2, 4);
    let _ = writeln!(out, "<section id=\"{}\"><h{level}>{}</h{level}>", esc(&s.anchor), esc(&s.title));
    for note in &s.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(note));
    }
    // A run's figures, a check's findings: the answer, before any chart.
    let lead = s.lead_tables.min(s.tables.len());
    for t in &s.tables[..lead] {
        table(out, t);
    }
    for c in &s.charts {
        svg::chart(out, c);
    }
    for t in &s.tables[lead..] {
        table(out, t);
    }
    for (caption, text) in &s.blocks {
        let _ = writeln!(out, "<details><summary>{}</summary><pre>{}</pre></details>", esc(caption), esc(text));
    }
    out.push_str("</section>\n");
}

/// A table; one with no rows (no counters were sampled) is not drawn.
fn table(out: &mut String, t: &Table) {
    if t.rows.is_empty() {
        return;
    }
    let wide = |i: usize| if t.wide.contains(&i) { " class=\"wide\"" } else { "" };
    let pairs = t.columns.iter().all(|c| c.is_empty());
    let _ = write!(out, "<table{}><caption>{}</caption>", if pairs { " class=\"pairs\"" } else { "" }, esc(&t.title));
    if !pairs {
        out.push_str("<tr>");
        for (i, c) in t.columns.iter().enumerate() {
            // A column's name (`log_bytes_written`) may break at its punctuation sooner than a
            // cell's: it is never the point.
            let _ = write!(out, "<th{}>{}</th>", wide(i), esc_breakable(c, 10));
        }
        out.push_str("</tr>");
    }
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if cell.value.is_some() && !(pairs && i == 0) { " class=\"n\"" } else { wide(i) };
            let tag = if pairs && i == 0 { "th" } else { "td" };
            let _ = write!(out, "<{tag}{class}>{}</{tag}>", esc_breakable(&cell.text, escape::LONG_WORD));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>\n");
}
