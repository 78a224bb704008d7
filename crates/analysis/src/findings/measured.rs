//! Judges of the measured steps: page reads at rising depth, commits, large transfers.

use super::Level;
use super::evidence::{DepthCurve, Guidance, Transfer};
use super::figures::{latency, mb_per_sec, rate};
use super::rules::{Check, Judgement, bound_for, level_of};
use crate::curve::CurvePoint;
use spindle_model::units::format_size;

/// What each engine calls its log, for sentences about commits.
pub(crate) fn log_name(guidance: Guidance) -> &'static str {
    match guidance {
        Guidance::Generic => "log",
        Guidance::SqlServer => "transaction log",
        Guidance::Postgres => "WAL",
        Guidance::Mysql => "redo log",
    }
}

/// `one at a time` for depth 1, else `at 8 outstanding`.
fn at_depth(depth: &str) -> String {
    if depth == "1" { "one at a time".into() } else { format!("at {depth} outstanding") }
}

/// Microsoft's latency assessment of a mean I/O wait: its word and the range it gives the word.
fn assessment(ns: f64) -> (&'static str, &'static str) {
    let ms = ns / 1e6;
    if ms < 2.0 {
        ("excellent", "under 2 ms")
    } else if ms <= 5.0 {
        ("very good", "2-5 ms")
    } else if ms <= 15.0 {
        ("good", "6-15 ms")
    } else if ms <= 100.0 {
        ("poor", "16-100 ms")
    } else {
        ("bad", "100-500 ms")
    }
}

/// The note and warning bounds as one range, `10-15 ms`.
fn between(thresholds: &[super::rules::Threshold]) -> String {
    let (low, high) = (bound_for(thresholds, Level::Note), bound_for(thresholds, Level::Warning));
    let (low, high) = (latency(low.unwrap_or_default()), latency(high.unwrap_or_default()));
    match (low.split_once(' '), high.split_once(' ')) {
        (Some((l, lu)), Some((_, hu))) if lu == hu => format!("{l}-{high}"),
        _ => format!("{low} to {high}"),
    }
}

/// `"very good" (2-5 ms) in Microsoft's latency assessment`.
fn assessed(ns: f64) -> String {
    let (word, range) = assessment(ns);
    format!("\"{word}\" ({range}) in Microsoft's latency assessment")
}

/// The shallowest point's mean latency against Microsoft's guidance: a page the cache does not
/// hold costs a query this much.
pub(crate) fn page_read_latency(c: &Check) -> Option<Judgement> {
    let curve = c.dir.page_reads.as_ref()?;
    let first = curve.points.first().filter(|p| p.latency_mean_ns.is_finite() && p.latency_mean_ns >= 0.0)?;
    let level = level_of(c.thresholds, first.latency_mean_ns);
    let took = latency(first.latency_mean_ns);
    let most = latency(bound_for(c.thresholds, Level::Note).unwrap_or_default());
    let bottleneck = latency(bound_for(c.thresholds, Level::Warning).unwrap_or_default());
    let pages = format_size(curve.block);
    let at = at_depth(&first.value);
    let stay = format!("the {} Microsoft says I/O waits should generally stay below", between(c.thresholds));
    let text = match level {
        Level::Ok => format!("{pages} page reads take {took} {at}: {}", assessed(first.latency_mean_ns)),
        Level::Note => format!("{pages} page reads take {took} {at}: within {stay}"),
        _ => format!("{pages} page reads take {took} {at}: beyond {stay}, {}", assessed(first.latency_mean_ns)),
    };
    Some(Judgement {
        level,
        text,
        figure: took,
        threshold: Some(format!("at most {most}; above {bottleneck} a bottleneck")),
        advice: (level > Level::Ok).then(|| {
            "Every page the cache does not hold costs a query this long: give the cache more memory, or put the \
             data files on faster storage"
                .into()
        }),
    })
}

/// `IOPS at 8 outstanding`, for the points a sentence names.
fn iops_at(p: &CurvePoint) -> String {
    format!("{} IOPS at {} outstanding", rate(p.iops), p.value)
}

