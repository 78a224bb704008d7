//! What a check's figures mean, in plain words: each rule holds one figure against a threshold
//! and says what to do. The rules live in one table (`rules.rs`), each with what its threshold
//! rests on: a published document, or a rule of spindle's own with the measurement behind it.

mod basis;
pub mod cap;
pub mod durability;
mod environment;
pub mod evidence;
pub mod expected;
mod figures;
#[cfg(test)]
mod fixtures;
pub mod flush_hints;
pub mod load;
mod measured;
mod outcomes;
pub mod over_time;
pub mod page_cache;
pub mod placement;
pub mod rules;
pub mod since;
mod sources;
pub mod sustained;

pub use basis::Basis;
pub use evidence::*;
use serde::Serialize;

/// How much a finding matters. Ordered: a problem outranks a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Measured and within the guidance.
    Ok,
    /// Worth knowing; nothing to fix.
    Note,
    /// Likely to hurt a database; worth fixing.
    Warning,
    /// Will hurt a database or lose its data; fix before trusting this storage.
    Problem,
}

/// The part of the check a finding belongs to; the summary gives each area one verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Area {
    Environment,
    PageReads,
    Commits,
    LargeWrites,
    LargeReads,
    Log,
    Verify,
}

/// A published document a threshold comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    pub title: &'static str,
    pub publisher: &'static str,
    pub url: &'static str,
}

/// One conclusion about one directory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// The directory it is about (`DirEvidence::dir`).
    pub dir: String,
    pub area: Area,
    pub level: Level,
    /// The rule's stable name (`commit-latency`), for `--json` readers and tests.
    pub rule: &'static str,
    /// The finding in plain words, with its figure: "Commits take 3.9 ms (p99 12 ms); a busy
    /// OLTP log wants 1-5 ms".
    pub text: String,
    /// The figure judged, as shown (`3.9 ms`).
    pub figure: String,
    /// What it was held against (`at most 5 ms`), when a threshold applies.
    pub threshold: Option<String>,
    /// What the threshold (or the fact's consequence) rests on: `basis` `published` with its
    /// `source` and what it `says`, or `own` with `how` it was set.
    #[serde(flatten)]
    pub basis: Basis,
    /// What to do about it.
    pub advice: Option<String>,
}

/// Every rule's finding about every directory: the worst first, then by directory (in the
/// order the check was given them) and area; within an area, in the table's order.
pub fn findings(evidence: &Evidence) -> Vec<Finding> {
    let mut found: Vec<(usize, Finding)> = evidence
        .dirs
        .iter()
        .enumerate()
        .flat_map(|(i, dir)| rules::RULES.iter().filter_map(move |rule| Some((i, rule.apply(dir, evidence.guidance)?))))
        .collect();
    // Stable, so the table's order survives among equals.
    found.sort_by(|(ia, a), (ib, b)| b.level.cmp(&a.level).then(ia.cmp(ib)).then(a.area.cmp(&b.area)));
    found.into_iter().map(|(_, f)| f).collect()
}

/// One verdict per area that has a finding: the worst level among them. An area with no
/// finding was not measured and gets no verdict.
pub fn verdicts(findings: &[Finding]) -> Vec<(Area, Level)> {
    let mut worst: Vec<(Area, Level)> = Vec::new();
    for f in findings {
        match worst.iter_mut().find(|(area, _)| *area == f.area) {
            Some((_, level)) => *level = (*level).max(f.level),
            None => worst.push((f.area, f.level)),
        }
    }
    worst.sort_by_key(|(area, _)| *area);
    worst
}

#[cfg(test)]
mod tests {
    use super::fixtures::{commits, curve, dir};
    use super::*;

    fn finding(dir: &str, area: Area, level: Level) -> Finding {
        Finding {
            dir: dir.into(),
            area,
            level,
            rule: "test",
            text: String::new(),
            figure: String::new(),
            threshold: None,
            basis: Basis::Own { how: "a test's", after: None },
            advice: None,
        }
    }

    #[test]
    fn verdicts_give_each_measured_area_its_worst_level() {
        let found = [
            finding("/data", Area::Commits, Level::Ok),
            finding("/log", Area::Commits, Level::Warning),
            finding("/data", Area::Environment, Level::Note),
            finding("/data", Area::Environment, Level::Ok),
            finding("/data", Area::Verify, Level::Ok),
            finding("/log", Area::Commits, Level::Note),
        ];
        assert_eq!(
            verdicts(&found),
            [(Area::Environment, Level::Note), (Area::Commits, Level::Warning), (Area::Verify, Level::Ok)]
        );
        assert!(verdicts(&[]).is_empty());
    }

    #[test]
    fn findings_come_worst_first_then_by_directory_and_area() {
        let mut data = dir();
        data.commits = Some(commits(20e6, 40_000_000, 5_000_000));
        data.page_reads = Some(curve(&[("1", 5_000.0, 200_000.0)], None));
        let mut log = dir();
        log.dir = "/log".into();
        log.device.filesystem = Some("tmpfs".into());
        let found = findings(&Evidence { guidance: Guidance::Generic, dirs: vec![data, log] });
        let order: Vec<(Level, &str, &str)> = found.iter().map(|f| (f.level, f.dir.as_str(), f.rule)).collect();
        assert_eq!(
            order,
            [
                (Level::Problem, "/log", "memory-filesystem"),
                (Level::Warning, "/data", "commit-latency"),
                (Level::Ok, "/data", "memory-filesystem"),
                (Level::Ok, "/data", "volatile-write-cache"),
                (Level::Ok, "/data", "page-read-latency"),
                (Level::Ok, "/data", "page-read-knee"),
            ]
        );
        assert!(found.iter().all(|f| f.basis.document().is_some_and(|s| s.url.starts_with("https://"))));
        assert_eq!(
            verdicts(&found),
            [(Area::Environment, Level::Problem), (Area::PageReads, Level::Ok), (Area::Commits, Level::Warning)]
        );
    }

    #[test]
    fn no_input_makes_a_rule_panic() {
        let mut odd = dir();
        odd.device = Default::default();
        odd.free_bytes = Some(u64::MAX);
        odd.filesystem_bytes = Some(1);
        odd.partition_start_bytes = Some(u64::MAX);
        odd.commits = Some(Commits {
            write_bytes: 0,
            count: 1,
            per_sec: f64::NAN,
            mean_ns: f64::INFINITY,
            p99_ns: u64::MAX,
            flush_median_ns: 0,
            flush_p99_ns: 0,
        });
        odd.page_reads = Some(curve(&[("", f64::NAN, f64::NAN)], Some(usize::MAX)));
        odd.large_writes = Some(Transfer {
            block: 0,
            outstanding: 0,
            mb_per_sec: 0.0,
            iops: f64::NAN,
            latency_mean_ns: f64::NEG_INFINITY,
            latency_p99_ns: 0,
        });
        odd.log = Some(LogCurve { engine: String::new(), points: vec![], optimum: Some(0), still_rising: Some(0) });
        odd.verify = Some(VerifyOutcome { bytes_checked: 0, faults: u64::MAX, examples: vec![] });
        for guidance in [Guidance::Generic, Guidance::SqlServer, Guidance::Postgres, Guidance::Mysql] {
            let found = findings(&Evidence { guidance, dirs: vec![odd.clone(), DirEvidence::default()] });
            assert!(found.iter().any(|f| f.rule == "verify" && f.level == Level::Problem));
        }
        assert!(findings(&Evidence { guidance: Guidance::Generic, dirs: vec![] }).is_empty());
    }
}
