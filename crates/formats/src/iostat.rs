//! `iostat -x` output, as text in every sysstat column layout and as `-o JSON`, read into the
//! same counter table as a perfmon log, with perfmon's counter names, so one method serves
//! both. Columns are found by name, so every layout (sysstat <= 11.5.6, 11.5.7, 12.1.2,
//! 12.3.1+) reads alike. See ../shared/reference/counter-formats.md section 2.
//!
//! iostat's first report covers the time since boot (unless `-y`), so when a log has more
//! than one report the first is left out.

use crate::perfmon::{CounterTable, PHYSICAL_DISK_COUNTERS, ParseError};
use crate::stream::{RowSink, TableSink};

/// The perfmon counters a report's columns give, in table order: all of PhysicalDisk's but
/// Current Disk Queue Length and % Disk Time.
const COUNTERS: &[&str] = PHYSICAL_DISK_COUNTERS.split_at(9).0;

/// One device's line of one report, by column name.
type DeviceRow = (String, Vec<(String, f64)>);

/// The perfmon values of one device line: every counter is derived from whichever columns the
/// layout has.
fn counters_of(cols: &[(String, f64)]) -> [Option<f64>; COUNTERS.len()] {
    let get = |names: &[&str]| names.iter().find_map(|n| cols.iter().find(|(c, _)| c == n).map(|(_, v)| *v));
    let reads = get(&["r/s", "r"]);
    let writes = get(&["w/s", "w"]);
    let read_bytes = get(&["rkB/s", "rkB"]).map(|k| k * 1024.0);
    let write_bytes = get(&["wkB/s", "wkB"]).map(|k| k * 1024.0);
    // Request sizes are columns from sysstat 11.5.7 (kB); before, derive them from the rates.
    let per = |bytes: Option<f64>, n: Option<f64>| match (bytes, n) {
        (Some(b), Some(n)) if n > 0.0 => Some(b / n),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    };
    let bytes_per_read = get(&["rareq-sz"]).map(|k| k * 1024.0).or_else(|| per(read_bytes, reads));
    let bytes_per_write = get(&["wareq-sz"]).map(|k| k * 1024.0).or_else(|| per(write_bytes, writes));
    [
        reads,
        writes,
        read_bytes,
        write_bytes,
        bytes_per_read,
        bytes_per_write,
        get(&["r_await"]).map(|ms| ms / 1000.0),
        get(&["w_await"]).map(|ms| ms / 1000.0),
        get(&["aqu-sz", "avgqu-sz"]),
    ]
}

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
        let mut values = vec![None; devices.len() * COUNTERS.len()];
        for (d, cols) in rows {
            if let Some(i) = devices.iter().position(|x| *x == d) {
                values[i * COUNTERS.len()..(i + 1) * COUNTERS.len()].copy_from_slice(&counters_of(&cols));
            }
        }
        t.times.push(time);
        t.rows.push(values);
    }
    t
}

/// A report: its time and its devices' lines.
type Report = (String, Vec<DeviceRow>);

/// `iostat -x [-t] [interval [count]]` text, read a line at a time (see `stream`): a row a
/// report, handed on when the next report begins or the text ends. The first report is held
/// until a second shows it is not the only one (then it is dropped: it covers the time since
/// boot); a log of one report keeps it.
#[derive(Default)]
pub(crate) struct TextReader {
    /// The host, once the first line (`Linux ... (host) ...`) is read.
    host: Option<String>,
    header: Option<Vec<String>>,
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
    pub(crate) fn line(&mut self, no: usize, line: &str, sink: &mut impl RowSink) -> Result<(), ParseError> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if self.host.is_none() {
            if line.trim().is_empty() {
                return Ok(());
            }
            if !line.starts_with("Linux ") {
                return Err(ParseError("not iostat output: the first line does not start with \"Linux \"".into()));
            }
            // `Linux 5.8.0-53-generic (ubuntu) 	12/02/2021 	_x86_64_	(2 CPU)`
            let host = line.split_once('(').and_then(|(_, r)| r.split_once(')')).map_or("localhost", |(h, _)| h);
            self.host = Some(host.to_string());
            return Ok(());
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.first() {
            None => self.header = None,
            Some(f) if f.starts_with("Device") => {
                self.header = Some(fields[1..].iter().map(|s| s.to_string()).collect());
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
            Some(_) if self.header.is_some() => {
                let names = self.header.as_deref().unwrap_or_default();
                let values: Option<Vec<f64>> = fields[1..].iter().map(|v| number(v)).collect();
                match (values, self.current.as_mut()) {
                    (Some(v), Some((_, rows))) if v.len() == names.len() => {
                        rows.push((fields[0].to_string(), names.iter().cloned().zip(v).collect()));
                    }
                    _ => sink.skipped(no),
                }
            }
            // `-t` prints the report's time on a line of its own before avg-cpu.
            Some(f) if f.contains('/') || (f.contains(':') && !f.starts_with("avg-cpu")) => {
                self.last_time = line.trim().to_string()
            }
            Some(_) => {}
        }
        Ok(())
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
        let mut values = vec![None; self.devices.len() * COUNTERS.len()];
        for (d, cols) in rows {
            if let Some(i) = self.devices.iter().position(|x| *x == d) {
                values[i * COUNTERS.len()..(i + 1) * COUNTERS.len()].copy_from_slice(&counters_of(&cols));
            }
        }
        sink.row(&time, &values);
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

/// `iostat -x [-t] [interval [count]]` text.
pub fn parse_text(text: &str) -> Result<CounterTable, ParseError> {
    let mut reader = TextReader::default();
    let mut sink = TableSink::default();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        reader.line(i + 1, line.strip_suffix('\n').unwrap_or(line), &mut sink)?;
    }
    let format = reader.finish(&mut sink)?;
    Ok(sink.into_table(format))
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
                let cols = obj.iter().filter_map(|(k, v)| Some((k.clone(), v.as_f64()?))).collect();
                Some((device, cols))
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
        assert!(parse_text("hello").unwrap_err().0.contains("not iostat output"));
        assert!(parse_text("Linux 6.1 (h) \t01/01/2026\n\navg-cpu: %user\n 1.0\n").unwrap_err().0.contains("-x"));
        assert!(parse_json("{}").unwrap_err().0.contains("sysstat.hosts"));
        let text = "Linux 6.1 (h) \t01/01/2026\n\nDevice r/s w/s\nsda 1,5 2\nsdb x 1\nsdc 1\n";
        let t = parse_text(text).unwrap();
        assert_eq!(value(&t, "sda", "Disk Reads/sec"), Some(1.5), "a decimal comma");
        assert_eq!(t.skipped, [5, 6]);
    }
}
