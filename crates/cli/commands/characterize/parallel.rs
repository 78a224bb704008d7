//! A counter log read on two cores, in bounded memory: this thread reads the file in runs of
//! whole lines and folds the rows into the method in the log's order; parser threads turn
//! the runs into rows meanwhile, taking turns. Parsing a perfmon line's thirty quoted numbers
//! is most of the work, and the fold adds floats in order (a sum in another order differs in
//! the last bit), so parsing is what runs apart and the fold stays here, one run after
//! another. Only a perfmon log's body can be parsed apart (a row a line): its header, and
//! every other format (whose rows span lines), are read here a line at a time.

use super::Feed;
use crate::input_file::TextStream;
use crate::usage::UsageError;
use spindle_formats::stream::{Batch, Body, LogReader};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{Scope, ScopedJoinHandle};

/// Threads that parse runs of lines: the machines this runs on have two cores or more, and
/// with the fold here two parsers keep two cores busy.
const PARSERS: usize = 2;
/// Runs read and not yet folded (a run is about 4 MiB, its rows as many again): what bounds
/// memory, whatever the log's length.
const IN_FLIGHT: usize = 4;

/// Reads the log into `feed` (a line at a time until its lines can be parsed apart, then on
/// the parser threads) until it ends or `feed` stops; the reader is given back to be
/// finished. A parser thread that fails is an error naming the file.
pub(super) fn read(input: TextStream, shown: &str, feed: &mut Feed) -> anyhow::Result<LogReader> {
    let mut reader = LogReader::new();
    std::thread::scope(|scope| {
        let mut pool: Option<Pool> = None;
        let read = input.chunks(|chunk| {
            let mut start = 0;
            if pool.is_none() {
                // A line at a time, until the lines can be read apart.
                for line in chunk.split_inclusive(|&b| b == b'\n') {
                    reader.line(&String::from_utf8_lossy(line), feed).map_err(|e| UsageError::file(shown, e))?;
                    start += line.len();
                    if feed.stop.is_some() {
                        return Ok(None);
                    }
                    if let Some(body) = reader.body() {
                        pool = Some(Pool::start(scope, body, reader.lines()).map_err(|e| {
                            UsageError::file(shown, format_args!("cannot start a thread to read it: {e}"))
                        })?);
                        break;
                    }
                }
            }
            match &mut pool {
                Some(pool) if start < chunk.len() => pool.send(chunk, start, feed, shown),
                _ => Ok(Some(chunk)),
            }
        });
        let joined = match pool {
            Some(pool) => pool.finish(read.is_ok(), feed, shown),
            None => Ok(()),
        };
        read.and(joined)?;
        Ok(reader)
    })
}

/// The parser threads, and the runs handed to them in turn.
struct Pool<'scope> {
    /// To each parser: a run (its bytes, and where its lines begin in them) and a batch to
    /// reuse.
    jobs: Vec<SyncSender<(Vec<u8>, usize, Batch)>>,
    /// From each parser: its runs' rows, in the order it was given them, and the runs' bytes
    /// to reuse.
    done: Vec<Receiver<(Batch, Vec<u8>)>>,
    threads: Vec<ScopedJoinHandle<'scope, ()>>,
    sent: usize,
    folded: usize,
    /// The log's lines before the next run to fold.
    lines_before: usize,
    /// Batches folded, to be filled again, and runs parsed, to be read into again.
    spare: Vec<(Batch, Vec<u8>)>,
}