/// Where more outstanding reads stop buying throughput (the sweep's knee), or that they never
/// did within the depths tried; said as sure as the runs behind it are.
pub(crate) fn page_read_knee(c: &Check) -> Option<Judgement> {
    let curve = c.dir.page_reads.as_ref()?;
    let pages = format_size(curve.block);
    if curve.noisy {
        let fell = curve
            .dip
            .and_then(|d| Some((curve.points.get(d.high)?, curve.points.get(d.low)?, curve.points.get(d.rose)?)));
        let (text, figure) = match fell {
            Some((high, low, rose)) => (
                format!(
                    "{pages} page reads fell from {} to {} at {} and rose to {} at {}: too noisy to say where they \
                     stop scaling",
                    iops_at(high),
                    rate(low.iops),
                    low.value,
                    rate(rose.iops),
                    rose.value
                ),
                format!("{} to {} IOPS", rate(low.iops), rate(high.iops.max(rose.iops))),
            ),
            None => (
                format!(
                    "{pages} page reads fell by more than a quarter and rose again: too noisy to say where they stop scaling"
                ),
                "noisy".into(),
            ),
        };
        return Some(Judgement {
            level: Level::Note,
            text,
            figure,
            threshold: Some("a fall of more than 25% that rises again is noise, not the device".into()),
            advice: Some(format!("Check again when the storage is quiet, or {}", sweep_with_repeats(curve))),
        });
    }
    let threshold = Some("the depth past which throughput grows under 10% while latency grows".into());
    if let Some(cap) = super::cap::knee_at_cap(c, &pages) {
        return Some(Judgement { threshold, ..cap });
    }
    if let Some(close) = close_call_words(curve, &pages) {
        return Some(Judgement { level: Level::Ok, threshold, ..close });
    }
    let runs = curve.points.iter().map(|p| p.runs).min().unwrap_or(0);
    let (text, point) = match curve.knee.and_then(|i| curve.points.get(i)) {
        // One run a depth places a clear knee only roughly: the next sweep may name a neighbour.
        Some(p) if runs <= 1 => (
            format!(
                "{pages} page reads stop scaling at about {} outstanding ({} IOPS, one run a depth); beyond that \
                 latency grows for nothing",
                p.value,
                rate(p.iops)
            ),
            p,
        ),
        Some(p) => (
            format!(
                "{pages} page reads stop scaling at {} outstanding ({} IOPS, {runs} runs a depth); beyond that latency \
                 grows for nothing",
                p.value,
                rate(p.iops)
            ),
            p,
        ),
        None => {
            let last = curve.points.last()?;
            (
                format!(
                    "{pages} page reads still scale at {} outstanding ({} IOPS), the deepest tried",
                    last.value,
                    rate(last.iops)
                ),
                last,
            )
        }
    };
    Some(Judgement {
        level: Level::Ok,
        text,
        figure: format!("{} outstanding, {} IOPS", point.value, rate(point.iops)),
        threshold,
        advice: None,
    })
}

/// How to place a knee these runs cannot: the sweep with repeats, when the storage is quiet.
fn sweep_with_repeats(curve: &DepthCurve) -> String {
    format!(
        "sweep with repeats: spindle io --block {} --read 100 --random 100 --sweep depth={} --repeat 3",
        format_size(curve.block),
        curve.points.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join(",")
    )
}

