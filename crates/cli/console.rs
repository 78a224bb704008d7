//! The runner's observer on the command line: progress on stderr (a live line on terminals
//! only), each run as it is saved (its report, a line, or only where it was saved), and what
//! went wrong said from the run's typed end, never from its warnings' words.

use crate::args::OutputArgs;
use crate::live::Publisher;
use crate::output;
use crate::progress::{Display, note, warn};
use spindle_io::run::Progress;
use spindle_model::RunRecord;
use spindle_runner::RunEnd;
use spindle_runner::experiment::Finished;
use spindle_runner::observer::Observer;
use spindle_store::Location;

/// How each saved run is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Its text report (a single run, or `-v`).
    Report,
    /// A line with its rate and latency, and where it was saved (many runs).
    Line,
    /// Only where it was saved (the command prints a table of its own at the end, or JSON).
    Saved,
}

pub struct Console<'o> {
    display: Display,
    quiet: bool,
    shown: Shown,
    /// How a run is printed when it cannot be saved.
    output: &'o OutputArgs,
    /// Named once, with the first run saved (any password masked).
    store: Location,
    /// What a step's repeat is called: `repeat`, or an A/B `round`.
    pub repeat_word: &'static str,
    /// The step measuring now, published to the store for `spindle serve`.
    live: Publisher,
}

impl<'o> Console<'o> {
    /// Runs are shown as `shown` when the output is text; only where they were saved otherwise.
    pub fn new(output: &'o OutputArgs, store: Location, shown: Shown) -> Console<'o> {
        let text = !output.json && !output.csv;
        let shown = match shown {
            Shown::Report | Shown::Line if !text => Shown::Saved,
            Shown::Line if output.verbose => Shown::Report,
            s => s,
        };
        Console {
            display: Display::new(output.quiet),
            quiet: output.quiet,
            shown,
            output,
            live: Publisher::new(store.clone()),
            store,
            repeat_word: "repeat",
        }
    }

    fn head(&self, run: &Finished, total: usize) -> Option<String> {
        let index = run.step?;
        (total > 1).then(|| {
            let at = run.point.as_ref().map(|p| {
                let repeat =
                    if run.repeat > 1 { format!(", {} {}", self.repeat_word, run.repeat) } else { String::new() };
                format!(" ({p}{repeat})")
            });
            format!("run {} of {total}{}", index + 1, at.unwrap_or_default())
        })
    }
}

impl Observer for Console<'_> {
    fn note(&self, message: &str) {
        self.display.finish_line();
        note(self.quiet, message);
    }

    fn warn(&self, message: &str) {
        self.display.finish_line();
        warn(self.quiet, message);
    }

    fn error(&self, message: &str) {
        self.display.finish_line();
        let error = crate::style::error("error:", crate::style::Stream::Stderr);
        eprintln!("spindle: {error} {}", crate::style::printable(message));
    }

    fn tick(&self, progress: &Progress) {
        self.display.tick(progress);
        self.live.tick(progress);
    }

    fn fill(&self, what: &str, done: u64, total: u64) {
        self.display.fill(what, done, total);
    }

    fn announce(&self, what: &str) {
        self.live.announce(what);
        if self.shown != Shown::Report {
            self.display.announce(what);
        } else {
            self.note(what);
        }
    }

    fn finish_line(&self) {
        self.display.finish_line();
    }