impl<'scope> Pool<'scope> {
    fn start<'env>(
        scope: &'scope Scope<'scope, 'env>,
        body: Body,
        lines_before: usize,
    ) -> std::io::Result<Pool<'scope>> {
        let mut pool = Pool {
            jobs: Vec::new(),
            done: Vec::new(),
            threads: Vec::new(),
            sent: 0,
            folded: 0,
            lines_before,
            spare: Vec::new(),
        };
        for i in 0..PARSERS {
            // Each parser's share of the runs in flight, so neither side ever waits on a full channel.
            let (job_tx, job_rx) = sync_channel::<(Vec<u8>, usize, Batch)>(IN_FLIGHT);
            let (done_tx, done_rx) = sync_channel(IN_FLIGHT);
            let mut body = body.clone();
            let thread =
                std::thread::Builder::new().name(format!("characterize-parse-{i}")).spawn_scoped(scope, move || {
                    for (chunk, start, mut batch) in job_rx {
                        body.lines(&text(&chunk[start..]), &mut batch);
                        if done_tx.send((batch, chunk)).is_err() {
                            return;
                        }
                    }
                })?;
            pool.jobs.push(job_tx);
            pool.done.push(done_rx);
            pool.threads.push(thread);
        }
        Ok(pool)
    }

    /// Hands the run in `chunk` from `start` to the next parser, folding the oldest run first
    /// when `IN_FLIGHT` are out; gives back a buffer to read the next run into, `Ok(None)`
    /// once `feed` stops.
    fn send(&mut self, chunk: Vec<u8>, start: usize, feed: &mut Feed, shown: &str) -> anyhow::Result<Option<Vec<u8>>> {
        if self.sent - self.folded == IN_FLIGHT {
            self.fold_next(feed, shown)?;
            if feed.stop.is_some() {
                return Ok(None);
            }
        }
        let (batch, next) = self.spare.pop().unwrap_or_default();
        self.jobs[self.sent % PARSERS].send((chunk, start, batch)).map_err(|_| stopped(shown))?;
        self.sent += 1;
        Ok(Some(next))
    }

    /// The oldest run's rows into `feed`.
    fn fold_next(&mut self, feed: &mut Feed, shown: &str) -> anyhow::Result<()> {
        let (batch, chunk) = self.done[self.folded % PARSERS].recv().map_err(|_| stopped(shown))?;
        batch.replay(self.lines_before, feed);
        self.lines_before += batch.lines();
        self.folded += 1;
        self.spare.push((batch, chunk));
        Ok(())
    }

    /// Folds the runs still out (when `fold` and until `feed` stops), then ends the threads.
    fn finish(mut self, fold: bool, feed: &mut Feed, shown: &str) -> anyhow::Result<()> {
        let mut folded = Ok(());
        while fold && self.folded < self.sent && feed.stop.is_none() && folded.is_ok() {
            folded = self.fold_next(feed, shown);
        }
        // Closing the channels ends the parsers, even one waiting to hand on a run.
        self.jobs.clear();
        self.done.clear();
        let joined = self.threads.into_iter().map(|t| t.join()).collect::<Result<Vec<()>, _>>();
        folded?;
        joined.map_err(|_| stopped(shown))?;
        Ok(())
    }
}

/// A run's bytes as text. A run ends at a `\n`, so bytes that are not UTF-8, replaced run by
/// run, are replaced as line by line; checking first is the fast way for a run that is all
/// UTF-8, as logs are.
fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn stopped(shown: &str) -> anyhow::Error {
    UsageError::file(shown, "a thread reading the log stopped before its end").into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_analysis::characterize::{Characterizer, Options};

    fn feed(range: Option<(&str, &str)>) -> Feed {
        let opts = Options { min_queue: 2.0, coverage_pct: 80.0, ..Options::default() };
        Feed {
            method: Characterizer::new(opts),
            range: spindle_formats::perfmon::TimeRange::new(range.map(|r| r.0), range.map(|r| r.1)),
            rows: 0,
            skipped: 0,
            first_skipped: Vec::new(),
            stop: None,
        }
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

    fn parallel(bytes: &[u8], range: Option<(&str, &str)>) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, bytes).unwrap();
        let mut feed = feed(range);
        let input = TextStream::open(&path, "counter log").unwrap();
        let reader = read(input, "log", &mut feed).unwrap();
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

    /// iostat and sadf logs, whose devices come and go (their columns grow), are read here a
    /// line at a time, as before.
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
            assert_eq!(parallel(log.as_bytes(), None), whole);
        }
    }
}
