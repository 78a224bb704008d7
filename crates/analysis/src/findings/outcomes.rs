//! Judges of the log test and the verification pass.

use super::Level;
use super::evidence::Guidance;
use super::figures::{mb_per_sec, rate};
use super::measured::log_name;
use super::rules::{Check, Judgement, level_of};
use spindle_model::units::{format_bytes_approx, grouped};

/// The transaction size where the log's throughput levels off ("Transaction Log Performance"),
/// or that it was still rising at the largest size tried.
pub(crate) fn log_optimum(c: &Check) -> Option<Judgement> {
    let log = c.dir.log.as_ref()?;
    let rows = |n: u64| if n == 1 { "1 row".to_string() } else { format!("{} rows", grouped(n)) };
    let speed = |n: u64| {
        let p = log.points.iter().find(|p| p.transaction_size == n)?;
        Some(match p.mb_per_sec {
            Some(mb) => format!(" ({}, {} rows/s)", mb_per_sec(mb), rate(p.rows_per_sec)),
            None => format!(" ({} rows/s)", rate(p.rows_per_sec)),
        })
    };
    let threshold = Some("the smallest size within 10% of the best log throughput".into());
    if let Some(n) = log.optimum {
        return Some(Judgement {
            level: Level::Note,
            text: format!(
                "The log's throughput levels off at {} per transaction{}",
                rows(n),
                speed(n).unwrap_or_default()
            ),
            figure: format!("{} per transaction", rows(n)),
            threshold,
            advice: Some("Batch writes in transactions of about this size where the application allows".into()),
        });
    }
    let n = log.still_rising?;
    Some(Judgement {
        level: Level::Note,
        text: format!(
            "The log's throughput was still rising at {} per transaction{}, the largest tried: no size has levelled \
             off yet",
            rows(n),
            speed(n).unwrap_or_default()
        ),
        figure: format!("still rising at {} per transaction", rows(n)),
        threshold,
        advice: Some(format!(
            "Try larger transactions to find where it levels off: spindle logtest --batch {n},{}",
            n.saturating_mul(10)
        )),
    })
}

/// How many one-row transactions the engine commits a second: each waits for its own flush.
pub(crate) fn log_single_row(c: &Check) -> Option<Judgement> {
    let log = c.dir.log.as_ref()?;
    let one = log.points.iter().find(|p| p.transaction_size == 1 && p.commits_per_sec.is_finite())?;
    let engine = if log.engine.is_empty() { "the engine" } else { log.engine.as_str() };
    let advice = match c.guidance {
        Guidance::Postgres => "Group single-row writes in one transaction (autocommit off, one COMMIT at the end)",
        Guidance::Mysql => {
            "Group single-row writes in one transaction; innodb_flush_log_at_trx_commit=1 flushes at each commit"
        }
        Guidance::SqlServer | Guidance::Generic => {
            "Group single-row writes in bigger transactions: each commit is a log flush"
        }
    };
    Some(Judgement {
        level: Level::Note,
        text: format!(
            "One-row transactions commit {} times a second on {engine}, each waiting for its {} flush",
            rate(one.commits_per_sec),
            log_name(c.guidance)
        ),
        figure: format!("{} commits/s", rate(one.commits_per_sec)),
        threshold: None,
        advice: Some(advice.into()),
    })
}

