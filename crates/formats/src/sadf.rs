//! `sadf -d -- -d` output (sar's disk activity as semicolon-separated records), read into the
//! counter table with perfmon's names. Header variants, from sysstat's activity.c:
//!
//! ```text
//! # hostname;interval;timestamp;DEV;tps;rd_sec/s;wr_sec/s;avgrq-sz;avgqu-sz;await;svctm;%util   (<= 11.5.6)
//! # hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;areq-sz;aqu-sz;await;svctm;%util            (11.5.7)
//! # hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;aqu-sz;await;%util            (12.1.2+)
//! ```
//!
//! sar counts transfers, not reads and writes apart, so a sadf log has Disk Transfers/sec and
//! bytes per direction but no Disk Reads/sec: characterize then says which counters it lacks.

use crate::batch::{Batch, Kind, Line};
use crate::perfmon::ParseError;
use crate::stream::RowSink;

/// sar's sectors are 512 bytes (man sar).
const SECTOR: f64 = 512.0;

const COUNTERS: [&str; 7] = [
    "Disk Transfers/sec",
    "Disk Read Bytes/sec",
    "Disk Write Bytes/sec",
    "Avg. Disk Bytes/Transfer",
    "Avg. Disk Queue Length",
    "Avg. Disk sec/Transfer",
    "% Disk Time",
];

/// The fields that are text; every other field of a record is a number.
const TEXT: [&str; 3] = ["hostname", "timestamp", "DEV"];

/// The numeric fields the counters are derived from, by name.
const NUMBERS: [&str; 11] =
    ["tps", "rkB/s", "rd_sec/s", "wkB/s", "wr_sec/s", "areq-sz", "avgrq-sz", "aqu-sz", "avgqu-sz", "await", "%util"];

/// One line of `sadf -d` output, read apart from the lines before it (on a parser thread): a
/// header, a blank line, or a record with each of its fields as a number where it is one.
pub(crate) fn read_line(line: &str, batch: &mut Batch) {
    let line = line.trim_end_matches('\r');
    if line.starts_with('#') {
        batch.push(Kind::Header, line, []);
    } else if line.trim().is_empty() {
        batch.push(Kind::Blank, "", []);
    } else {
        batch.push(Kind::Fields, line, line.split(';').map(number));
    }
}

/// sadf prints numbers in the locale, so a decimal comma is read as a point.
fn number(field: &str) -> Option<f64> {
    let field = field.trim();
    field.parse().ok().or_else(|| field.contains(',').then(|| field.replace(',', ".").parse().ok()).flatten())
}

/// A header's fields: which are text, where the text fields and each of `NUMBERS` are.
struct Layout {
    /// Whether each field is text (one of `TEXT`).
    is_text: Vec<bool>,
    /// hostname, timestamp and DEV.
    text: [Option<usize>; 3],
    numbers: [Option<usize>; NUMBERS.len()],
}

impl Layout {
    fn of(names: &[&str]) -> Layout {
        let at = |name: &&str| names.iter().position(|n| n == name);
        Layout {
            is_text: names.iter().map(|n| TEXT.contains(n)).collect(),
            text: TEXT.each_ref().map(at),
            numbers: NUMBERS.each_ref().map(at),
        }
    }

    /// A record's values of `COUNTERS`, from its numbers.
    fn values(&self, numbers: &[Option<f64>]) -> [Option<f64>; COUNTERS.len()] {
        let num = |i: usize| self.numbers[i].and_then(|p| numbers.get(p).copied().flatten()).filter(|v| v.is_finite());
        [
            num(0),
            num(1).map(|k| k * 1024.0).or_else(|| num(2).map(|s| s * SECTOR)),
            num(3).map(|k| k * 1024.0).or_else(|| num(4).map(|s| s * SECTOR)),
            // areq-sz is in kB from 11.5.7; avgrq-sz before it was in sectors.
            num(5).map(|k| k * 1024.0).or_else(|| num(6).map(|s| s * SECTOR)),
            num(7).or_else(|| num(8)),
            num(9).map(|ms| ms / 1000.0),
            num(10),
        ]
    }
}

/// `sadf -d` records folded in order (see `stream`): a row a timestamp (devices side by
/// side), handed on when the next timestamp begins or the text ends. A device's columns name
/// the host of its first record.
#[derive(Default)]
pub(crate) struct Reader {
    layout: Option<Layout>,
    devices: Vec<String>,
    columns: Vec<String>,
    /// Columns the sink has been told of.
    told: usize,
    /// The row being filled: its time and values.
    row: Option<(String, Vec<Option<f64>>)>,
}

impl Reader {
    /// Line `no`, read apart, in its timestamp's row.
    pub(crate) fn fold(&mut self, no: usize, line: &Line<'_>, sink: &mut impl RowSink) -> Result<(), ParseError> {
        match line.kind {
            Kind::Header => {
                let names: Vec<&str> = line.text.strip_prefix('#').unwrap_or_default().trim().split(';').collect();
                if names.contains(&"DEV") {
                    self.layout = Some(Layout::of(&names));
                }
                Ok(())
            }
            Kind::Fields => self.record(no, line, sink),
            Kind::Blank | Kind::Malformed => Ok(()),
        }
    }