/// A knee too close to call: where it may lie, what makes it close (a gain near the 10% line,
/// or a dip that shows how far one run a depth swings), and how to place it (the threshold is
/// the caller's).
fn close_call_words(curve: &DepthCurve, pages: &str) -> Option<Judgement> {
    let range = curve.knee_range?;
    let from = curve.points.get(range.from)?;
    let to = match range.to {
        Some(i) => Some(curve.points.get(i)?),
        None => None,
    };
    let later = &curve.points[range.from + 1..];
    let best = later.iter().max_by(|a, b| a.iops.total_cmp(&b.iops))?;
    let gain = (best.iops / from.iops - 1.0) * 100.0;
    let dip = curve
        .dip
        .and_then(|d| Some((d, curve.points.get(d.high)?, curve.points.get(d.low)?, curve.points.get(d.rose)?)));
    let (lead, why) = match dip {
        Some((d, high, low, rose)) => (
            format!(
                "{pages} page reads fell from {} to {} at {} and rose to {} at {}, so one run a depth swings by {:.0}% \
                 or more: they",
                iops_at(high),
                rate(low.iops),
                low.value,
                rate(rose.iops),
                rose.value,
                d.fall * 100.0
            ),
            "The curve fell and rose again, so these runs cannot place the knee",
        ),
        None => (
            format!("{pages} page reads"),
            "The deciding gain lies within 5 points of 10%, too close to place the knee from these runs",
        ),
    };
    let (text, figure) = match to {
        Some(to) => (
            format!(
                "{lead} stop scaling between {} and {} outstanding ({} to {} IOPS); beyond that latency grows for \
                 nothing",
                from.value,
                to.value,
                rate(from.iops),
                rate(to.iops)
            ),
            format!("{} to {} outstanding, {} to {} IOPS", from.value, to.value, rate(from.iops), rate(to.iops)),
        ),
        None if dip.is_some() => (
            format!(
                "{lead} stop scaling at {} outstanding or deeper, perhaps not within the depths tried ({} IOPS there, \
                 {} at best)",
                from.value,
                rate(from.iops),
                rate(best.iops)
            ),
            format!("{} outstanding or more, {} to {} IOPS", from.value, rate(from.iops), rate(best.iops)),
        ),
        None => (
            format!(
                "{lead} scale little past {} outstanding ({} IOPS; {} read {gain:.0}% more, close to the 10% line)",
                from.value,
                rate(from.iops),
                best.value
            ),
            format!("{} outstanding or more, {} to {} IOPS", from.value, rate(from.iops), rate(best.iops)),
        ),
    };
    Some(Judgement {
        level: Level::Ok,
        text,
        figure,
        threshold: None,
        advice: Some(format!("{why}; to place it, when the storage is quiet, {}", sweep_with_repeats(curve))),
    })
}

/// Commit latency (a write and a flush, one at a time): the mean in Microsoft's latency
/// assessment, and a p99 beyond its bottleneck bound earns at least a note.
pub(crate) fn commit_latency(c: &Check) -> Option<Judgement> {
    let m = c.dir.commits.as_ref().filter(|m| m.count > 0 && m.mean_ns.is_finite() && m.mean_ns >= 0.0)?;
    let bottleneck_ns = bound_for(c.thresholds, Level::Warning).unwrap_or(f64::INFINITY);
    let most = latency(bound_for(c.thresholds, Level::Note).unwrap_or_default());
    let bottleneck = latency(bottleneck_ns);
    let tail = if m.p99_ns as f64 > bottleneck_ns { Level::Note } else { Level::Ok };
    let level = level_of(c.thresholds, m.mean_ns).max(tail);
    let figure = format!("{} (p99 {})", latency(m.mean_ns), latency(m.p99_ns as f64));
    let log = log_name(c.guidance);
    let mut text = format!("Commits take {figure}: the mean is {}", assessed(m.mean_ns));
    // The commit rule's note starts at "very good"'s end, not at the 10-15 ms bound: only its
    // top is a bound of this rule.
    let stay = format!("{bottleneck}, the top of the 10-15 ms Microsoft says I/O waits should generally stay below");
    if m.mean_ns > bottleneck_ns {
        text.push_str(&format!(", beyond {stay}"));
    } else if tail > Level::Ok {
        text.push_str(&format!("; the p99 is beyond {stay}"));
    }
    Some(Judgement {
        level,
        text,
        figure,
        threshold: Some(format!("at most {most} (\"very good\"); above {bottleneck} a bottleneck")),
        advice: (level > Level::Ok).then(|| {
            format!(
                "Every commit waits this long: put the {log} on its own device, or on storage whose write cache \
                 survives power loss"
            )
        }),
    })
}

