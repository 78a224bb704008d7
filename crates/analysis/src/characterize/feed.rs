//! Where a counter log's reader hands its samples for the method: those in the --from/--to
//! range go on to it; the rest is counted. A time range that is no time, or a sample time that
//! is not a timestamp, stops the reading.

use super::{Characterizer, Options};
use spindle_formats::ParseError;
use spindle_formats::perfmon::TimeRange;
use spindle_formats::stream::RowSink;

pub struct Feed {
    pub method: Characterizer,
    pub range: Result<Option<TimeRange>, ParseError>,
    /// Samples handed to the method.
    pub rows: usize,
    pub skipped: usize,
    /// The first few skipped lines, to name them.
    pub first_skipped: Vec<usize>,
    /// Why reading stops: a bound or a sample time that is not a timestamp.
    pub stop: Option<ParseError>,
}

impl Feed {
    /// The method with `opts`, fed the samples in `range`.
    pub fn new(opts: Options, range: Result<Option<TimeRange>, ParseError>) -> Feed {
        Feed { method: Characterizer::new(opts), range, rows: 0, skipped: 0, first_skipped: Vec::new(), stop: None }
    }
}

impl RowSink for Feed {
    fn columns(&mut self, columns: &[String]) {
        self.method.columns(columns);
    }

