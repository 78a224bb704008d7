//! Windows Performance Monitor counter logs, CSV and TSV (relog, typeperf, Data Collector
//! Sets), read and written. See ../shared/reference/counter-formats.md section 1: a header
//! `"(PDH-CSV 4.0) (<zone>)(<bias>)"` then counter paths `\\HOST\Object(Instance)\Counter`;
//! rows of a local timestamp and quoted values; `" "` for a missing value (the first row's
//! averages always are); numbers with `.` (a `,` is taken as the decimal point only when a
//! field has no `.`).

use crate::delimited::{quote, split};
use std::borrow::Cow;
use std::fmt;

/// PhysicalDisk's counters as spindle samples and reads them, in the order they are reported.
pub const PHYSICAL_DISK_COUNTERS: [&str; 11] = [
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Disk Read Bytes/sec",
    "Disk Write Bytes/sec",
    "Avg. Disk Bytes/Read",
    "Avg. Disk Bytes/Write",
    "Avg. Disk sec/Read",
    "Avg. Disk sec/Write",
    "Avg. Disk Queue Length",
    "Current Disk Queue Length",
    "% Disk Time",
];

/// A counter log as a table: one column per counter path, one row per sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CounterTable {
    /// The first header cell, e.g. `(PDH-CSV 4.0) (UTC)(0)`.
    pub format: String,
    /// Counter paths as written, `\\HOST\PhysicalDisk(0 C:)\Disk Reads/sec`.
    pub columns: Vec<String>,
    /// Timestamp text as written.
    pub times: Vec<String>,
    /// `rows[i][c]`: sample i of column c.
    pub rows: Vec<Vec<Option<f64>>>,
    /// Rows that were dropped (wrong number of fields, or a field that is neither a number nor
    /// blank), as 1-based line numbers.
    pub skipped: Vec<usize>,
}

#[derive(Debug, PartialEq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// A counter path split: `\\HOST\Object(Instance)\Counter` -> (object, instance, counter).
pub fn split_path(path: &str) -> Option<(&str, Option<&str>, &str)> {
    let rest = path.strip_prefix("\\\\").map(|p| p.split_once('\\').map_or(p, |(_, r)| r)).unwrap_or(path);
    let rest = rest.strip_prefix('\\').unwrap_or(rest);
    let (object, counter) = rest.rsplit_once('\\')?;
    match object.split_once('(') {
        Some((obj, inst)) => Some((obj, Some(inst.strip_suffix(')')?), counter)),
        None => Some((object, None, counter)),
    }
}

pub fn parse(text: &str) -> Result<CounterTable, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The header is the first line with text; the samples start on the line after it.
    let mut at = 0;
    let mut found = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if !line.trim().is_empty() {
            found = Some((i, line));
            break;
        }
        at += line.len();
    }
    let Some((header_index, header_line)) = found else {
        return Err(ParseError("the file is empty".into()));
    };
    let (format, columns, sep) = header(header_line.trim_end_matches(['\n', '\r']))?;
    let mut table = CounterTable { format, columns, ..CounterTable::default() };
    // The samples after the header, in two halves parsed at once when the log is large (a
    // week of one-second samples is 300 MB): each half is whole lines.
    let body = &text[at + header_line.len()..];
    let first_line = header_index + 2;
    let width = table.columns.len();
    let halves = if body.len() > 8 << 20 {
        // Bytes: the middle of the text may be inside a character, a newline never is.
        let half = body.len() / 2;
        let middle = body.as_bytes()[half..].iter().position(|&b| b == b'\n').map_or(body.len(), |i| half + i + 1);
        let (a, b) = body.split_at(middle);
        std::thread::scope(|scope| {
            let second = scope.spawn(|| Samples::of(b, sep, width));
            let first = Samples::of(a, sep, width);
            (first, second.join().unwrap_or_default())
        })
    } else {
        (Samples::of(body, sep, width), Samples::default())
    };
    let (a, b) = halves;
    let second_line = first_line + a.lines;
    table.times = a.times;
    table.times.extend(b.times);
    table.rows = a.rows;
    table.rows.extend(b.rows);
    table.skipped = a.skipped.iter().map(|i| first_line + i).chain(b.skipped.iter().map(|i| second_line + i)).collect();
    Ok(table)
}

