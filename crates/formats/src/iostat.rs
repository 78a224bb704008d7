//! `iostat -x` output, as text in every sysstat column layout and as `-o JSON`, read into the
//! same counter table as a perfmon log, with perfmon's counter names, so one method serves
//! both. Columns are found by name, so every layout (sysstat <= 11.5.6, 11.5.7, 12.1.2,
//! 12.3.1+) reads alike. See ../shared/reference/counter-formats.md section 2.
//!
//! iostat's first report covers the time since boot (unless `-y`), so when a log has more
//! than one report the first is left out.

use crate::batch::{Batch, Body, Kind, Line};
use crate::perfmon::{CounterTable, PHYSICAL_DISK_COUNTERS, ParseError};
use crate::stream::RowSink;

/// The perfmon counters a report's columns give, in table order: all of PhysicalDisk's but
/// Current Disk Queue Length and % Disk Time.
const COUNTERS: &[&str] = PHYSICAL_DISK_COUNTERS.split_at(9).0;

/// The columns each counter is derived from, by name, each list in the order tried; a layout
/// has one of each list or none.
const SOURCES: [&[&str]; 9] = [
    &["r/s", "r"],
    &["w/s", "w"],
    &["rkB/s", "rkB"],
    &["wkB/s", "wkB"],
    &["rareq-sz"],
    &["wareq-sz"],
    &["r_await"],
    &["w_await"],
    &["aqu-sz", "avgqu-sz"],
];

/// A layout's columns: how many, and where each of `SOURCES` is among them. Found once a
/// report (or a JSON disk), so a device line is read by position.
struct Layout {
    width: usize,
    at: [Option<usize>; SOURCES.len()],
}

impl Layout {
    fn of(names: &[&str]) -> Layout {
        let at = SOURCES.map(|tried| tried.iter().find_map(|n| names.iter().position(|c| c == n)));
        Layout { width: names.len(), at }
    }

    /// The perfmon values of one device line (its values in the layout's order): every counter
    /// is derived from whichever columns the layout has.
    fn counters(&self, values: &[Option<f64>]) -> [Option<f64>; COUNTERS.len()] {
        let get = |i: usize| self.at[i].and_then(|p| values.get(p).copied().flatten());
        let (reads, writes) = (get(0), get(1));
        let read_bytes = get(2).map(|k| k * 1024.0);
        let write_bytes = get(3).map(|k| k * 1024.0);
        // Request sizes are columns from sysstat 11.5.7 (kB); before, derive them from the rates.
        let per = |bytes: Option<f64>, n: Option<f64>| match (bytes, n) {
            (Some(b), Some(n)) if n > 0.0 => Some(b / n),
            (Some(_), Some(_)) => Some(0.0),
            _ => None,
        };
        [
            reads,
            writes,
            read_bytes,
            write_bytes,
            get(4).map(|k| k * 1024.0).or_else(|| per(read_bytes, reads)),
            get(5).map(|k| k * 1024.0).or_else(|| per(write_bytes, writes)),
            get(6).map(|ms| ms / 1000.0),
            get(7).map(|ms| ms / 1000.0),
            get(8),
        ]
    }
}

/// One device's counters in one report.
type DeviceRow = (String, [Option<f64>; COUNTERS.len()]);

/// A report: its time and its devices' counters.
type Report = (String, Vec<DeviceRow>);

/// Builds the table from reports of device rows.
fn table(host: &str, format: &str, mut reports: Vec<Report>) -> CounterTable {
    if reports.len() > 1 {
        reports.remove(0);
    }
    let mut devices: Vec<String> = Vec::new();
    for (_, rows) in &reports {
        for (d, _) in rows {
            if !devices.contains(d) {
                devices.push(d.clone());
            }
        }
    }
    let columns = devices
        .iter()
        .flat_map(|d| COUNTERS.iter().map(move |c| format!("\\\\{host}\\PhysicalDisk({d})\\{c}")))
        .collect();
    let mut t = CounterTable { format: format.into(), columns, ..CounterTable::default() };
    for (time, rows) in reports {
        t.times.push(time);
        t.rows.push(values_of(&devices, rows));
    }
    t
}

/// A report's row: each device's counters in its place.
fn values_of(devices: &[String], rows: Vec<DeviceRow>) -> Vec<Option<f64>> {
    let mut values = vec![None; devices.len() * COUNTERS.len()];
    for (d, counters) in rows {
        if let Some(i) = devices.iter().position(|x| *x == d) {
            values[i * COUNTERS.len()..(i + 1) * COUNTERS.len()].copy_from_slice(&counters);
        }
    }
    values
}

/// One line of `iostat -x` text after its first, read apart from the lines before it (on a
/// parser thread): a blank line, a report's header, or other fields, with every field after
/// the first as a number where it is one. Whether fields are a device's is the fold's to say.
pub(crate) fn read_line(line: &str, batch: &mut Batch) {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut fields = line.split_whitespace();
    match fields.next() {
        None => batch.push(Kind::Blank, "", []),
        Some(f) if f.starts_with("Device") => batch.push(Kind::Header, line, []),
        Some(_) => batch.push(Kind::Fields, line, fields.map(number)),
    }
}

