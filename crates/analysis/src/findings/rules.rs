//! The one table of rules: each with its stable name, its area, the thresholds it holds a
//! figure against and the document they come from. docs/guidance.md is this table in words;
//! the judges (environment.rs, measured.rs, outcomes.rs) read their thresholds from here.

use super::durability::{SPINNING_DISK_FLOOR_NS, VOLATILE_SSD_FLOOR_NS};
use super::evidence::{DirEvidence, Guidance};
use super::sources::*;
use super::{Area, Finding, Level, Source, environment, measured, outcomes};

/// One rule of the check.
pub struct Rule {
    /// Stable name (`Finding::rule`).
    pub name: &'static str,
    pub area: Area,
    /// What the figure is held against, mildest first; empty for a rule that judges a fact
    /// (a filesystem, a mount option) or reports a figure no source gives a bound for.
    pub thresholds: &'static [Threshold],
    /// The document behind the thresholds (or behind the fact's consequence), per guidance.
    pub source: fn(Guidance) -> Source,
    pub(crate) judge: fn(&Check) -> Option<Judgement>,
}

/// A bound and the level a figure beyond it earns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threshold {
    pub level: Level,
    pub bound: Bound,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// Crossed by a figure strictly above the value: the value itself is within guidance.
    Above(f64),
    /// Crossed by a figure strictly below the value.
    Below(f64),
    /// Crossed by a figure that is not a multiple of the value.
    NotMultipleOf(u64),
}

impl Bound {
    fn crossed_by(self, figure: f64) -> bool {
        match self {
            Bound::Above(value) => figure > value,
            Bound::Below(value) => figure < value,
            // A figure that is no byte count at all crosses nothing: no finding beats a false one.
            Bound::NotMultipleOf(step) => {
                figure.is_finite() && figure >= 0.0 && step > 0 && (figure as u64) % step != 0
            }
        }
    }
}

/// The worst level among the thresholds `figure` crosses; `Ok` when it crosses none (NaN
/// crosses none, as every comparison with it is false).
pub fn level_of(thresholds: &[Threshold], figure: f64) -> Level {
    thresholds.iter().filter(|t| t.bound.crossed_by(figure)).map(|t| t.level).max().unwrap_or(Level::Ok)
}

/// The value of the threshold that earns `level`, for wording ("at most 5 ms").
pub(crate) fn bound_for(thresholds: &[Threshold], level: Level) -> Option<f64> {
    thresholds.iter().find(|t| t.level == level).map(|t| match t.bound {
        Bound::Above(v) | Bound::Below(v) => v,
        Bound::NotMultipleOf(step) => step as f64,
    })
}

/// What a judge sees: one directory, the guidance chosen, and its rule's thresholds.
pub(crate) struct Check<'a> {
    pub dir: &'a DirEvidence,
    pub guidance: Guidance,
    pub thresholds: &'a [Threshold],
}

/// A judge's conclusion; the rule adds the directory, area, name and source.
#[derive(Debug)]
pub(crate) struct Judgement {
    pub level: Level,
    pub text: String,
    pub figure: String,
    pub threshold: Option<String>,
    pub advice: Option<String>,
}

impl Rule {
    /// This rule's finding about one directory, if it has one.
    pub fn apply(&self, dir: &DirEvidence, guidance: Guidance) -> Option<Finding> {
        let j = (self.judge)(&Check { dir, guidance, thresholds: self.thresholds })?;
        Some(Finding {
            dir: dir.dir.clone(),
            area: self.area,
            level: j.level,
            rule: self.name,
            text: j.text,
            figure: j.figure,
            threshold: j.threshold,
            source: Some((self.source)(guidance)),
            advice: j.advice,
        })
    }
}

const MS: u64 = 1_000_000;

/// Microsoft's latency assessment, for data-file reads: below the 10-15 ms bound is fine,
/// inside it worth a note, "poor" above 15 ms and "bad" above 100 ms.
pub const DATA_READ_LATENCY: &[Threshold] = &[
    Threshold { level: Level::Note, bound: Bound::Above((10 * MS) as f64) },
    Threshold { level: Level::Warning, bound: Bound::Above((15 * MS) as f64) },
    Threshold { level: Level::Problem, bound: Bound::Above((100 * MS) as f64) },
];