    fn row(&mut self, time: &str, values: &[Option<f64>]) {
        if self.stop.is_some() {
            return;
        }
        match &self.range {
            Ok(None) => {}
            Ok(Some(range)) => match range.keeps(time) {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    self.stop = Some(e);
                    return;
                }
            },
            // A bound that is no time, named once the log is known to be one.
            Err(e) => {
                self.stop = Some(ParseError(e.0.clone()));
                return;
            }
        }
        self.rows += 1;
        self.method.row(values);
    }

    fn skipped(&mut self, line: usize) {
        // Past a stop, as for rows: the rest of a run parsed ahead is not the log read.
        if self.stop.is_some() {
            return;
        }
        self.skipped += 1;
        if self.first_skipped.len() < 5 {
            self.first_skipped.push(line);
        }
    }

    fn stopped(&self) -> bool {
        self.stop.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_formats::parallel::ParallelReader;
    use spindle_formats::stream::LogReader;

    fn feed(range: Option<(&str, &str)>) -> Feed {
        let opts = Options { min_queue: 2.0, coverage_pct: 80.0, ..Options::default() };
        Feed::new(opts, TimeRange::new(range.map(|r| r.0), range.map(|r| r.1)))
    }

    /// What a feed came to: its counts, the lines it names, and the profiles to the last bit
    /// (Debug prints every f64 exactly).
    fn outcome(mut feed: Feed, format: Result<String, String>) -> String {
        let stop = feed.stop.take().map(|e| e.0);
        format!(
            "{format:?} {stop:?} {} {} {:?} {:?}",
            feed.rows,
            feed.skipped,
            feed.first_skipped,
            feed.method.finish()
        )
    }

    /// The log a line at a time on this thread, as `characterize` read it before it parsed
    /// on other threads.
    fn serial(bytes: &[u8], range: Option<(&str, &str)>) -> String {
        let mut feed = feed(range);
        let mut reader = LogReader::new();
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            if let Err(e) = reader.line(&String::from_utf8_lossy(line), &mut feed) {
                return outcome(feed, Err(e.0));
            }
            if feed.stop.is_some() {
                return outcome(feed, Err("stopped".into()));
            }
        }
        let format = reader.finish(&mut feed).map_err(|e| e.0);
        outcome(feed, format)
    }

    /// The runs a file is read in (as `spindle characterize` reads it): about 4 MiB each, cut
    /// after a line's `\n`.
    const RUN: usize = 4 << 20;

    fn parallel(bytes: &[u8], range: Option<(&str, &str)>) -> String {
        parallel_in(bytes, range, RUN)
    }

    fn parallel_in(bytes: &[u8], range: Option<(&str, &str)>, run_bytes: usize) -> String {
        let mut feed = feed(range);
        let mut reader = ParallelReader::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let cut = match rest.get(..run_bytes) {
                Some(run) => run.iter().rposition(|&b| b == b'\n').map_or(rest.len(), |i| i + 1),
                None => rest.len(),
            };
            let (run, after) = rest.split_at(cut);
            match reader.run(run.to_vec(), &mut feed) {
                Err(e) => return outcome(feed, Err(e.0)),
                Ok(None) => break,
                Ok(Some(_)) => rest = after,
            }
        }
        let reader = reader.finish(&mut feed).unwrap();
        if feed.stop.is_some() {
            return outcome(feed, Err("stopped".into()));
        }
        let format = reader.finish(&mut feed).map_err(|e| e.0);
        outcome(feed, format)
    }

    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// A perfmon log of several runs (so both parsers take turns and runs wait to be folded)
    /// with what real logs have: blank and missing values, malformed lines far apart (their
    /// numbers count the lines of the runs before), quotes to undo, bytes that are not UTF-8,
    /// blank lines, a last line without its newline.
    #[test]
    fn parsing_on_threads_gives_the_serial_profiles() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let counters = [
            "Disk Reads/sec",
            "Disk Writes/sec",
            "Avg. Disk Bytes/Read",
            "Avg. Disk Bytes/Write",
            "Avg. Disk Queue Length",
        ];
        let mut cols = Vec::new();
        for disk in ["0 C:", "1 D:", "_Total"] {
            for c in counters {
                cols.push(format!("\"\\\\DB01\\PhysicalDisk({disk})\\{c}\""));
            }
        }
        let mut log = format!("\u{feff}\"(PDH-CSV 4.0) (UTC)(0)\",{}\r\n", cols.join(",")).into_bytes();
        let rows = 120_000;
        for i in 0..rows {
            let mut line =
                format!("\"11/{:02}/2026 {:02}:{:02}:{:02}.000\"", 1 + i / 86400, i / 3600 % 24, i / 60 % 60, i % 60);
            for c in 0..cols.len() {
                let r = next();
                let v = match (c % 5, r % 500) {
                    (_, 0) => " ".to_string(),
                    (_, 1) => "-1".to_string(),
                    (0 | 1, _) => format!("{}", (r >> 20) as f64 / 1e9),
                    (2 | 3, _) => ["512", "8192", "65536", "0"][(r >> 12) as usize % 4].to_string(),
                    _ => format!("{}", (r >> 30) as f64 / 1e8),
                };
                line.push_str(&format!(",\"{v}\""));
            }
            match i % 20_011 {
                7 => line.truncate(line.len() / 2),
                8 => line = line.replacen(",\"", ",\"\"\"", 1),
                9 => line.push_str(",\"1\"\"2\""),
                10 => line.push('\n'),
                _ => {}
            }
            log.extend_from_slice(line.as_bytes());
            if i % 30_001 == 3 {
                log.extend_from_slice(b",\"\xff\"");
            }
            if i + 1 < rows {
                log.extend_from_slice(b"\r\n");
            }
        }
        assert!(log.len() > 6 * (4 << 20), "more runs than are in flight: {}", log.len());
        let whole = serial(&log, None);
        assert!(whole.contains("Ok(\"(PDH-CSV 4.0) (UTC)(0)\") None 119") && whole.contains("busy: Some"), "{whole}");
        assert_eq!(parallel(&log, None), whole);
        // Cut by time, and stopped by a sample time that is no timestamp, in a later run.
        let range = Some(("11/01/2026 03:00:00", "2026-11-01T20:00:00"));
        assert_eq!(parallel(&log, range), serial(&log, range));
        let at = log.len() * 3 / 4;
        let cut = at + log[at..].windows(3).position(|w| w == b"\n\"1").unwrap() + 2;
        let mut bad_time = log.clone();
        bad_time[cut..cut + 2].copy_from_slice(b"xx");
        let stopped = parallel(&bad_time, range);
        assert!(stopped.contains("not a timestamp"), "{stopped}");
        assert_eq!(stopped, serial(&bad_time, range));
    }

    /// iostat and sadf logs, whose devices come and go (their columns grow) and whose rows
    /// span lines (a report, a timestamp) cut anywhere by the runs, parsed on threads in runs
    /// of 32 KiB (more runs than are in flight), give what a line at a time gives.
    #[test]
    fn logs_whose_columns_grow_give_the_serial_profiles() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut iostat = String::from("Linux 6.1 (db01) \t11/01/2026 \t_x86_64_\t(8 CPU)\n\n");
        let mut sadf =
            String::from("# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;aqu-sz;await;%util\n");
        for report in 0..3000 {
            iostat.push_str(&format!(
                "11/01/2026 {:02}:{:02}:{:02}\nDevice r/s w/s rkB/s wkB/s rareq-sz wareq-sz aqu-sz\n",
                report / 3600,
                report / 60 % 60,
                report % 60
            ));
            for (d, dev) in ["sda", "sdb", "nvme0n1"].iter().enumerate() {
                let r = next();
                if r % 4 == 0 || report < 100 * d {
                    continue;
                }
                let bad = if r % 97 == 1 { "x" } else { "1" };
                iostat.push_str(&format!(
                    "{dev} {} {} {bad} 1 {} {} {}\n",
                    (r % 5000) as f64 / 10.0,
                    (r >> 16) % 3000,
                    [4, 8, 64, 0][(r >> 32) as usize % 4],
                    [4, 16, 128][(r >> 40) as usize % 3],
                    (r >> 48) % 9
                ));
                sadf.push_str(&format!(
                    "db01;1;2026-11-01 00:{:02}:{:02} UTC;{dev};{};{bad};2;0;{};{};1;5\n",
                    report / 60 % 60,
                    report % 60,
                    (r % 5000) as f64 / 10.0,
                    [4, 8, 64][(r >> 32) as usize % 3],
                    (r >> 48) % 9
                ));
            }
            iostat.push('\n');
        }
        for log in [iostat, sadf] {
            let whole = serial(log.as_bytes(), None);
            assert!(whole.contains("Ok("), "{whole}");
            assert!(log.len() > 6 * (32 << 10), "more runs than are in flight: {}", log.len());
            assert_eq!(parallel_in(log.as_bytes(), None, 32 << 10), whole);
        }
    }
}