/// The header line: its format cell (`(PDH-CSV 4.0) (UTC)(0)`), the counter paths, and the
/// separator the log uses.
pub(crate) fn header(line: &str) -> Result<(String, Vec<String>, char), ParseError> {
    let sep = if line.starts_with("\"(PDH-TSV") { '\t' } else { ',' };
    let mut head = split(line, sep);
    if !head[0].starts_with("(PDH-CSV") && !head[0].starts_with("(PDH-TSV") {
        return Err(ParseError(
            "not a perfmon counter log: the first line does not start with \"(PDH-CSV 4.0)\" or \"(PDH-TSV 4.0)\""
                .into(),
        ));
    }
    let columns = head.split_off(1);
    Ok((head.swap_remove(0), columns, sep))
}

/// The samples of a run of whole lines; `skipped` holds 0-based line indexes within it.
#[derive(Default)]
struct Samples {
    times: Vec<String>,
    rows: Vec<Vec<Option<f64>>>,
    skipped: Vec<usize>,
    lines: usize,
}

impl Samples {
    fn of(text: &str, sep: char, width: usize) -> Samples {
        let mut out = Samples { rows: Vec::with_capacity(text.len() / (width * 8 + 24).max(1)), ..Samples::default() };
        for (i, line) in text.split_inclusive('\n').enumerate() {
            out.lines = i + 1;
            let line = line.trim_end_matches(['\n', '\r']);
            if line.trim().is_empty() {
                continue;
            }
            match row(line, sep, width) {
                Some((time, values)) => {
                    out.times.push(time);
                    out.rows.push(values);
                }
                None => out.skipped.push(i),
            }
        }
        out
    }
}

/// One sample line: its time and `width` values, or `None` when it is not one. A week of
/// one-second samples is 600,000 lines, so the common line (quoted fields without doubled
/// quotes) is read in place, field by field, without copying; any other goes through `split`.
fn row(line: &str, sep: char, width: usize) -> Option<(String, Vec<Option<f64>>)> {
    let mut values = Vec::with_capacity(width);
    let time = row_into(line, sep, width, &mut values)?;
    Some((time.into_owned(), values))
}

/// `row` into `values` (cleared first), so a reader going line by line reuses one buffer; the
/// time is borrowed from the line when it needs no unquoting.
pub(crate) fn row_into<'a>(
    line: &'a str,
    sep: char,
    width: usize,
    values: &mut Vec<Option<f64>>,
) -> Option<Cow<'a, str>> {
    values.clear();
    let mut fields = PlainFields { rest: line.trim_end_matches('\r'), sep };
    let time = match fields.next() {
        Some(Some(t)) => t,
        Some(None) => return slow_row(line, sep, width, values),
        None => return None,
    };
    for field in fields.by_ref() {
        match field {
            Some(f) => values.push(value(f)?),
            None => return slow_row(line, sep, width, values),
        }
    }
    (values.len() == width).then_some(Cow::Borrowed(time))
}

fn slow_row<'a>(line: &str, sep: char, width: usize, values: &mut Vec<Option<f64>>) -> Option<Cow<'a, str>> {
    values.clear();
    let mut fields = split(line, sep);
    if fields.len() != width + 1 {
        return None;
    }
    for f in &fields[1..] {
        values.push(value(f)?);
    }
    Some(Cow::Owned(fields.swap_remove(0)))
}

/// The fields of a line as borrowed slices; an item is `None` when a field needs unquoting
/// that a slice cannot give (a doubled quote, text after a closing quote, no closing quote).
struct PlainFields<'a> {
    rest: &'a str,
    sep: char,
}

impl<'a> Iterator for PlainFields<'a> {
    type Item = Option<&'a str>;