/// The same assessment for the log, where every commit waits: "very good" ends at 5 ms.
pub const COMMIT_LATENCY: &[Threshold] = &[
    Threshold { level: Level::Note, bound: Bound::Above((5 * MS) as f64) },
    Threshold { level: Level::Warning, bound: Bound::Above((15 * MS) as f64) },
    Threshold { level: Level::Problem, bound: Bound::Above((100 * MS) as f64) },
];

/// The rules, in the order a report reads them within an area.
pub static RULES: &[Rule] = &[
    Rule {
        name: "memory-filesystem",
        area: Area::Environment,
        thresholds: &[],
        source: |_| KERNEL_TMPFS,
        judge: environment::memory_filesystem,
    },
    Rule {
        name: "overlay-filesystem",
        area: Area::Environment,
        thresholds: &[],
        source: |_| DOCKER_STORAGE_DRIVERS,
        judge: environment::overlay_filesystem,
    },
    Rule {
        name: "loop-device",
        area: Area::Environment,
        thresholds: &[],
        source: |g| if g == Guidance::Mysql { MARIADB_FLUSH_METHOD } else { LOSETUP },
        judge: environment::loop_device,
    },
    Rule {
        name: "mount-options",
        area: Area::Environment,
        thresholds: &[],
        source: |_| KERNEL_EXT4,
        judge: environment::mount_options,
    },
    Rule {
        name: "volatile-write-cache",
        area: Area::Environment,
        // Which floor applies depends on the device class (durability::fast_flush).
        thresholds: &[
            Threshold { level: Level::Note, bound: Bound::Below(VOLATILE_SSD_FLOOR_NS as f64) },
            Threshold { level: Level::Warning, bound: Bound::Below(SPINNING_DISK_FLOOR_NS as f64) },
        ],
        source: durability_source,
        judge: environment::volatile_write_cache,
    },
    Rule {
        name: "partition-alignment",
        area: Area::Environment,
        thresholds: &[
            Threshold { level: Level::Note, bound: Bound::NotMultipleOf(1 << 20) },
            Threshold { level: Level::Warning, bound: Bound::NotMultipleOf(4096) },
        ],
        source: |_| LIBFDISK_ALIGNMENT,
        judge: environment::partition_alignment,
    },
    Rule {
        name: "free-space",
        area: Area::Environment,
        // Shares of the filesystem free: Zabbix's 80% and 90% used.
        thresholds: &[
            Threshold { level: Level::Note, bound: Bound::Below(0.20) },
            Threshold { level: Level::Warning, bound: Bound::Below(0.10) },
        ],
        source: |_| ZABBIX_LINUX,
        judge: environment::free_space,
    },
    Rule {
        name: "virtual-disk",
        area: Area::Environment,
        thresholds: &[],
        source: |_| HAMMER,
        judge: environment::virtual_disk,
    },
    Rule {
        name: "page-read-latency",
        area: Area::PageReads,
        thresholds: DATA_READ_LATENCY,
        source: |_| MS_SLOW_IO,
        judge: measured::page_read_latency,
    },
    Rule {
        name: "page-read-knee",
        area: Area::PageReads,
        thresholds: &[],
        source: |_| HAMMER,
        judge: measured::page_read_knee,
    },
    Rule {
        name: "commit-latency",
        area: Area::Commits,
        thresholds: COMMIT_LATENCY,
        source: |_| MS_SLOW_IO,
        judge: measured::commit_latency,
    },
    Rule {
        name: "large-writes",
        area: Area::LargeWrites,
        thresholds: &[],
        source: |_| MS_SLOW_IO,
        judge: measured::large_writes,
    },
    Rule {
        name: "large-reads",
        area: Area::LargeReads,
        thresholds: &[],
        source: |_| MS_SLOW_IO,
        judge: measured::large_reads,
    },
    Rule {
        name: "log-optimum",
        area: Area::Log,
        thresholds: &[],
        source: |_| LOG_PERFORMANCE,
        judge: outcomes::log_optimum,
    },
    Rule {
        name: "log-single-row",
        area: Area::Log,
        thresholds: &[],
        source: |g| match g {
            Guidance::SqlServer => MS_SLOW_IO,
            Guidance::Postgres => PG_POPULATE,
            Guidance::Mysql => MARIADB_FLUSH_LOG,
            Guidance::Generic => LOG_PERFORMANCE,
        },
        judge: outcomes::log_single_row,
    },
    Rule {
        name: "verify",
        area: Area::Verify,
        thresholds: &[Threshold { level: Level::Problem, bound: Bound::Above(0.0) }],
        source: durability_source,
        judge: outcomes::verify,
    },
];

