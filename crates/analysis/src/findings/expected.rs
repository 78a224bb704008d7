//! Whether a volume delivers what it was provisioned for (`--expect 3000iops,125MB/s`): IOPS
//! against the page reads (small random reads, the size providers count IOPS in), MB/s
//! against the large reads and writes, each said with the depth and latency it came at.

use super::Level;
use super::evidence::{DepthCurve, Transfer};
use super::figures::{latency, mb_per_sec, rate};
use super::rules::{Check, Judgement, level_of};
use super::sustained::Sustained;
use spindle_model::RunRecord;
use spindle_model::expected::Expected;
use spindle_model::units::format_size;

/// A figure short of this share of the one expected is not delivered: what the big cloud
/// promises its volumes deliver nearly all of the time.
pub const DELIVERED_SHARE: f64 = 0.90;

/// What an expected figure counts, and how its numbers read.
#[derive(Clone, Copy)]
enum Unit {
    Iops,
    MbPerSec,
}

impl Unit {
    fn number(self, v: f64) -> String {
        match self {
            Unit::Iops => rate(v),
            Unit::MbPerSec => mb_per_sec(v).trim_end_matches(" MB/s").to_string(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Unit::Iops => "IOPS",
            Unit::MbPerSec => "MB/s",
        }
    }

    /// `2,000 IOPS`, `131 MB/s`.
    fn with(self, v: f64) -> String {
        format!("{} {}", self.number(v), self.name())
    }

    /// The figure a transfer has.
    fn of(self, t: &Transfer) -> f64 {
        match self {
            Unit::Iops => t.iops,
            Unit::MbPerSec => t.mb_per_sec,
        }
    }
}

/// `delivers the 3,000 IOPS expected`, or `delivers 2,000 of the 3,000 IOPS expected (67%)`;
/// `how` follows "expected" (`, sustained`).
fn delivers(unit: Unit, got: f64, want: f64, how: &str) -> String {
    let (want_said, name) = (unit.number(want), unit.name());
    if got >= want * DELIVERED_SHARE {
        format!("delivers the {want_said} {name} expected{how}")
    } else {
        format!("delivers {} of the {want_said} {name} expected{how} ({:.0}%)", unit.number(got), got / want * 100.0)
    }
}

/// One expected figure held against the steps that measure it: its words, the share delivered
/// and whether a deeper queue might have reached more.
struct Held {
    words: String,
    figure: String,
    share: f64,
    deeper_may_reach: bool,
}

/// The expected IOPS against the page reads: the shallowest depth that delivers them, else
/// the most any depth reached.
fn iops(expected: f64, curve: &DepthCurve) -> Option<Held> {
    let pages = format_size(curve.block);
    let at = |p: &crate::curve::CurvePoint| {
        format!("{} IOPS at {} outstanding, {} each", rate(p.iops), p.value, latency(p.latency_mean_ns))
    };
    if let Some(p) = curve.points.iter().find(|p| p.iops >= expected * DELIVERED_SHARE) {
        return Some(Held {
            words: format!("{}: {pages} page reads reach {}", delivers(Unit::Iops, p.iops, expected, ""), at(p)),
            figure: format!("{} of {} IOPS", rate(p.iops), rate(expected)),
            share: p.iops / expected,
            deeper_may_reach: false,
        });
    }
    // The shallowest of the best: more depth for the same rate only adds latency.
    let best = curve.points.iter().filter(|p| p.iops.is_finite()).reduce(|a, b| if b.iops > a.iops { b } else { a })?;
    let deeper_may_reach = curve.knee.is_none() && !curve.noisy;
    let deepest = curve.points.last().map_or("", |p| p.value.as_str());
    Some(Held {
        words: format!(
            "{}: {pages} page reads reach at most {}{}",
            delivers(Unit::Iops, best.iops, expected, ""),
            at(best),
            if deeper_may_reach {
                format!(", still rising at {deepest} outstanding, the deepest tried: deeper queues may deliver more")
            } else {
                String::new()
            }
        ),
        figure: format!("{} of {} IOPS", rate(best.iops), rate(expected)),
        share: best.iops / expected,
        deeper_may_reach,
    })
}

/// The expected IOPS against what the sustained step kept (after a burst, the rate after it).
fn sustained_iops(expected: f64, s: &Sustained) -> Held {
    let kept = s.kept_iops();
    let burst = s.burst().map_or(String::new(), |b| format!(" (after {b})"));
    let head = delivers(Unit::Iops, kept, expected, ", sustained");
    Held {
        words: format!("{head}: {} kept {} IOPS{burst}", s.held(), rate(kept)),
        figure: format!("{} of {} IOPS sustained", rate(kept), rate(expected)),
        share: kept / expected,
        deeper_may_reach: false,
    }
}

/// `512KiB large reads 131 MB/s at 8 outstanding, 2 ms each`.
fn transfer_words(what: &str, t: &Transfer, figure: &str) -> String {
    format!("{what} {figure} at {} outstanding, {} each", t.outstanding, latency(t.latency_mean_ns))
}

/// The expected MB/s against the large reads and writes: delivered when both deliver it.
fn throughput(expected: f64, transfers: &[(&str, &Transfer)]) -> Option<Held> {
    let least = transfers.iter().map(|(_, t)| t.mb_per_sec).min_by(f64::total_cmp)?;
    let each: Vec<String> = transfers
        .iter()
        .map(|(what, t)| transfer_words(&format!("{} {what}", format_size(t.block)), t, &mb_per_sec(t.mb_per_sec)))
        .collect();
    let head = delivers(Unit::MbPerSec, least, expected, "");
    Some(Held {
        words: format!("{head}: {}", each.join(", ")),
        figure: format!("{} of {}", mb_per_sec(least), mb_per_sec(expected)),
        share: least / expected,
        deeper_may_reach: false,
    })
}

/// The volume against `--expect`: each figure given, with the depth and latency it came at. A
/// figure short of 90% is a problem, or a warning when the page reads were still rising at
/// the deepest depth tried.
pub(crate) fn expected_rates(c: &Check) -> Option<Judgement> {
    let expected = c.dir.expected?;
    let transfers: Vec<(&str, &Transfer)> =
        [("large reads", c.dir.large_reads.as_ref()), ("large writes", c.dir.large_writes.as_ref())]
            .into_iter()
            .filter_map(|(what, t)| Some((what, t?)))
            .collect();
    let held: Vec<Held> = [
        expected.iops.and_then(|e| match &c.dir.sustained {
            Some(s) => Some(sustained_iops(e, s)),
            None => iops(e, c.dir.page_reads.as_ref()?),
        }),
        expected.mb_per_sec.and_then(|e| throughput(e, &transfers)),
    ]
    .into_iter()
    .flatten()
    .collect();
    if held.is_empty() {
        return None;
    }
    let level = held
        .iter()
        .map(|h| match level_of(c.thresholds, h.share) {
            Level::Problem if h.deeper_may_reach => Level::Warning,
            level => level,
        })
        .max()
        .unwrap_or(Level::Ok);
    Some(Judgement {
        level,
        text: format!("this volume {}", held.iter().map(|h| h.words.as_str()).collect::<Vec<_>>().join("; it ")),
        figure: held.iter().map(|h| h.figure.as_str()).collect::<Vec<_>>().join(", "),
        threshold: Some(format!("at least {:.0}% of each figure expected", DELIVERED_SHARE * 100.0)),
        advice: (level > Level::Ok).then(|| {
            "Check the volume's type and provisioned figures, and the instance's own limit (it caps all its volumes \
             together); check again at another hour (providers promise their figures 99% or 99.9% of the time), \
             and show these figures to the provider"
                .into()
        }),
    })
}

/// What runs of `spindle io --expect` deliver: the best run for each figure expected (the
/// first of the best), said with its depth and latency; `Level::Problem` when a figure is short
/// of 90%.
pub fn delivery(expected: &Expected, runs: &[(i64, &RunRecord)]) -> Option<(Level, String)> {
    let transfers: Vec<(String, Transfer)> = runs
        .iter()
        .map(|(id, r)| {
            let t = Transfer::of(r);
            (format!("run {id} ({} I/Os)", format_size(t.block)), t)
        })
        .collect();
    let best = |unit: Unit| {
        transfers
            .iter()
            .filter(|(_, t)| unit.of(t).is_finite())
            .reduce(|a, b| if unit.of(&b.1) > unit.of(&a.1) { b } else { a })
    };
    let mut said = Vec::new();
    let mut level = Level::Ok;
    for (want, unit) in [(expected.iops, Unit::Iops), (expected.mb_per_sec, Unit::MbPerSec)] {
        let (Some(want), Some((what, t))) = (want, best(unit)) else { continue };
        let got = unit.of(t);
        if got < want * DELIVERED_SHARE {
            level = Level::Problem;
        }
        said.push(format!("{}: {}", delivers(unit, got, want, ""), transfer_words(what, t, &unit.with(got))));
    }
    (!said.is_empty()).then(|| (level, format!("this volume {}", said.join("; it "))))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{curve, dir, judge};
    use super::*;

    fn transfer(block: u64, mb: f64) -> Transfer {
        Transfer {
            block,
            outstanding: 8,
            mb_per_sec: mb,
            iops: mb * 1e6 / block as f64,
            latency_mean_ns: 2e6,
            latency_p99_ns: 4_000_000,
        }
    }

    /// Page reads capped at 2,000 IOPS from depth 2; large reads 131 MB/s, writes 98 MB/s.
    fn measured(expected: Expected, knee: Option<usize>) -> super::super::evidence::DirEvidence {
        let mut d = dir();
        d.page_reads = Some(curve(&[("1", 1_484.0, 6.7e5), ("2", 2_000.0, 1e6), ("4", 2_000.0, 2e6)], knee));
        d.large_reads = Some(transfer(512 << 10, 131.0));
        d.large_writes = Some(transfer(256 << 10, 98.0));
        d.expected = Some(expected);
        d
    }

    #[test]
    fn a_volume_short_of_what_it_was_sold_as_is_a_problem_and_says_where() {
        let f =
            judge("expected-rates", &measured(Expected { iops: Some(3_000.0), mb_per_sec: None }, Some(1))).unwrap();
        assert_eq!(f.level, Level::Problem);
        assert_eq!(
            f.text,
            "this volume delivers 2,000 of the 3,000 IOPS expected (67%): 8KiB page reads reach at most 2,000 IOPS at \
             2 outstanding, 1 ms each"
        );
        assert_eq!(f.figure, "2,000 of 3,000 IOPS");
        assert!(!f.basis.is_own());
        // Still rising at the deepest depth: a deeper queue may yet deliver it.
        let rising =
            judge("expected-rates", &measured(Expected { iops: Some(3_000.0), mb_per_sec: None }, None)).unwrap();
        assert_eq!(rising.level, Level::Warning);
        assert!(
            rising.text.ends_with("still rising at 4 outstanding, the deepest tried: deeper queues may deliver more")
        );
    }

    #[test]
    fn delivered_within_ten_percent_says_at_which_depth() {
        let f =
            judge("expected-rates", &measured(Expected { iops: Some(2_150.0), mb_per_sec: None }, Some(1))).unwrap();
        assert_eq!(f.level, Level::Ok);
        assert!(
            f.text.starts_with("this volume delivers the 2,150 IOPS expected: 8KiB page reads reach 2,000 IOPS at 2")
        );
        assert!(f.advice.is_none());
        // MB/s: both directions must deliver it; the writes fall short here.
        let mb = judge("expected-rates", &measured(Expected { iops: None, mb_per_sec: Some(125.0) }, Some(1))).unwrap();
        assert_eq!(mb.level, Level::Problem);
        assert!(mb.text.starts_with("this volume delivers 98 of the 125 MB/s expected (78%): 512KiB large reads 131"));
        let both =
            judge("expected-rates", &measured(Expected { iops: Some(2_000.0), mb_per_sec: Some(100.0) }, Some(1)))
                .unwrap();
        assert_eq!(both.level, Level::Ok, "{}", both.text);
        assert_eq!(both.figure, "2,000 of 2,000 IOPS, 98 MB/s of 100 MB/s");
        // A sustained step: the rate kept after the burst is what is held against the figure.
        let mut sustained = measured(Expected { iops: Some(2_000.0), mb_per_sec: None }, Some(1));
        sustained.sustained = Some(Sustained {
            block: 8192,
            outstanding: 4,
            seconds: 60.0,
            iops: 1_600.0,
            latency_mean_ns: 3e6,
            level_shift: Some(spindle_model::over_time::LevelShift {
                at_seconds: 20.0,
                before: 2_000.0,
                after: 1_400.0,
            }),
        });
        let kept = judge("expected-rates", &sustained).unwrap();
        assert_eq!(kept.level, Level::Problem);
        assert_eq!(
            kept.text,
            "this volume delivers 1,400 of the 2,000 IOPS expected, sustained (70%): 8KiB page reads held at 4 \
             outstanding for 1 min 00 s kept 1,400 IOPS (after a burst of about 20 s at 2,000 IOPS)"
        );
        // Nothing expected, or nothing measured: no finding.
        let mut none = measured(Expected::default(), Some(1));
        none.expected = None;
        assert!(judge("expected-rates", &none).is_none());
        let mut unmeasured = measured(Expected { iops: Some(1.0), mb_per_sec: None }, Some(1));
        unmeasured.page_reads = None;
        assert!(judge("expected-rates", &unmeasured).is_none());
    }
}