    fn record(&mut self, no: usize, line: &Line<'_>, sink: &mut impl RowSink) -> Result<(), ParseError> {
        let Some(layout) = &self.layout else {
            return Err(ParseError(format!(
                "line {no}: not sadf -d disk output: no \"# hostname;interval;timestamp;DEV;...\" header before the data"
            )));
        };
        // Everything but the host, time and device is a number; a row where one is not is
        // malformed.
        let numeric = line.numbers.iter().zip(&layout.is_text).all(|(n, text)| n.is_some() || *text);
        let field = |at: Option<usize>| at.and_then(|p| line.text.split(';').nth(p));
        let [host, time, dev] = layout.text.map(field);
        let (true, true, Some(dev), Some(time)) = (line.numbers.len() == layout.is_text.len(), numeric, dev, time)
        else {
            sink.skipped(no);
            return Ok(());
        };
        let values = layout.values(line.numbers);
        let d = match self.devices.iter().position(|x| x == dev) {
            Some(d) => d,
            None => {
                let host = host.unwrap_or("localhost");
                self.devices.push(dev.to_string());
                self.columns.extend(COUNTERS.iter().map(|c| format!("\\\\{host}\\PhysicalDisk({dev})\\{c}")));
                self.devices.len() - 1
            }
        };
        // One row per timestamp, devices side by side.
        if self.row.as_ref().is_none_or(|(t, _)| t != time) {
            self.hand_on(sink);
            self.row = Some((time.to_string(), Vec::new()));
        }
        if let Some((_, row)) = &mut self.row {
            row.resize(self.devices.len() * COUNTERS.len(), None);
            row[d * COUNTERS.len()..(d + 1) * COUNTERS.len()].copy_from_slice(&values);
        }
        Ok(())
    }

    /// The row filled so far, if any.
    fn hand_on(&mut self, sink: &mut impl RowSink) {
        let Some((time, row)) = self.row.take() else { return };
        if self.columns.len() > self.told {
            self.told = self.columns.len();
            sink.columns(&self.columns);
        }
        sink.row(&time, &row);
    }

    pub(crate) fn finish(mut self, sink: &mut impl RowSink) -> Result<String, ParseError> {
        if self.row.is_none() {
            return Err(ParseError("sadf -d output without any disk record (was it sadf -d -- -d?)".into()));
        }
        self.hand_on(sink);
        Ok("sadf -d".into())
    }
}

#[cfg(test)]
mod tests {
    use crate::stream::read_lines as parse_sadf;

    #[test]
    fn current_and_old_layouts() {
        let text = "# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;aqu-sz;await;%util\n\
db01;60;2026-11-23 06:01:00 UTC;sda;120.50;800.00;1600.00;0.00;19.92;1.50;12.45;35.00\n\
db01;60;2026-11-23 06:01:00 UTC;sdb;10.00;0.00;40.00;0.00;4.00;0.01;0.50;1.00\n\
db01;60;2026-11-23 06:02:00 UTC;sda;100.00;400.00;400.00;0.00;8.00;0.90;9.00;30.00\n";
        let t = parse_sadf(text).unwrap();
        assert_eq!(t.columns[0], "\\\\db01\\PhysicalDisk(sda)\\Disk Transfers/sec");
        assert_eq!(t.times, ["2026-11-23 06:01:00 UTC", "2026-11-23 06:02:00 UTC"]);
        assert_eq!(t.rows[0][0], Some(120.5));
        assert_eq!(t.rows[0][1], Some(800.0 * 1024.0));
        assert_eq!(t.rows[0][3], Some(19.92 * 1024.0));
        assert_eq!(t.rows[0][5], Some(0.01245));
        assert_eq!(t.rows[0][7], Some(10.0), "sdb beside sda in the same row");
        assert_eq!(t.rows[1][7], None, "sdb has no record at 06:02");

        let old = "# hostname;interval;timestamp;DEV;tps;rd_sec/s;wr_sec/s;avgrq-sz;avgqu-sz;await;svctm;%util\n\
h;1;1600000000;dev8-0;5.00;80.00;0.00;16.00;0.10;2.00;1.00;0.50\n";
        let t = parse_sadf(old).unwrap();
        assert_eq!(t.rows[0][1], Some(80.0 * 512.0));
        assert_eq!(t.rows[0][3], Some(16.0 * 512.0), "avgrq-sz was in sectors");
        assert_eq!(t.rows[0][4], Some(0.1));
    }

    #[test]
    fn not_sadf_and_bad_lines() {
        assert!(
            parse_sadf("# hostname;interval\na;b\n").unwrap_err().0.contains("no \"# hostname;interval;timestamp;DEV")
        );
        assert!(
            parse_sadf("# hostname;interval;timestamp;DEV;tps\n").unwrap_err().0.contains("without any disk record")
        );
        let t = parse_sadf("# hostname;interval;timestamp;DEV;tps\nh;1;t;sda;1\nh;1;t\nh;1;t;sda;x\n").unwrap();
        assert_eq!(t.skipped, [3, 4], "a short row and a non-numeric value");
        assert_eq!(t.rows[0][0], Some(1.0));
    }
}
