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

use crate::perfmon::{CounterTable, ParseError};
use crate::stream::{RowSink, TableSink};

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

/// `sadf -d` records read a line at a time (see `stream`): a row a timestamp (devices side by
/// side), handed on when the next timestamp begins or the text ends. A device's columns name
/// the host of its first record.
#[derive(Default)]
pub(crate) struct Reader {
    header: Option<Vec<String>>,
    devices: Vec<String>,
    columns: Vec<String>,
    /// Columns the sink has been told of.
    told: usize,
    /// The row being filled: its time and values.
    row: Option<(String, Vec<Option<f64>>)>,
}

impl Reader {
    pub(crate) fn line(&mut self, no: usize, line: &str, sink: &mut impl RowSink) -> Result<(), ParseError> {
        let line = line.trim_end_matches('\r');
        if let Some(h) = line.strip_prefix('#') {
            let names: Vec<String> = h.trim().split(';').map(str::to_string).collect();
            if names.iter().any(|n| n == "DEV") {
                self.header = Some(names);
            }
            return Ok(());
        }
        if line.trim().is_empty() {
            return Ok(());
        }
        let Some(names) = &self.header else {
            return Err(ParseError(format!(
                "line {no}: not sadf -d disk output: no \"# hostname;interval;timestamp;DEV;...\" header before the data"
            )));
        };
        let fields: Vec<&str> = line.split(';').collect();
        if fields.len() != names.len() {
            sink.skipped(no);
            return Ok(());
        }
        let get = |name: &str| names.iter().position(|n| n == name).map(|p| fields[p]);
        // Everything but the host, time and device is a number; a row where one is not is
        // malformed.
        let numeric =
            names.iter().zip(&fields).filter(|(n, _)| !["hostname", "timestamp", "DEV"].contains(&n.as_str()));
        if numeric.clone().any(|(_, v)| v.trim().replace(',', ".").parse::<f64>().is_err()) {
            sink.skipped(no);
            return Ok(());
        }
        let num = |name: &str| {
            get(name).and_then(|v| v.trim().replace(',', ".").parse::<f64>().ok()).filter(|v| v.is_finite())
        };
        let (Some(dev), Some(time)) = (get("DEV"), get("timestamp")) else {
            sink.skipped(no);
            return Ok(());
        };
        let read_bytes = num("rkB/s").map(|k| k * 1024.0).or_else(|| num("rd_sec/s").map(|s| s * SECTOR));
        let write_bytes = num("wkB/s").map(|k| k * 1024.0).or_else(|| num("wr_sec/s").map(|s| s * SECTOR));
        // areq-sz is in kB from 11.5.7; avgrq-sz before it was in sectors.
        let per_transfer = num("areq-sz").map(|k| k * 1024.0).or_else(|| num("avgrq-sz").map(|s| s * SECTOR));
        let values = [
            num("tps"),
            read_bytes,
            write_bytes,
            per_transfer,
            num("aqu-sz").or_else(|| num("avgqu-sz")),
            num("await").map(|ms| ms / 1000.0),
            num("%util"),
        ];
        let d = match self.devices.iter().position(|x| x == dev) {
            Some(d) => d,
            None => {
                let host = get("hostname").unwrap_or("localhost");
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

pub fn parse_sadf(text: &str) -> Result<CounterTable, ParseError> {
    let mut reader = Reader::default();
    let mut sink = TableSink::default();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        reader.line(i + 1, line.strip_suffix('\n').unwrap_or(line), &mut sink)?;
    }
    let format = reader.finish(&mut sink)?;
    Ok(sink.into_table(format))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(parse_sadf("a;b;c\n").unwrap_err().0.contains("no \"# hostname;interval;timestamp;DEV"));
        assert!(
            parse_sadf("# hostname;interval;timestamp;DEV;tps\n").unwrap_err().0.contains("without any disk record")
        );
        let t = parse_sadf("# hostname;interval;timestamp;DEV;tps\nh;1;t;sda;1\nh;1;t\nh;1;t;sda;x\n").unwrap();
        assert_eq!(t.skipped, [3, 4], "a short row and a non-numeric value");
        assert_eq!(t.rows[0][0], Some(1.0));
    }
}