/// A large-transfer step reported with its figures. No source gives a latency bound for I/O a
/// benchmark queues on purpose (its latency is the queue it was given), so this is a note
/// against what the storage's maker specifies.
fn transfer(what: &str, t: &Transfer) -> Option<Judgement> {
    if !t.mb_per_sec.is_finite() || t.mb_per_sec < 0.0 {
        return None;
    }
    let figure = format!("{} ({} IOPS)", mb_per_sec(t.mb_per_sec), rate(t.iops));
    Some(Judgement {
        level: Level::Note,
        text: format!(
            "{what} of {} at {} outstanding: {figure}, {} each (p99 {})",
            format_size(t.block),
            t.outstanding,
            latency(t.latency_mean_ns),
            latency(t.latency_p99_ns as f64)
        ),
        figure,
        threshold: None,
        advice: Some("Compare with the throughput the storage's maker specifies for this size".into()),
    })
}

pub(crate) fn large_writes(c: &Check) -> Option<Judgement> {
    transfer("Checkpoint-like writes", c.dir.large_writes.as_ref()?)
}

pub(crate) fn large_reads(c: &Check) -> Option<Judgement> {
    transfer("Read-ahead-like reads", c.dir.large_reads.as_ref()?)
}

#[cfg(test)]
mod tests {
    use super::super::evidence::DirEvidence;
    use super::super::fixtures::{commits, curve, dir, judge, judge_for, level};
    use super::*;
    use crate::curve::KneeRange;

    fn reading(points: &[(&str, f64, f64)], knee: Option<usize>) -> DirEvidence {
        let mut d = dir();
        d.page_reads = Some(curve(points, knee));
        d
    }

    fn qd1(latency_ns: f64) -> DirEvidence {
        reading(&[("1", 1e9 / latency_ns, latency_ns)], None)
    }

    #[test]
    fn page_reads_one_at_a_time_are_held_against_microsofts_guidance() {
        let fast = judge("page-read-latency", &qd1(180_000.0)).unwrap();
        assert_eq!(fast.level, Level::Ok);
        assert_eq!(
            fast.text,
            "8KiB page reads take 180 µs one at a time: \"excellent\" (under 2 ms) in Microsoft's latency assessment"
        );
        assert!(!fast.basis.is_own());
        assert!(
            judge("page-read-latency", &qd1(7e6))
                .unwrap()
                .text
                .ends_with("\"good\" (6-15 ms) in Microsoft's latency assessment")
        );
        assert_eq!(level("page-read-latency", &qd1(10e6)), Some(Level::Ok));
        assert_eq!(level("page-read-latency", &qd1(10e6 + 1.0)), Some(Level::Note));
        assert_eq!(level("page-read-latency", &qd1(15e6)), Some(Level::Note));
        let slow = judge("page-read-latency", &qd1(25e6)).unwrap();
        assert_eq!(slow.level, Level::Warning);
        assert_eq!(
            slow.text,
            "8KiB page reads take 25 ms one at a time: beyond the 10-15 ms Microsoft says I/O waits should \
             generally stay below, \"poor\" (16-100 ms) in Microsoft's latency assessment"
        );
        assert!(slow.advice.is_some());
        assert_eq!(level("page-read-latency", &qd1(100e6 + 1.0)), Some(Level::Problem));
        assert_eq!(level("page-read-latency", &qd1(f64::NAN)), None);
        assert_eq!(level("page-read-latency", &reading(&[], None)), None);
        assert_eq!(level("page-read-latency", &dir()), None);
        let deeper = judge("page-read-latency", &reading(&[("4", 1e4, 400_000.0)], None)).unwrap();
        assert!(deeper.text.contains("400 µs at 4 outstanding"), "{}", deeper.text);
    }

    /// The quick check's noisy table: the fall was 8 -> 16, and 32 rose past it.
    const NOISY: [(&str, f64, f64); 6] = [
        ("1", 5_814.0, 1e5),
        ("2", 7_119.0, 2e5),
        ("4", 23_322.0, 3e5),
        ("8", 39_109.0, 4e5),
        ("16", 26_243.0, 5e5),
        ("32", 40_035.0, 6e5),
    ];