    fn next(&mut self) -> Option<Self::Item> {
        // Byte comparisons: the quote and the separators perfmon uses are ASCII, and a UTF-8
        // byte of that value is always that character.
        let bytes = self.rest.as_bytes();
        let sep = self.sep as u8;
        if bytes.is_empty() {
            return None;
        }
        let (field, after) = if bytes[0] == b'"' {
            let Some(end) = bytes[1..].iter().position(|&b| b == b'"') else { return Some(None) };
            let after = &self.rest[end + 2..];
            if !(after.is_empty() || after.as_bytes()[0] == sep) {
                return Some(None);
            }
            (&self.rest[1..end + 1], after)
        } else {
            match bytes.iter().position(|&b| b == sep) {
                Some(end) => (&self.rest[..end], &self.rest[end..]),
                None => (self.rest, ""),
            }
        };
        // Past the separator; a line ending in one has an empty last field.
        self.rest = match after.len() {
            0 => "",
            1 => "\"\"",
            _ => &after[1..],
        };
        Some(Some(field))
    }
}

/// `Some(None)` for a blank, `Some(Some(x))` for a number, `None` for anything else.
fn value(field: &str) -> Option<Option<f64>> {
    let f = field.trim();
    if f.is_empty() {
        return Some(None);
    }
    let parsed = f.parse::<f64>().ok().or_else(|| {
        (!f.contains('.') && f.matches(',').count() == 1).then(|| f.replace(',', ".").parse().ok()).flatten()
    })?;
    Some(parsed.is_finite().then_some(parsed))
}

/// The header line of a CSV log spindle writes: UTC timestamps, so bias 0.
pub fn csv_header(host: &str, paths: &[String]) -> String {
    let mut line = quote("(PDH-CSV 4.0) (Coordinated Universal Time)(0)");
    for p in paths {
        line.push(',');
        line.push_str(&quote(&format!("\\\\{host}{p}")));
    }
    line
}