/// `iostat -x [-t] [interval [count]]` text, its lines folded in order (see `stream`): a row a
/// report, handed on when the next report begins or the text ends. The first report is held
/// until a second shows it is not the only one (then it is dropped: it covers the time since
/// boot); a log of one report keeps it.
#[derive(Default)]
pub(crate) struct TextReader {
    /// The host, once the first line (`Linux ... (host) ...`) is read.
    host: Option<String>,
    /// The columns of the report whose device lines are being read.
    layout: Option<Layout>,
    last_time: String,
    /// Reports begun, and completed, so far.
    begun: usize,
    completed: usize,
    current: Option<Report>,
    /// The first report, while it may be the only one.
    first: Option<Report>,
    devices: Vec<String>,
    columns: Vec<String>,
}

impl TextReader {
    /// A line before the reports: blank, or the first (`Linux ...`), after which the lines can
    /// be read apart.
    pub(crate) fn first_line(&mut self, line: &str) -> Result<Option<Body>, ParseError> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return Ok(None);
        }
        if !line.starts_with("Linux ") {
            return Err(ParseError("not iostat output: the first line does not start with \"Linux \"".into()));
        }
        // `Linux 5.8.0-53-generic (ubuntu) 	12/02/2021 	_x86_64_	(2 CPU)`
        let host = line.split_once('(').and_then(|(_, r)| r.split_once(')')).map_or("localhost", |(h, _)| h);
        self.host = Some(host.to_string());
        Ok(Some(Body::Iostat))
    }

    /// Line `no`, read apart, in its report.
    pub(crate) fn fold(&mut self, no: usize, line: &Line<'_>, sink: &mut impl RowSink) {
        match line.kind {
            Kind::Blank => self.layout = None,
            Kind::Header => {
                let names: Vec<&str> = line.text.split_whitespace().skip(1).collect();
                self.layout = Some(Layout::of(&names));
                let time = if self.last_time.is_empty() {
                    format!("report {}", self.begun + 1)
                } else {
                    self.last_time.clone()
                };
                self.begun += 1;
                if let Some(done) = self.current.replace((time, Vec::new())) {
                    self.complete(done, sink);
                }
            }
            Kind::Fields => {
                let first = line.text.split_whitespace().next().unwrap_or_default();
                if let Some(layout) = &self.layout {
                    let whole = line.numbers.len() == layout.width && line.numbers.iter().all(Option::is_some);
                    match self.current.as_mut() {
                        Some((_, rows)) if whole => rows.push((first.to_string(), layout.counters(line.numbers))),
                        _ => sink.skipped(no),
                    }
                } else if first.contains('/') || (first.contains(':') && !first.starts_with("avg-cpu")) {
                    // `-t` prints the report's time on a line of its own before avg-cpu.
                    self.last_time = line.text.trim().to_string()
                }
            }
            Kind::Malformed => {}
        }
    }

    /// A report whose lines are all read.
    fn complete(&mut self, report: Report, sink: &mut impl RowSink) {
        self.completed += 1;
        if self.completed == 1 {
            self.first = Some(report);
        } else {
            // A second report: the first covered the time since boot.
            self.first = None;
            self.hand_on(report, sink);
        }
    }

    fn hand_on(&mut self, (time, rows): Report, sink: &mut impl RowSink) {
        let known = self.devices.len();
        let host = self.host.as_deref().unwrap_or("localhost");
        for (d, _) in &rows {
            if !self.devices.contains(d) {
                self.devices.push(d.clone());
                self.columns.extend(COUNTERS.iter().map(|c| format!("\\\\{host}\\PhysicalDisk({d})\\{c}")));
            }
        }
        if self.devices.len() > known {
            sink.columns(&self.columns);
        }
        sink.row(&time, &values_of(&self.devices, rows));
    }

    pub(crate) fn finish(mut self, sink: &mut impl RowSink) -> Result<String, ParseError> {
        if self.host.is_none() {
            return Err(ParseError("not iostat output: the first line does not start with \"Linux \"".into()));
        }
        if self.begun == 0 {
            return Err(ParseError("iostat output without any device report (was it run with -x?)".into()));
        }
        if let Some(done) = self.current.take() {
            self.complete(done, sink);
        }
        if let Some(only) = self.first.take() {
            self.hand_on(only, sink);
        }
        Ok("iostat -x".into())
    }
}

/// iostat prints numbers in the locale, so a decimal comma is read as a point.
fn number(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().or_else(|| s.replace(',', ".").parse().ok()).filter(|v| v.is_finite())
}

