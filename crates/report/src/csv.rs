//! One CSV row per scope of each record: the total, each target, each thread. Columns are
//! plain numbers in base units (ns, bytes, decimal MB) so a spreadsheet can chart them as is.
//! The latency every view leads with comes first, with `latency_of` saying whose it is
//! (`commit` or `io`); the `lat_*` columns keep each I/O's, as they always have, for the
//! tools that read them by name.

use crate::document::{Document, ReportRun, RunSource};
use crate::format::{ExportError, Exporter};
use spindle_model::record::IoStats;
use std::fmt::Write;

const HEADER: &[&str] = &[
    "run",
    "started_at",
    "kind",
    "status",
    "scope",
    "target",
    "thread",
    "path",
    "workload",
    "seconds",
    "ios",
    "bytes",
    "iops",
    "mb_per_sec",
    "mib_per_sec",
    "latency_of",
    "lead_mean_ns",
    "lead_p99_ns",
    "lat_min_ns",
    "lat_mean_ns",
    "lat_max_ns",
    "lat_stddev_ns",
    "lat_p50_ns",
    "lat_p90_ns",
    "lat_p95_ns",
    "lat_p99_ns",
    "lat_p99_9_ns",
    "lat_p99_99_ns",
    "read_ios",
    "write_ios",
    "read_mean_ns",
    "write_mean_ns",
    "flushes",
    "flush_mean_ns",
    "commits",
    "commit_mean_ns",
    "commit_p99_ns",
    "cpu_us_per_io",
    "labels",
];

pub struct CsvExporter;

/// The header, then each run's rows as it is read.
impl Exporter for CsvExporter {
    fn write(&self, runs: &dyn RunSource, out: &mut dyn std::io::Write) -> Result<(), ExportError> {
        writeln!(out, "{}", HEADER.join(","))?;
        let mut position = 0;
        runs.each(&mut |run| {
            out.write_all(rows(run, position).as_bytes())?;
            position += 1;
            Ok(())
        })
    }
}

pub fn render_csv(doc: &Document) -> Vec<u8> {
    // Writing to memory cannot fail.
    CsvExporter.export(doc).unwrap_or_default()
}

/// A run's rows: its total, each target, each thread. The `run` column is the stored run's id
/// (a run not saved yet is numbered by its `position`, prefixed `#`).
fn rows(run: &ReportRun, position: usize) -> String {
    let mut out = String::new();
    let r = &run.record;
    let id = run.id.map_or_else(|| format!("#{}", position + 1), |id| id.to_string());
    let labels: Vec<String> = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let labels = labels.join(";");
    // A figure the run's tool did not record is an empty field, CSV's absent value.
    let lat = |ok: bool, v: String| if ok { v } else { String::new() };
    let mut row = |scope: &str, target: Option<usize>, thread: Option<u32>, s: &IoStats| {
        // Nor is the latency of no operation at all.
        let run = if thread.is_some() { r.recorded().of_thread() } else { r.recorded() };
        let recorded = run.of_count(s.ios);
        let lead_recorded = run.of_count(s.lead_count());
        let pct = |v: u64| lat(recorded.percentiles, v.to_string());
        let t = target.and_then(|t| r.targets.get(t));
        let (lead, lead_latency) = s.lead_latency();
        let fields = [
            id.clone(),
            r.started_at.clone(),
            r.kind().name().to_string(),
            r.status.name().to_string(),
            scope.to_string(),
            target.map(|t| (t + 1).to_string()).unwrap_or_default(),
            thread.map(|t| t.to_string()).unwrap_or_default(),
            t.map(|t| t.path.clone()).unwrap_or_default(),
            t.map(|t| t.workload.clone()).unwrap_or_default(),
            r.measured_seconds.to_string(),
            s.ios.to_string(),
            s.bytes.to_string(),
            format!("{:.3}", s.iops),
            format!("{:.3}", s.mb_per_sec),
            format!("{:.3}", s.mib_per_sec),
            lead.name().to_string(),
            lat(lead_recorded.latency, format!("{:.1}", lead_latency.mean)),
            lat(lead_recorded.percentiles, lead_latency.p99.to_string()),
            lat(recorded.min, s.latency_ns.min.to_string()),
            lat(recorded.latency, format!("{:.1}", s.latency_ns.mean)),
            lat(recorded.max, s.latency_ns.max.to_string()),
            lat(recorded.stddev, format!("{:.1}", s.latency_ns.stddev)),
            pct(s.latency_ns.p50),
            pct(s.latency_ns.p90),
            pct(s.latency_ns.p95),
            pct(s.latency_ns.p99),
            pct(s.latency_ns.p99_9),
            pct(s.latency_ns.p99_99),
            s.read.ios.to_string(),
            s.write.ios.to_string(),
            lat(run.of_count(s.read.ios).latency, format!("{:.1}", s.read.latency_ns.mean)),
            lat(run.of_count(s.write.ios).latency, format!("{:.1}", s.write.latency_ns.mean)),
            s.flush.count.to_string(),
            format!("{:.1}", s.flush.latency_ns.mean),
            s.commit.count.to_string(),
            format!("{:.1}", s.commit.latency_ns.mean),
            s.commit.latency_ns.p99.to_string(),
            lat(recorded.cpu, format!("{:.3}", s.cpu.us_per_io)),
            labels.clone(),
        ];
        let quoted: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        let _ = writeln!(out, "{}", quoted.join(","));
    };
    row("total", None, None, &r.summary);
    for (t, target) in r.targets.iter().enumerate() {
        row("target", Some(t), None, &target.stats);
    }
    for th in &r.threads {
        row("thread", Some(th.target), Some(th.thread), &th.stats);
    }
    out
}

/// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. Before
/// that, OWASP's defence against formula injection: a spreadsheet runs a cell beginning `=`,
/// `+`, `-` or `@` (or a tab or carriage return before one) as a formula, so text from a
/// user or an imported file (a target named `=HYPERLINK(...)`) gets a leading `'` and is
/// shown as the text it is. A number (`-3.5`) stays a number, to be charted.
fn quote(field: &str) -> String {
    let field = if field.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_number(field) {
        format!("'{field}")
    } else {
        field.to_string()
    };
    if field.contains([',', '"', '\n', '\r']) { format!("\"{}\"", field.replace('"', "\"\"")) } else { field }
}

/// A plain decimal number, as spindle writes figures: a sign, digits, a point, an exponent.
/// Rust also parses `inf` and `NaN`, which a spreadsheet would take for names in a formula.
fn is_number(field: &str) -> bool {
    let unsigned = field.strip_prefix(['-', '+']).unwrap_or(field);
    unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') && field.parse::<f64>().is_ok_and(f64::is_finite)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::fixtures::record;

    /// Splits one CSV line honouring quotes.
    fn fields(line: &str) -> Vec<String> {
        let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    cur.push('"');
                    chars.next();
                }
                ('"', _) => quoted = !quoted,
                (',', false) => out.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        out.push(cur);
        out
    }

    #[test]
    fn one_row_per_scope_with_quoted_text() {
        let r = record();
        let mut doc = Document::of_records(std::slice::from_ref(&r));
        doc.runs[0].id = Some(42);
        let text = String::from_utf8(render_csv(&doc)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 1 + r.targets.len() + r.threads.len());
        let header = fields(lines[0]);
        for line in &lines[1..] {
            let f = fields(line);
            assert_eq!(f.len(), header.len(), "{line}");
            let iops: f64 = f[header.iter().position(|h| h == "iops").unwrap()].parse().unwrap();
            assert!(iops > 0.0);
        }
        assert!(lines[1..].iter().all(|l| l.starts_with("42,")), "the run column is the run's id");
        let data = fields(lines[2]);
        assert_eq!(data[7], "/data/my,file.dat", "a comma in a path survives quoting");
        let commits = header.iter().position(|h| h == "commits").unwrap();
        assert_eq!(data[commits], "0", "the data file flushes nothing");
        assert_eq!(fields(lines[3])[commits], r.targets[1].stats.commit.count.to_string(), "the log commits");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn text_a_spreadsheet_would_run_is_written_as_text_and_numbers_stay_numbers() {
        let mut r = record();
        r.targets[0].path = "=SUM(1+1)*cmd.dat".into();
        r.targets[1].path = "=HYPERLINK(\"http://x\",\"y\")".into();
        r.labels.insert("@cmd".into(), "x".into());
        let text = String::from_utf8(render_csv(&Document::of_records(std::slice::from_ref(&r)))).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(fields(lines[2])[7], "'=SUM(1+1)*cmd.dat");
        assert_eq!(fields(lines[3])[7], "'=HYPERLINK(\"http://x\",\"y\")");
        assert!(fields(lines[1]).last().unwrap().starts_with("'@cmd=x"), "{}", lines[1]);
        for risky in ["+1+cmd", "-2+3+cmd|' /C calc'!A0", "@SUM(A1)", "\t=1", "\r=1", "-inf", "-NaN", "-1,5", "-"] {
            assert!(fields(&quote(risky))[0].starts_with('\''), "{risky:?}: {}", quote(risky));
        }
        for number in ["-3.5", "+2", "-0.25e-3", "-.5", "12", "0"] {
            assert_eq!(quote(number), number, "a number stays a number");
        }
    }
}