/// One row: the time as perfmon writes it (`MM/dd/yyyy HH:mm:ss.fff`) and the values, `" "`
/// for missing ones.
pub fn csv_row(time: &str, values: &[Option<f64>]) -> String {
    let mut line = quote(time);
    for v in values {
        line.push(',');
        line.push_str(&match v {
            Some(x) => quote(&format!("{x}")),
            None => quote(" "),
        });
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_log_read_in_halves_keeps_its_order_and_line_numbers() {
        let mut text = String::from("\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\PhysicalDisk(0 C:)\\Disk Reads/sec\"\r\n");
        let rows = 600_000;
        for i in 0..rows {
            if i == 300_000 {
                text.push_str("\"bad\",\"x\"\r\n");
            } else {
                text.push_str(&format!("\"t{i}\",\"{i}\"\r\n"));
            }
        }
        assert!(text.len() > 8 << 20, "large enough to be read in halves");
        let t = parse(&text).unwrap();
        assert_eq!((t.rows.len(), t.skipped.as_slice()), (rows - 1, &[300_002][..]));
        assert_eq!((t.times[299_999].as_str(), t.times[300_000].as_str()), ("t299999", "t300001"));
        assert_eq!(t.rows[300_000], vec![Some(300_001.0)]);
    }

    #[test]
    fn fields_read_in_place_agree_with_split() {
        for line in [
            r#""01/01/2026 00:00:00.000","1.5"," ","2""#,
            "\"t\",\"1\",\"2\"\r",
            r#""t",1,,3"#,
            r#""t","1","#,
            r#""t","say ""x""","2""#,
            r#""t","1"x,"2""#,
            r#""t","open"#,
            "t\t1\t2",
        ] {
            for sep in [',', '\t'] {
                for width in [2, 3] {
                    let mut slow = Vec::new();
                    let by_split = slow_row(line, sep, width, &mut slow).map(|t| (t.into_owned(), slow));
                    assert_eq!(row(line, sep, width), by_split, "{line:?} split by {sep:?}");
                }
            }
        }
    }

    #[test]
    fn a_data_collector_set_log() {
        let t = parse(include_str!("../testdata/Narmadha6790_DataCollector01.csv")).unwrap();
        assert_eq!(t.format, "(PDH-CSV 4.0) (India Standard Time)(-330)");
        assert_eq!(t.columns.len(), 12);
        assert_eq!(t.columns[1], "\\\\IMPC3116\\LogicalDisk(C:)\\Avg. Disk Read Queue Length");
        assert_eq!(t.rows.len(), 21);
        assert_eq!(t.rows[0][0], None, "the first row's averages are blank");
        assert_eq!(t.rows[0][8], Some(0.0), "instantaneous counters are not");
        assert_eq!(t.rows[1][1], Some("0.032083023520161361".parse().unwrap()), "full precision as written");
        assert_eq!(t.times[1], "09/19/2017 09:51:54.050");
        assert!(t.skipped.is_empty());
        assert_eq!(split_path(&t.columns[1]), Some(("LogicalDisk", Some("C:"), "Avg. Disk Read Queue Length")));
    }

    #[test]
    fn process_counters_with_instances_and_large_numbers() {
        let t = parse(include_str!("../testdata/jg185342_DataCollector02.csv")).unwrap();
        assert_eq!(t.format, "(PDH-CSV 4.0) (Eastern Daylight Time)(240)");
        assert_eq!(t.rows[0][0], Some(238133047951360.0));
        assert_eq!(split_path(&t.columns[2]), Some(("Process", Some("AnyDesk#1"), "Virtual Bytes")));
    }

    #[test]
    fn bad_rows_are_counted_and_bad_files_named() {
        let text =
            "\"(PDH-CSV 4.0)\",\"\\\\H\\Memory\\Pages/sec\"\n\"t1\",\"1\"\n\"t2\",\"x\"\n\"t3\"\n\"t4\",\"2,5\"\n";
        let t = parse(text).unwrap();
        assert_eq!(t.rows, vec![vec![Some(1.0)], vec![Some(2.5)]]);
        assert_eq!(t.skipped, [3, 4]);
        assert!(parse("").unwrap_err().0.contains("empty"));
        assert!(parse("time,value\n1,2\n").unwrap_err().0.contains("not a perfmon counter log"));
        let tsv = parse("\"(PDH-TSV 4.0)\"\t\"\\\\H\\Memory\\Pages/sec\"\n\"t\"\t\"3\"\n").unwrap();
        assert_eq!(tsv.rows, vec![vec![Some(3.0)]]);
    }

    #[test]
    fn what_spindle_writes_it_reads_back() {
        let paths = vec!["\\PhysicalDisk(vda)\\Disk Reads/sec".to_string(), "\\Memory\\Pages/sec".to_string()];
        let text =
            format!("{}\n{}\n", csv_header("db01", &paths), csv_row("11/23/2026 06:00:01.000", &[Some(12.5), None]));
        let t = parse(&text).unwrap();
        assert_eq!(t.columns[0], "\\\\db01\\PhysicalDisk(vda)\\Disk Reads/sec");
        assert_eq!(t.rows, vec![vec![Some(12.5), None]]);
        assert_eq!(split_path(&t.columns[1]), Some(("Memory", None, "Pages/sec")));
    }
}

/// A sortable key for a timestamp as perfmon writes it (`09/19/2017 09:51:39.073`) or as a
/// user types one (`2017-09-19T09:51:39`, `2017-09-19 09:51`, `2017-09-19`); `None` for
/// anything else. Time zones are not converted: a log's times are its local times.
pub fn time_key(text: &str) -> Option<TimeKey> {
    let t = text.trim();
    let (date, clock) = match t.split_once([' ', 'T']) {
        Some((d, c)) => (d, c.trim()),
        None => (t, ""),
    };
    let parts: Vec<u32> = date.split(['/', '-']).map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let (y, m, d) = match (parts.as_slice(), date.contains('/')) {
        ([m, d, y], true) => (*y, *m, *d),
        ([y, m, d], false) => (*y, *m, *d),
        _ => return None,
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut hms = [0u32; 3];
    let mut ms = 0;
    if !clock.is_empty() {
        let (main, frac) = clock.split_once('.').unwrap_or((clock, ""));
        for (slot, part) in hms.iter_mut().zip(main.split(':')) {
            *slot = part.parse().ok()?;
        }
        if !frac.is_empty() {
            ms = format!("{frac:0<3}")[..3].parse().ok()?;
        }
    }
    Some((y, m, d, hms[0], hms[1], hms[2], ms))
}

/// A timestamp as `time_key` reads it: year, month, day, hours, minutes, seconds, milliseconds.
pub type TimeKey = (u32, u32, u32, u32, u32, u32, u32);

/// `--from`/`--to`: the samples kept, by their times (inclusive).
#[derive(Clone, Debug)]
pub struct TimeRange {
    from: Option<TimeKey>,
    to: Option<TimeKey>,
}

impl TimeRange {
    /// `Ok(None)` when neither bound is given: every sample is kept, whatever its time. `Err`
    /// names a bound that is not a timestamp.
    pub fn new(from: Option<&str>, to: Option<&str>) -> Result<Option<TimeRange>, ParseError> {
        let bound = |b: Option<&str>| -> Result<Option<_>, ParseError> {
            b.map(|t| {
                time_key(t).ok_or_else(|| {
                    ParseError(format!("{t}: write a time as 2026-11-23T06:00:00 or 11/23/2026 06:00:00"))
                })
            })
            .transpose()
        };
        let (from, to) = (bound(from)?, bound(to)?);
        Ok((from.is_some() || to.is_some()).then_some(TimeRange { from, to }))
    }

    /// Whether a sample at `time` is kept; `Err` when `time` is not a timestamp.
    pub fn keeps(&self, time: &str) -> Result<bool, ParseError> {
        let k = time_key(time).ok_or_else(|| {
            ParseError(format!("the log's sample time {time:?} is not a timestamp, so it cannot be cut by time"))
        })?;
        Ok(self.from.is_none_or(|f| k >= f) && self.to.is_none_or(|t| k <= t))
    }
}

impl CounterTable {
    /// Keeps the samples from `from` to `to` (inclusive); `Err` names a bound or a sample
    /// time that is not a timestamp.
    pub fn keep_between(&mut self, from: Option<&str>, to: Option<&str>) -> Result<(), ParseError> {
        let Some(range) = TimeRange::new(from, to)? else { return Ok(()) };
        let keep = self.times.iter().map(|t| range.keeps(t)).collect::<Result<Vec<bool>, _>>()?;
        let mut it = keep.iter();
        self.rows.retain(|_| *it.next().unwrap_or(&false));
        let mut it = keep.iter();
        self.times.retain(|_| *it.next().unwrap_or(&false));
        Ok(())
    }
}

#[cfg(test)]
mod time_tests {
    use super::*;

    #[test]
    fn times_from_logs_and_users_compare() {
        assert_eq!(time_key("09/19/2017 09:51:39.073"), Some((2017, 9, 19, 9, 51, 39, 73)));
        assert_eq!(time_key("2017-09-19T09:51:39"), Some((2017, 9, 19, 9, 51, 39, 0)));
        assert_eq!(time_key("2017-09-19 09:51"), Some((2017, 9, 19, 9, 51, 0, 0)));
        assert_eq!(time_key("2017-09-19"), Some((2017, 9, 19, 0, 0, 0, 0)));
        for bad in ["report 1", "13/01/2017", "2017-09-19Tnoon", ""] {
            assert_eq!(time_key(bad), None, "{bad}");
        }
        let mut t = parse(include_str!("../testdata/Narmadha6790_DataCollector01.csv")).unwrap();
        t.keep_between(Some("2017-09-19T09:52:00"), Some("09/19/2017 09:52:30")).unwrap();
        assert_eq!(t.times, ["09/19/2017 09:52:09.058", "09/19/2017 09:52:24.044"]);
        assert_eq!(t.rows.len(), 2);
        assert!(t.keep_between(Some("soon"), None).unwrap_err().0.contains("soon"));
    }
}
