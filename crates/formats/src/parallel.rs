//! A counter log read on two cores, in bounded memory: the caller hands in the file in runs
//! of whole lines and the rows are folded into its sink in the log's order; parser threads
//! turn the runs into rows meanwhile, taking turns. Parsing a perfmon line's thirty quoted
//! numbers is most of the work, and a sink may add floats in order (a sum in another order
//! differs in the last bit), so parsing is what runs apart and the fold stays on the
//! caller's thread, one run after another: the fold is where iostat's reports and sadf's
//! timestamps gather their devices' lines into rows. A log's header, and an iostat JSON
//! document, are read on the caller's thread a line at a time. No I/O: bytes in, rows out.

use crate::ParseError;
use crate::batch::{Batch, Body};
use crate::stream::{LogReader, RowSink};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Threads that parse runs of lines: the machines this runs on have two cores or more, and
/// with the fold on the caller's thread two parsers keep two cores busy.
const PARSERS: usize = 2;
/// Runs read and not yet folded (a run is about 4 MiB, its rows as many again): what bounds
/// memory, whatever the log's length.
const IN_FLIGHT: usize = 4;

/// A counter log read in runs of whole lines (`run`), a line at a time until its lines can be
/// parsed apart, then on parser threads; then `finish`.
#[derive(Default)]
pub struct ParallelReader {
    reader: LogReader,
    pool: Option<Pool>,
}

impl ParallelReader {
    pub fn new() -> ParallelReader {
        ParallelReader::default()
    }

    /// The next run of the log's whole lines (the last run may end without a `\n`): gives back
    /// a buffer to read the next run into, or `None` once `sink` stops.
    pub fn run(&mut self, chunk: Vec<u8>, sink: &mut impl RowSink) -> Result<Option<Vec<u8>>, ParseError> {
        let mut start = 0;
        if self.pool.is_none() {
            // A line at a time, until the lines can be read apart.
            for line in chunk.split_inclusive(|&b| b == b'\n') {
                self.reader.line(&String::from_utf8_lossy(line), sink)?;
                start += line.len();
                if sink.stopped() {
                    return Ok(None);
                }
                if let Some(body) = self.reader.body() {
                    let pool =
                        Pool::start(body).map_err(|e| ParseError(format!("cannot start a thread to read it: {e}")))?;
                    self.pool = Some(pool);
                    break;
                }
            }
        }
        match &mut self.pool {
            Some(pool) if start < chunk.len() => pool.send(chunk, start, &mut self.reader, sink),
            _ => Ok(Some(chunk)),
        }
    }

    /// The runs still out folded into `sink` (until it stops), the threads ended: the reader,
    /// to be finished as `LogReader::finish` does once `sink` is looked at.
    pub fn finish(mut self, sink: &mut impl RowSink) -> Result<LogReader, ParseError> {
        if let Some(pool) = self.pool.take() {
            pool.finish(&mut self.reader, sink)?;
        }
        Ok(std::mem::take(&mut self.reader))
    }
}

/// The parser threads, and the runs handed to them in turn.
struct Pool {
    /// To each parser: a run (its bytes, and where its lines begin in them) and a batch to
    /// reuse.
    jobs: Vec<SyncSender<(Vec<u8>, usize, Batch)>>,
    /// From each parser: its runs' rows, in the order it was given them, and the runs' bytes
    /// to reuse.
    done: Vec<Receiver<(Batch, Vec<u8>)>>,
    threads: Vec<JoinHandle<()>>,
    sent: usize,
    folded: usize,
    /// Batches folded, to be filled again, and runs parsed, to be read into again.
    spare: Vec<(Batch, Vec<u8>)>,
}

impl Pool {
    fn start(body: Body) -> std::io::Result<Pool> {
        let mut pool =
            Pool { jobs: Vec::new(), done: Vec::new(), threads: Vec::new(), sent: 0, folded: 0, spare: Vec::new() };
        for i in 0..PARSERS {
            // Each parser's share of the runs in flight, so neither side ever waits on a full channel.
            let (job_tx, job_rx) = sync_channel::<(Vec<u8>, usize, Batch)>(IN_FLIGHT);
            let (done_tx, done_rx) = sync_channel(IN_FLIGHT);
            let mut body = body.clone();
            let thread = std::thread::Builder::new().name(format!("characterize-parse-{i}")).spawn(move || {
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
    /// once `sink` stops.
    fn send(
        &mut self,
        chunk: Vec<u8>,
        start: usize,
        reader: &mut LogReader,
        sink: &mut impl RowSink,
    ) -> Result<Option<Vec<u8>>, ParseError> {
        if self.sent - self.folded == IN_FLIGHT {
            self.fold_next(reader, sink)?;
            if sink.stopped() {
                return Ok(None);
            }
        }
        let (batch, next) = self.spare.pop().unwrap_or_default();
        self.jobs[self.sent % PARSERS].send((chunk, start, batch)).map_err(|_| stopped())?;
        self.sent += 1;
        Ok(Some(next))
    }

    /// The oldest run's lines through `reader` into `sink`.
    fn fold_next(&mut self, reader: &mut LogReader, sink: &mut impl RowSink) -> Result<(), ParseError> {
        let (batch, chunk) = self.done[self.folded % PARSERS].recv().map_err(|_| stopped())?;
        let folded = reader.replay(&batch, sink);
        self.folded += 1;
        self.spare.push((batch, chunk));
        folded
    }

    /// Folds the runs still out (until `sink` stops), then ends the threads.
    fn finish(mut self, reader: &mut LogReader, sink: &mut impl RowSink) -> Result<(), ParseError> {
        let mut folded = Ok(());
        while self.folded < self.sent && !sink.stopped() && folded.is_ok() {
            folded = self.fold_next(reader, sink);
        }
        let joined = self.end();
        folded?;
        joined
    }

    /// Closing the channels ends the parsers, even one waiting to hand on a run.
    fn end(&mut self) -> Result<(), ParseError> {
        self.jobs.clear();
        self.done.clear();
        let joined = self.threads.drain(..).map(|t| t.join()).collect::<Result<Vec<()>, _>>();
        joined.map(|_| ()).map_err(|_| stopped())
    }
}

/// A reader given up on (its caller's read failed) ends its threads without folding.
impl Drop for Pool {
    fn drop(&mut self) {
        let _ = self.end();
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

fn stopped() -> ParseError {
    ParseError("a thread reading the log stopped before its end".into())
}