    #[test]
    fn a_noisy_curve_names_no_knee_and_says_where_it_fell() {
        let mut d = reading(&NOISY, None);
        let c = d.page_reads.as_mut().unwrap();
        c.noisy = true;
        c.dip = crate::curve::noise(&c.points);
        let j = judge("page-read-knee", &d).unwrap();
        assert_eq!(j.level, Level::Note);
        assert_eq!(
            j.text,
            "8KiB page reads fell from 39k IOPS at 8 outstanding to 26k at 16 and rose to 40k at 32: too noisy to \
             say where they stop scaling"
        );
        assert!(j.advice.unwrap().contains("--repeat 3"));
        assert!(j.basis.is_own());
    }

    #[test]
    fn the_knee_says_where_page_reads_stop_scaling_and_how_sure_one_run_a_depth_is() {
        let points = [("1", 6_000.0, 160e3), ("8", 40_000.0, 200e3), ("32", 49_100.0, 650e3), ("64", 50_000.0, 1.3e6)];
        let knee = judge("page-read-knee", &reading(&points, Some(2))).unwrap();
        assert_eq!(knee.level, Level::Ok);
        assert_eq!(
            knee.text,
            "8KiB page reads stop scaling at about 32 outstanding (49k IOPS, one run a depth); beyond that latency \
             grows for nothing"
        );
        let mut repeated = reading(&points, Some(2));
        repeated.page_reads.as_mut().unwrap().points.iter_mut().for_each(|p| p.runs = 3);
        let sure = judge("page-read-knee", &repeated).unwrap();
        assert!(sure.text.starts_with("8KiB page reads stop scaling at 32 outstanding (49k IOPS, 3 runs a depth)"));
        let climbing = judge("page-read-knee", &reading(&points, None)).unwrap();
        assert!(climbing.text.contains("still scale at 64 outstanding (50k IOPS)"), "{}", climbing.text);
        // A knee past the end of the curve is no knee; an empty curve says nothing.
        assert!(judge("page-read-knee", &reading(&points, Some(9))).unwrap().text.contains("still scale"));
        assert_eq!(level("page-read-knee", &reading(&[], Some(0))), None);
    }

    #[test]
    fn a_knee_too_close_to_call_says_where_it_may_lie() {
        let points =
            [("8", 20_000.0, 400e3), ("16", 40_000.0, 400e3), ("32", 49_100.0, 650e3), ("64", 55_000.0, 1.3e6)];
        let mut d = reading(&points, None);
        d.page_reads.as_mut().unwrap().knee_range = Some(KneeRange { from: 2, to: None });
        let j = judge("page-read-knee", &d).unwrap();
        assert_eq!(j.level, Level::Ok);
        assert_eq!(
            j.text,
            "8KiB page reads scale little past 32 outstanding (49k IOPS; 64 read 12% more, close to the 10% line)"
        );
        assert!(j.advice.unwrap().contains("--sweep depth=8,16,32,64 --repeat 3"));
        assert!(j.threshold.unwrap().contains("under 10%"));
        let mut d = reading(&points, Some(2));
        d.page_reads.as_mut().unwrap().knee_range = Some(KneeRange { from: 1, to: Some(2) });
        let j = judge("page-read-knee", &d).unwrap();
        assert!(j.text.starts_with("8KiB page reads stop scaling between 16 and 32 outstanding (40k to 49k IOPS)"));
        // A range that points past the curve says nothing wrong: it falls back to the knee.
        d.page_reads.as_mut().unwrap().knee_range = Some(KneeRange { from: 7, to: None });
        assert!(judge("page-read-knee", &d).unwrap().text.contains("stop scaling at about 32 outstanding"));
    }

    #[test]
    fn a_dip_that_rises_again_is_named_and_no_knee_is_placed_inside_it() {
        // 100, 200, 160, 224 MB/s of 8 KiB pages (12,207, 24,414, 19,531, 27,344 IOPS).
        let iops = |mb: f64| mb * 1e6 / 8192.0;
        let points =
            [("1", iops(100.0), 1e5), ("2", iops(200.0), 2e5), ("4", iops(160.0), 3e5), ("8", iops(224.0), 4e5)];
        let mut d = reading(&points, None);
        let c = d.page_reads.as_mut().unwrap();
        (c.knee_range, c.dip) = (crate::curve::close_call(&c.points), crate::curve::dip(&c.points));
        let j = judge("page-read-knee", &d).unwrap();
        assert_eq!(
            j.text,
            "8KiB page reads fell from 24k IOPS at 2 outstanding to 20k at 4 and rose to 27k at 8, so one run a \
             depth swings by 20% or more: they stop scaling at 2 outstanding or deeper, perhaps not within the \
             depths tried (24k IOPS there, 27k at best)"
        );
        assert!(j.advice.unwrap().starts_with("The curve fell and rose again"));
    }