/// Whose words say that a cache must survive power loss and a commit must reach stable media.
/// Generic cites PostgreSQL's, the most explicit about write caches and how to turn them off.
fn durability_source(guidance: Guidance) -> Source {
    match guidance {
        Guidance::SqlServer => MS_LOGGING_RELIABILITY,
        Guidance::Mysql => MARIADB_FLUSH_LOG,
        Guidance::Postgres | Guidance::Generic => PG_RELIABILITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUIDANCES: [Guidance; 4] = [Guidance::Generic, Guidance::SqlServer, Guidance::Postgres, Guidance::Mysql];

    #[test]
    fn every_rule_cites_a_document_with_an_https_address_under_every_guidance() {
        for rule in RULES {
            for g in GUIDANCES {
                let s = (rule.source)(g);
                assert!(!s.title.is_empty() && !s.publisher.is_empty(), "{} under {g:?}", rule.name);
                assert!(s.url.starts_with("https://") && s.url.len() > "https://".len(), "{}: {}", rule.name, s.url);
            }
        }
    }

    #[test]
    fn every_rule_and_source_is_in_docs_guidance() {
        let doc = include_str!("../../../../docs/guidance.md");
        for rule in RULES {
            assert!(doc.contains(&format!("`{}`", rule.name)), "docs/guidance.md lacks rule {}", rule.name);
            for g in GUIDANCES {
                let s = (rule.source)(g);
                assert!(doc.contains(s.url) && doc.contains(s.title), "docs/guidance.md lacks {}", s.url);
            }
        }
    }

    #[test]
    fn rule_names_are_unique_and_kebab_case() {
        for (i, rule) in RULES.iter().enumerate() {
            assert!(rule.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", rule.name);
            assert!(RULES[i + 1..].iter().all(|r| r.name != rule.name), "{} twice", rule.name);
        }
    }

    #[test]
    fn thresholds_run_mildest_first_and_none_is_ok() {
        for rule in RULES {
            let levels: Vec<Level> = rule.thresholds.iter().map(|t| t.level).collect();
            assert!(levels.windows(2).all(|w| w[0] < w[1]), "{}: {levels:?}", rule.name);
            assert!(!levels.contains(&Level::Ok), "{}", rule.name);
        }
    }

    #[test]
    fn a_bound_is_crossed_only_beyond_it() {
        assert_eq!(level_of(COMMIT_LATENCY, 5e6), Level::Ok);
        assert_eq!(level_of(COMMIT_LATENCY, 5e6 + 1.0), Level::Note);
        assert_eq!(level_of(COMMIT_LATENCY, 15e6 + 1.0), Level::Warning);
        assert_eq!(level_of(COMMIT_LATENCY, 1e9), Level::Problem);
        assert_eq!(level_of(COMMIT_LATENCY, f64::NAN), Level::Ok);
        let align = RULES.iter().find(|r| r.name == "partition-alignment").unwrap().thresholds;
        assert_eq!(level_of(align, (1 << 20) as f64), Level::Ok);
        assert_eq!(level_of(align, 65536.0), Level::Note);
        assert_eq!(level_of(align, 32256.0), Level::Warning);
        assert_eq!(level_of(align, f64::NAN), Level::Ok);
        assert_eq!(bound_for(COMMIT_LATENCY, Level::Warning), Some(15e6));
        assert_eq!(bound_for(COMMIT_LATENCY, Level::Ok), None);
    }
}