/// `iostat -x -o JSON`.
pub fn parse_json(text: &str) -> Result<CounterTable, ParseError> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| ParseError(format!("not iostat JSON: {e}")))?;
    let host = doc.pointer("/sysstat/hosts/0").ok_or_else(|| ParseError("not iostat JSON: no sysstat.hosts".into()))?;
    let name = host.get("nodename").and_then(|v| v.as_str()).unwrap_or("localhost");
    let stats = host.get("statistics").and_then(|v| v.as_array()).cloned().unwrap_or_default();
    let mut reports = Vec::new();
    for (i, s) in stats.iter().enumerate() {
        let Some(disks) = s.get("disk").and_then(|d| d.as_array()) else { continue };
        let time =
            s.get("timestamp").map_or(format!("report {}", i + 1), |t| t.to_string().trim_matches('"').to_string());
        let rows = disks
            .iter()
            .filter_map(|d| {
                let obj = d.as_object()?;
                let device = obj.get("disk_device")?.as_str()?.to_string();
                let (names, values): (Vec<&str>, Vec<Option<f64>>) =
                    obj.iter().filter_map(|(k, v)| Some((k.as_str(), Some(v.as_f64()?)))).unzip();
                Some((device, Layout::of(&names).counters(&values)))
            })
            .collect();
        reports.push((time, rows));
    }
    if reports.is_empty() {
        return Err(ParseError("iostat JSON without any disk statistics (was it run with -x?)".into()));
    }
    Ok(table(name, "iostat -x -o JSON", reports))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perfmon::split_path;
    use crate::stream::read_lines as parse_text;

    fn value(t: &CounterTable, device: &str, counter: &str) -> Option<f64> {
        let c = t.columns.iter().position(|c| split_path(c) == Some(("PhysicalDisk", Some(device), counter)))?;
        t.rows.last()?[c]
    }

    #[test]
    fn every_text_layout_gives_the_same_counters() {
        // sysstat <= 11.5.6: avgrq-sz in sectors, no request-size columns per direction.
        let old = parse_text(include_str!("../testdata/jc_centos-7.7_iostat-x.out")).unwrap();
        assert_eq!(old.columns[0], "\\\\localhost.localdomain\\PhysicalDisk(sda)\\Disk Reads/sec");
        assert_eq!(value(&old, "sda", "Disk Reads/sec"), Some(0.13));
        assert_eq!(value(&old, "sda", "Avg. Disk Queue Length"), Some(0.0));
        let per_read = value(&old, "sda", "Avg. Disk Bytes/Read").unwrap();
        assert!((per_read - 5.27 * 1024.0 / 0.13).abs() < 1e-6, "derived from the rates: {per_read}");
        assert_eq!(value(&old, "dm-1", "Avg. Disk sec/Read"), Some(0.00008));

        // 11.5.7 .. 12.1.1
        let mid = parse_text(include_str!("../testdata/jc_ubuntu-18.04_iostat-x.out")).unwrap();
        assert_eq!(value(&mid, "loop1", "Disk Reads/sec"), Some(63.02));
        assert_eq!(value(&mid, "loop2", "Avg. Disk Bytes/Read"), Some(15.51 * 1024.0));

        // 12.3.1+: grouped per direction, with discards and flushes.
        let new = parse_text(include_str!("../testdata/jc_ubuntu-20.10_iostat-x.out")).unwrap();
        assert_eq!(value(&new, "dm-0", "Disk Writes/sec"), Some(7.18));
        assert_eq!(value(&new, "dm-0", "Avg. Disk Bytes/Write"), Some(18.04 * 1024.0));
        assert_eq!(value(&new, "dm-0", "Avg. Disk sec/Write"), Some(0.0004));
        assert!(new.skipped.is_empty() && mid.skipped.is_empty() && old.skipped.is_empty());
    }

    #[test]
    fn json_reports_after_the_first() {
        let t = parse_json(include_str!("../testdata/sysstat_expected.iostat-x-p-ALL-JSON")).unwrap();
        assert_eq!(t.rows.len(), 1, "the since-boot report is left out");
        assert!(t.columns[0].starts_with("\\\\SYSSTAT.TEST\\PhysicalDisk(sda)\\"));
        assert!(value(&t, "sda", "Disk Reads/sec").is_some());
    }

    #[test]
    fn not_iostat_is_named_and_bad_lines_counted() {
        assert!(parse_text("  Linux 6.1 (h)\n").unwrap_err().0.contains("not iostat output"));
        assert!(parse_text("Linux 6.1 (h) \t01/01/2026\n\navg-cpu: %user\n 1.0\n").unwrap_err().0.contains("-x"));
        assert!(parse_json("{}").unwrap_err().0.contains("sysstat.hosts"));
        let text = "Linux 6.1 (h) \t01/01/2026\n\nDevice r/s w/s\nsda 1,5 2\nsdb x 1\nsdc 1\n";
        let t = parse_text(text).unwrap();
        assert_eq!(value(&t, "sda", "Disk Reads/sec"), Some(1.5), "a decimal comma");
        assert_eq!(t.skipped, [5, 6]);
    }
}