    fn committing(mean_ns: f64, p99_ns: u64) -> DirEvidence {
        let mut d = dir();
        d.commits = Some(commits(mean_ns, p99_ns, 100_000));
        d
    }

    #[test]
    fn commits_are_placed_in_microsofts_assessment_mean_and_tail() {
        let quick = judge("commit-latency", &committing(180_000.0, 450_000)).unwrap();
        assert_eq!(quick.level, Level::Ok);
        assert_eq!(
            quick.text,
            "Commits take 180 µs (p99 450 µs): the mean is \"excellent\" (under 2 ms) in Microsoft's latency assessment"
        );
        // The assessment rates 6-15 ms "good": a note says so, and never that the log wants less.
        let good = judge("commit-latency", &committing(7e6, 9_000_000)).unwrap();
        assert_eq!(good.level, Level::Note);
        assert_eq!(
            good.text,
            "Commits take 7 ms (p99 9 ms): the mean is \"good\" (6-15 ms) in Microsoft's latency assessment"
        );
        assert_eq!(level("commit-latency", &committing(5e6, 9_000_000)), Some(Level::Ok));
        assert_eq!(level("commit-latency", &committing(5e6 + 1.0, 9_000_000)), Some(Level::Note));
        // A quick mean with a tail past the bottleneck bound: a note; at the bound: none.
        assert_eq!(level("commit-latency", &committing(1e6, 15_000_000)), Some(Level::Ok));
        let tail = judge("commit-latency", &committing(1e6, 15_000_001)).unwrap();
        assert_eq!(tail.level, Level::Note);
        assert!(
            tail.text.ends_with("; the p99 is beyond 15 ms, the top of the 10-15 ms Microsoft says I/O waits should generally stay below"),
            "{}",
            tail.text
        );
        let slow = judge("commit-latency", &committing(20e6, 40_000_000)).unwrap();
        assert_eq!(slow.level, Level::Warning);
        assert!(slow.text.contains("\"poor\" (16-100 ms)"), "{}", slow.text);
        assert_eq!(level("commit-latency", &committing(150e6, 400_000_000)), Some(Level::Problem));
        assert_eq!(level("commit-latency", &committing(f64::NAN, 0)), None);
        let mut none = committing(1e6, 2_000_000);
        none.commits.as_mut().unwrap().count = 0;
        assert_eq!(level("commit-latency", &none), None);
        let wal = judge_for("commit-latency", &committing(7e6, 12_000_000), Guidance::Postgres).unwrap();
        assert!(wal.advice.unwrap().contains("put the WAL on its own device"));
    }

    fn transfer(mb: f64) -> Transfer {
        Transfer {
            block: 256 << 10,
            outstanding: 8,
            mb_per_sec: mb,
            iops: mb * 1e6 / (256 << 10) as f64,
            latency_mean_ns: 4.2e6,
            latency_p99_ns: 9_000_000,
        }
    }

    #[test]
    fn large_transfers_are_notes_with_their_figures_and_no_invented_bound() {
        let mut d = dir();
        d.large_writes = Some(transfer(480.0));
        d.large_reads = Some(transfer(f64::NAN));
        let writes = judge("large-writes", &d).unwrap();
        assert_eq!((writes.level, writes.threshold.as_deref()), (Level::Note, None));
        assert_eq!(
            writes.text,
            "Checkpoint-like writes of 256KiB at 8 outstanding: 480 MB/s (1,831 IOPS), 4.2 ms each (p99 9 ms)"
        );
        assert_eq!(level("large-reads", &d), None);
        d.large_reads = Some(transfer(95.0));
        assert!(judge("large-reads", &d).unwrap().text.starts_with("Read-ahead-like reads of 256KiB"));
        assert_eq!(level("large-writes", &dir()), None);
    }
}