    fn saved(&self, run: &Finished, saved: usize, total: usize) {
        self.live.saved(run.id);
        // A single run is always shown whole when the output is text.
        let report = self.shown == Shown::Report || (self.shown == Shown::Line && total == 1);
        if report && !self.quiet {
            // Every warning is said on stderr as it arises, so the report printed now leaves
            // them out; the record keeps them all, and `runs show` prints them.
            let shown = RunRecord { warnings: Vec::new(), ..run.record.clone() };
            let _ = output::write_text(&spindle_report::render_text(std::slice::from_ref(&shown)));
        }
        let id = run.id;
        // The store is named once; after that, the run's id is enough.
        let saved =
            if saved == 0 { format!("saved as run {id} in {}", self.store) } else { format!("saved as run {id}") };
        let part = run.part.as_deref().map(|p| format!("{p}: ")).unwrap_or_default();
        match self.head(run, total) {
            Some(head) if self.shown == Shown::Line => {
                self.note(&format!("{head}: {}; {saved}", one_line(&run.record)))
            }
            Some(head) if !report => self.note(&format!("{head}: {part}{saved}")),
            _ => self.note(&format!("{part}{saved}")),
        }
        match &run.end {
            RunEnd::OutOfSpace => self.error("a target ran out of space; the result above covers the run until then"),
            RunEnd::Failed(why) => self.error(&format!("{why}; the runs so far are saved")),
            RunEnd::Complete { .. } | RunEnd::Interrupted => {}
        }
        let faulty = run.record.details.verify().map_or(0, |v| v.faulty_sectors());
        if faulty > 0 {
            self.error(&format!(
                "verification found {faulty} faulty sector(s): the storage did not give back what it acknowledged (listed in the report; `spindle runs show {id}`)"
            ));
        }
    }

    fn unsaved(&self, record: &RunRecord) {
        self.live.end();
        let _ = output::print(std::slice::from_ref(record), self.output);
    }
}

/// A run in a line: its rate, bandwidth (for kinds that move bytes of their own: a Hammer
/// call's MB/s would always read 0.00) and the latency every view leads with; a commit's is
/// named, with each I/O's mean after it, as the suite's table at the end has them.
fn one_line(r: &RunRecord) -> String {
    use spindle_model::record::LatencyOf;
    use spindle_model::units::format_latency_ns;
    let s = &r.summary;
    let bandwidth = if r.kind().moves_bytes() {
        format!(", {} MB/s", spindle_report::view::rate_text(s.mb_per_sec))
    } else {
        String::new()
    };
    if s.lead_count() == 0 && r.kind().times_operations() {
        // Stopped before any completed: its latencies are zeros that measured nothing.
        let (rate, per_sec, none) = (spindle_report::view::rate_text(s.iops), r.counts.per_sec(), r.counts.plural());
        return format!("{rate} {per_sec}{bandwidth}, no {none} completed");
    }
    let (of, l) = s.lead_latency();
    let (named, beside) = match of {
        LatencyOf::Commit => ("commit ", format!(", I/O mean {}", format_latency_ns(s.latency_ns.mean))),
        LatencyOf::Io => ("", String::new()),
    };
    format!(
        "{} {}{bandwidth}, {named}mean {}, p99 {}{beside}",
        spindle_report::view::rate_text(s.iops),
        r.counts.per_sec(),
        format_latency_ns(l.mean),
        format_latency_ns(l.p99 as f64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::Histogram;
    use spindle_model::record::{CpuUsage, IoStats, OpStats, RunStatus};

    /// The suite's line for a run that commits says the commit latency, as its table at the end
    /// does, with each I/O's after it; a run that does not is shown as before.
    #[test]
    fn a_runs_line_leads_with_its_commit_latency() {
        let details = spindle_model::KindData::LogTest { spec: Default::default(), figures: Default::default() };
        let mut r = RunRecord::new(details, RunStatus::Complete, std::time::SystemTime::UNIX_EPOCH, 1.0);
        let (mut writes, mut commits, none) = (Histogram::new(), Histogram::new(), Histogram::new());
        writes.record(25_000);
        commits.record(250_000);
        r.summary = IoStats::from_histograms(&none, &writes, &none, 0, 8192, 1.0, CpuUsage::default());
        let before = one_line(&r);
        assert!(before.ends_with("rows/sec, mean 25.00us, p99 25.00us"), "{before}");
        r.summary.commit = OpStats::of(&commits);
        let line = one_line(&r);
        assert!(line.ends_with("rows/sec, commit mean 250.00us, p99 250.00us, I/O mean 25.00us"), "{line}");
        // Stopped before any completed: no latency of 0ns.
        r.summary = IoStats::default();
        assert!(one_line(&r).ends_with("rows/sec, no rows completed"), "{}", one_line(&r));
    }
}