/// Any fault read back is a problem, named by its first examples; none is an `Ok`.
pub(crate) fn verify(c: &Check) -> Option<Judgement> {
    let v = c.dir.verify.as_ref()?;
    if v.bytes_checked == 0 && v.faults == 0 {
        return None;
    }
    let checked = format_bytes_approx(v.bytes_checked);
    let level = level_of(c.thresholds, v.faults as f64);
    if level == Level::Ok {
        return Some(Judgement {
            level,
            text: format!("Verification read back {checked}: every block as written"),
            figure: "0 faults".into(),
            threshold: Some("no faults".into()),
            advice: None,
        });
    }
    let examples: Vec<&str> = v.examples.iter().take(3).map(String::as_str).collect();
    let named = if examples.is_empty() { String::new() } else { format!(": {}", examples.join("; ")) };
    let faults = if v.faults == 1 { "1 fault".to_string() } else { format!("{} faults", grouped(v.faults)) };
    Some(Judgement {
        level,
        text: format!("Verification found {faults} in {checked} read back{named}"),
        figure: faults,
        threshold: Some("no faults".into()),
        advice: Some(
            "Do not trust this storage with a database: look for a cache that loses writes, a failing device, or a \
             driver fault, then verify again"
                .into(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::super::evidence::{DirEvidence, LogCurve, LogPoint, VerifyOutcome};
    use super::super::fixtures::{dir, judge, judge_for, level};
    use super::*;

    fn logged(sizes: &[(u64, f64)], optimum: Option<u64>) -> DirEvidence {
        let mut d = dir();
        d.log = Some(LogCurve {
            engine: "sqlite".into(),
            points: sizes
                .iter()
                .map(|&(size, mb)| LogPoint {
                    transaction_size: size,
                    rows_per_sec: mb * 250.0,
                    commits_per_sec: mb * 250.0 / size as f64,
                    mb_per_sec: Some(mb),
                })
                .collect(),
            optimum,
            still_rising: None,
        });
        d
    }

    const SIZES: [(u64, f64); 4] = [(1, 1.8), (10, 14.0), (100, 52.0), (1000, 53.0)];

    #[test]
    fn the_log_levels_off_at_its_optimum_or_still_climbs() {
        let optimum = judge("log-optimum", &logged(&SIZES, Some(100))).unwrap();
        assert_eq!(optimum.level, Level::Note);
        assert_eq!(optimum.text, "The log's throughput levels off at 100 rows per transaction (52 MB/s, 13k rows/s)");
        assert!(judge("log-optimum", &logged(&SIZES, Some(1))).unwrap().text.contains("at 1 row per transaction"));
        // The quick check's log test on this VM: 15.4, 23.0, 78.2 MB/s at 1, 10, 100 rows.
        let mut quick = logged(&[(1, 15.4), (10, 23.0), (100, 78.2)], None);
        quick.log.as_mut().unwrap().still_rising = Some(100);
        let climbing = judge("log-optimum", &quick).unwrap();
        assert_eq!(
            climbing.text,
            "The log's throughput was still rising at 100 rows per transaction (78 MB/s, 20k rows/s), the largest \
             tried: no size has levelled off yet"
        );
        assert!(climbing.advice.unwrap().ends_with("spindle logtest --batch 100,1000"));
        assert!(climbing.basis.is_own());
        // Neither an optimum nor a rise (one size ran to the end): nothing to say.
        assert_eq!(level("log-optimum", &logged(&SIZES, None)), None);
        assert_eq!(level("log-optimum", &logged(&[], None)), None);
        assert_eq!(level("log-optimum", &dir()), None);
    }

    #[test]
    fn one_row_transactions_say_how_many_commits_a_second_the_log_takes() {
        let one = judge_for("log-single-row", &logged(&SIZES, Some(100)), Guidance::Mysql).unwrap();
        assert_eq!(one.level, Level::Note);
        assert_eq!(
            one.text,
            "One-row transactions commit 450 times a second on sqlite, each waiting for its redo log flush"
        );
        assert!(one.advice.unwrap().contains("innodb_flush_log_at_trx_commit"));
        assert_eq!(level("log-single-row", &logged(&SIZES[1..], Some(100))), None);
        assert_eq!(level("log-single-row", &logged(&[(1, f64::NAN)], None)), None);
    }

    fn verified(faults: u64, examples: &[&str]) -> DirEvidence {
        let mut d = dir();
        d.verify = Some(VerifyOutcome {
            bytes_checked: 64 << 20,
            faults,
            examples: examples.iter().map(|e| e.to_string()).collect(),
        });
        d
    }

    #[test]
    fn any_fault_is_a_problem_named_by_its_first_examples() {
        let bad = judge("verify", &verified(5, &["torn at 4096", "stale at 8192", "lost at 12288", "lost at 16384"]))
            .unwrap();
        assert_eq!(bad.level, Level::Problem);
        assert_eq!(
            bad.text,
            "Verification found 5 faults in 64.0 MiB read back: torn at 4096; stale at 8192; lost at 12288"
        );
        let one = judge("verify", &verified(1, &[])).unwrap();
        assert_eq!(
            (one.level, one.text.as_str()),
            (Level::Problem, "Verification found 1 fault in 64.0 MiB read back")
        );
        let good = judge("verify", &verified(0, &[])).unwrap();
        assert_eq!(
            (good.level, good.text.as_str()),
            (Level::Ok, "Verification read back 64.0 MiB: every block as written")
        );
        let mut nothing = verified(0, &[]);
        nothing.verify.as_mut().unwrap().bytes_checked = 0;
        assert_eq!(level("verify", &nothing), None);
    }
}
