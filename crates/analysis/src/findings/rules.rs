//! The one table of rules: each with its stable name, its area, the thresholds it holds a
//! figure against and what they rest on (a published document, or a rule of spindle's own with
//! the measurement behind it). docs/guidance.md is this table in words, and a test holds its
//! figures to the code; the judges (environment.rs, measured.rs, outcomes.rs) read their
//! thresholds from here.

use super::basis::Basis;
use super::cap::{CAP_SAME_RATE, LITTLE_SHARE};
use super::durability::{SPINNING_DISK_FLOOR_NS, VOLATILE_SSD_FLOOR_NS};
use super::evidence::{DirEvidence, Guidance};
use super::expected::DELIVERED_SHARE;
use super::load::{BUSY_CPU_SHARE, BUSY_IO_SHARE, DROWNED_IO_SHARE, busiest};
use super::sources::*;
use super::{Area, Finding, Level, Source, cap, environment, expected, measured, outcomes, over_time, sustained};
use crate::curve::{CLOSE_CALL, KNEE_GAIN, NOISE_SWING};
use crate::log_optimum::OPTIMUM_SHARE;
use crate::over_time::{MIN_POINTS, MIN_RATIO, MIN_SEGMENT, SHIFT_BASIS, SWING_BASIS, WIDE_SWING};

/// One rule of the check.
pub struct Rule {
    /// Stable name (`Finding::rule`).
    pub name: &'static str,
    pub area: Area,
    /// The step whose figure the rule judges, when it judges one: what else the host did
    /// during it is said beside the finding, and a step other I/O drowned gives no verdict.
    pub step: Option<Area>,
    /// What the figure is held against, mildest first; empty for a rule that judges a fact
    /// (a filesystem, a mount option) or reports a figure no source gives a bound for.
    pub thresholds: &'static [Threshold],
    /// How the thresholds' values read (docs/guidance.md writes them so).
    pub unit: Unit,
    /// Other numbers the rule decides by (a knee's 10% gain), as docs/guidance.md writes them.
    pub constants: &'static [Constant],
    /// What the thresholds (or the fact's consequence) rest on, per guidance.
    pub basis: fn(Guidance) -> Basis,
    pub(crate) judge: fn(&Check) -> Option<Judgement>,
}

/// How a rule's threshold values read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Nanoseconds,
    /// A share of a whole, 0 to 1.
    Share,
    Bytes,
    Count,
}

/// A number a rule decides by other than its thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constant {
    /// A share, written as a percentage (`10%`).
    Percent(f64),
    /// A share written as percentage points either side of another (`5 points`).
    Points(f64),
    /// A ratio of two figures (`1.5 times`).
    Times(f64),
    /// A length of time in seconds (`10 s`).
    Seconds(f64),
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
        let mut j = (self.judge)(&Check { dir, guidance, thresholds: self.thresholds })?;
        if let Some(load) = self.step.and_then(|area| busiest(&dir.loads, area)) {
            if load.drowned() {
                j.level = Level::Note;
                j.text.push_str(&format!("; no verdict: while it ran, {}, which drowned it", load.words()));
                j.advice = Some("Check again when nothing else uses this storage".into());
            } else {
                j.text
                    .push_str(&format!("; while it ran, {}, so the figure may understate this storage", load.words()));
            }
        }
        Some(Finding {
            dir: dir.dir.clone(),
            area: self.area,
            level: j.level,
            rule: self.name,
            text: j.text,
            figure: j.figure,
            threshold: j.threshold,
            basis: (self.basis)(guidance),
            advice: j.advice,
        })
    }

    /// Every number the rule decides by, as docs/guidance.md writes it (`5 ms`, `20%`, `4 KiB`,
    /// `5 points`).
    pub fn values(&self) -> Vec<String> {
        let thresholds = self.thresholds.iter().map(|t| match t.bound {
            Bound::Above(v) | Bound::Below(v) => show(self.unit, v),
            Bound::NotMultipleOf(step) => show(self.unit, step as f64),
        });
        let constants = self.constants.iter().map(|c| match *c {
            Constant::Percent(share) => format!("{}%", plain(share * 100.0)),
            Constant::Points(share) => format!("{} points", plain(share * 100.0)),
            Constant::Times(ratio) => format!("{} times", plain(ratio)),
            Constant::Seconds(s) => format!("{} s", plain(s)),
        });
        thresholds.chain(constants).collect()
    }
}

/// A threshold's value in its unit, as the guidance page writes it.
fn show(unit: Unit, value: f64) -> String {
    match unit {
        Unit::Nanoseconds => super::figures::latency(value),
        Unit::Share => format!("{}%", plain(value * 100.0)),
        Unit::Bytes if value >= (1 << 20) as f64 => format!("{} MiB", plain(value / (1 << 20) as f64)),
        Unit::Bytes => format!("{} KiB", plain(value / 1024.0)),
        Unit::Count => plain(value),
    }
}

/// A number without the float's last-digit noise (`1.0 - 0.9` reads `10`, not `9.999...`).
fn plain(value: f64) -> String {
    format!("{}", (value * 1e6).round() / 1e6)
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

/// Microsoft's guidance behind both latency rules.
const MS_LATENCY: Basis = Basis::Published {
    source: MS_SLOW_IO,
    says: "I/O waits \"should generally stay below 10-15 milliseconds per I/O request\"; its latency assessment \
           rates under 2 ms excellent, 2-5 ms very good, 6-15 ms good, 16-100 ms poor and 100-500 ms bad",
};

/// The rules, in the order a report reads them within an area.
pub static RULES: &[Rule] = &[
    Rule {
        name: "memory-filesystem",
        area: Area::Environment,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |_| Basis::Published {
            source: KERNEL_TMPFS,
            says: "tmpfs keeps all its files in virtual memory; nothing reaches a disk, and unmounting loses it all",
        },
        judge: environment::memory_filesystem,
    },
    Rule {
        name: "overlay-filesystem",
        area: Area::Environment,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |_| Basis::Published {
            source: DOCKER_STORAGE_DRIVERS,
            says: "a container's writable layer is slower than native file system performance; write-intensive \
                   applications such as database storage pay its overhead; use volumes",
        },
        judge: environment::overlay_filesystem,
    },
    Rule {
        name: "loop-device",
        area: Area::Environment,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |g| match g {
            Guidance::Mysql => Basis::Published {
                source: MARIADB_FLUSH_METHOD,
                says: "O_DIRECT (the default since 10.6) bypasses the file system cache",
            },
            _ => Basis::Published {
                source: LOSETUP,
                says: "--direct-io: the loop device opens its backing file with direct I/O instead of the page cache",
            },
        },
        judge: environment::loop_device,
    },
    Rule {
        name: "mount-options",
        area: Area::Environment,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |_| Basis::Published {
            source: KERNEL_EXT4,
            says: "barrier=0/nobarrier disable the write barriers that make volatile disk write caches safe; \
                   data=writeback keeps no order between data and journaled metadata",
        },
        judge: environment::mount_options,
    },
    Rule {
        name: "volatile-write-cache",
        area: Area::Environment,
        step: Some(Area::Commits),
        // Which floor applies depends on the device class (durability::read_flush).
        thresholds: &[
            Threshold { level: Level::Note, bound: Bound::Below(VOLATILE_SSD_FLOOR_NS as f64) },
            Threshold { level: Level::Warning, bound: Bound::Below(SPINNING_DISK_FLOOR_NS as f64) },
        ],
        unit: Unit::Nanoseconds,
        constants: &[],
        basis: |g| Basis::Own {
            how: "derived, not published: a 15,000 rpm disk, the fastest that spins, turns once in 4 ms, so no \
                  flush that reached its platter returns in under 1 ms; an SSD that empties a volatile cache on a \
                  flush takes at least about 50 µs. Applied only to disks this machine drives itself: on a \
                  hypervisor's or a cloud's disk the host answers flushes, and no time measured here shows \
                  whether they reached stable media",
            after: Some(durability_source(g)),
        },
        judge: environment::volatile_write_cache,
    },
    Rule {
        name: "partition-alignment",
        area: Area::Environment,
        step: None,
        thresholds: &[
            Threshold { level: Level::Note, bound: Bound::NotMultipleOf(1 << 20) },
            Threshold { level: Level::Warning, bound: Bound::NotMultipleOf(4096) },
        ],
        unit: Unit::Bytes,
        constants: &[],
        basis: |_| Basis::Published {
            source: LIBFDISK_ALIGNMENT,
            says: "partitions are aligned to a 1 MiB grain (the first at sector 2048), which keeps them on physical \
                   sector boundaries",
        },
        judge: environment::partition_alignment,
    },
    Rule {
        name: "free-space",
        area: Area::Environment,
        step: None,
        // Shares of the filesystem free: Zabbix's 80% and 90% used.
        thresholds: &[
            Threshold { level: Level::Note, bound: Bound::Below(0.20) },
            Threshold { level: Level::Warning, bound: Bound::Below(0.10) },
        ],
        unit: Unit::Share,
        constants: &[],
        basis: |_| Basis::Published {
            source: ZABBIX_LINUX,
            says: "filesystem utilization: warning at 80%, critical at 90%",
        },
        judge: environment::free_space,
    },
    Rule {
        name: "virtual-disk",
        area: Area::Environment,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |_| Basis::Own {
            how: "a fact read from the disk's drivers, vendor and model in sysfs and the machine's firmware (a \
                  paravirtual driver such as virtio_blk, or a cloud's or hypervisor's disk by name)",
            after: Some(HAMMER),
        },
        judge: environment::virtual_disk,
    },
    Rule {
        name: "host-load",
        area: Area::Environment,
        step: None,
        thresholds: &[Threshold { level: Level::Note, bound: Bound::Above(BUSY_IO_SHARE) }],
        unit: Unit::Share,
        constants: &[Constant::Percent(DROWNED_IO_SHARE), Constant::Percent(BUSY_CPU_SHARE)],
        basis: |_| Basis::Own {
            how: "set by this project: other processes' reads and writes on a step's devices (at most the smaller \
                  of their own accounting in /proc/PID/io and the devices' bytes beyond the step's own) of more \
                  than a tenth of the step's own may move its figures, and are said beside them; as much as \
                  the step's own or more drowns it, and no verdict is drawn from it; other processes keeping more \
                  than half the CPUs busy are said too (on this project's 2-CPU VM a build beside the check moved \
                  13% of a page-read step's bytes and kept the CPUs full)",
            after: None,
        },
        judge: environment::host_load,
    },
    Rule {
        name: "expected-rates",
        area: Area::Environment,
        step: None,
        thresholds: &[Threshold { level: Level::Problem, bound: Bound::Below(DELIVERED_SHARE) }],
        unit: Unit::Share,
        constants: &[],
        basis: |_| Basis::Published {
            source: AWS_EBS_OPTIMIZATION,
            says: "io1 and io2 volumes are designed to deliver at least 90% of their provisioned IOPS performance \
                   99.9% of the time in a given year, gp2 and gp3 99% of the time; st1 and sc1 deliver at least 90% \
                   of their expected throughput 99% of the time",
        },
        judge: expected::expected_rates,
    },
    Rule {
        name: "level-shift",
        area: Area::Environment,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[
            Constant::Times(MIN_RATIO),
            Constant::Seconds(MIN_SEGMENT as f64),
            Constant::Seconds(MIN_POINTS as f64),
        ],
        basis: |_| SHIFT_BASIS,
        judge: over_time::level_shift,
    },
    Rule {
        name: "rate-swing",
        area: Area::Environment,
        step: None,
        thresholds: &[Threshold { level: Level::Note, bound: Bound::Above(WIDE_SWING) }],
        unit: Unit::Share,
        constants: &[Constant::Seconds(MIN_POINTS as f64)],
        basis: |_| SWING_BASIS,
        judge: over_time::rate_swing,
    },
    Rule {
        name: "page-read-latency",
        area: Area::PageReads,
        step: Some(Area::PageReads),
        thresholds: DATA_READ_LATENCY,
        unit: Unit::Nanoseconds,
        constants: &[],
        basis: |_| MS_LATENCY,
        judge: measured::page_read_latency,
    },
    Rule {
        name: "volume-cap",
        area: Area::PageReads,
        step: Some(Area::PageReads),
        thresholds: &[],
        unit: Unit::Count,
        constants: &[Constant::Percent(CAP_SAME_RATE), Constant::Percent(LITTLE_SHARE)],
        basis: |_| Basis::Own {
            how: "set by this project: page reads that level off, and transfers of 8 pages or more (the check's \
                  large reads and writes) at the same rate within 10%, show a limit that counts I/Os whatever \
                  their size: a device limited by the bytes it moves lets through an eighth as many of them or \
                  fewer. Past the level, latency x IOPS must be the number outstanding within 20% (Little's law \
                  under a fixed rate). On this project's VM a loop device throttled by a blkio cgroup to 2,000 \
                  IOPS gave page reads of 2,000 IOPS from depth 1 and large reads and writes of 2,000 IOPS \
                  (docs/benchmarks.md, \"Cloud volumes\")",
            after: Some(AWS_EBS_VOLUME_TYPES),
        },
        judge: cap::volume_cap,
    },
    Rule {
        name: "page-read-knee",
        area: Area::PageReads,
        step: Some(Area::PageReads),
        thresholds: &[],
        unit: Unit::Count,
        constants: &[Constant::Percent(KNEE_GAIN), Constant::Points(CLOSE_CALL), Constant::Percent(NOISE_SWING)],
        basis: |_| Basis::Own {
            how: "set by this project: a depth past which no deeper one reads 10% more is the knee; a gain within \
                  5 points of 10% is too close to call from one run a depth (two sweeps of this project's VM disk, \
                  minutes apart, saw one step gain 0.5% and 13%, 6.6% and 14%: docs/benchmarks.md, \"The check\"); \
                  a fall that rises again shows the runs swing at least that much, and a fall of more than 25% \
                  that rises again is too noisy to name a knee",
            after: Some(HAMMER),
        },
        judge: measured::page_read_knee,
    },
    Rule {
        name: "sustained-rate",
        area: Area::PageReads,
        step: Some(Area::PageReads),
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |_| SHIFT_BASIS,
        judge: sustained::sustained_rate,
    },
    Rule {
        name: "commit-latency",
        area: Area::Commits,
        step: Some(Area::Commits),
        thresholds: COMMIT_LATENCY,
        unit: Unit::Nanoseconds,
        constants: &[],
        basis: |_| MS_LATENCY,
        judge: measured::commit_latency,
    },
    Rule {
        name: "large-writes",
        area: Area::LargeWrites,
        step: Some(Area::LargeWrites),
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |_| MS_THROUGHPUT,
        judge: measured::large_writes,
    },
    Rule {
        name: "large-reads",
        area: Area::LargeReads,
        step: Some(Area::LargeReads),
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |_| MS_THROUGHPUT,
        judge: measured::large_reads,
    },
    Rule {
        name: "log-optimum",
        area: Area::Log,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[Constant::Percent(1.0 - OPTIMUM_SHARE)],
        basis: |_| Basis::Own {
            how: "the article reads where throughput levels off from its graphs; spindle's reading of it is the \
                  smallest transaction size whose log MB/s is within 10% of the best (past which the log volume's \
                  write queue grows, where measured), and a largest size that alone comes within 10% is still \
                  rising, not an optimum",
            after: Some(LOG_PERFORMANCE),
        },
        judge: outcomes::log_optimum,
    },
    Rule {
        name: "log-single-row",
        area: Area::Log,
        step: None,
        thresholds: &[],
        unit: Unit::Count,
        constants: &[],
        basis: |g| match g {
            Guidance::SqlServer => Basis::Published {
                source: MS_SLOW_IO,
                says: "many small transactions mean many log flushes, each waited for",
            },
            Guidance::Postgres => Basis::Published {
                source: PG_POPULATE,
                says: "many inserts: turn autocommit off and commit once at the end",
            },
            Guidance::Mysql => Basis::Published {
                source: MARIADB_FLUSH_LOG,
                says: "1 writes and flushes the redo log at each commit, as full ACID compliance needs",
            },
            Guidance::Generic => Basis::Published {
                source: LOG_PERFORMANCE,
                says: "one row a transaction commits, and flushes the log, for every row",
            },
        },
        judge: outcomes::log_single_row,
    },
    Rule {
        name: "verify",
        area: Area::Verify,
        step: None,
        thresholds: &[Threshold { level: Level::Problem, bound: Bound::Above(0.0) }],
        unit: Unit::Count,
        constants: &[],
        basis: |g| Basis::Published { source: durability_source(g), says: durability_says(g) },
        judge: outcomes::verify,
    },
];

/// Microsoft's guidance on throughput: compare it with what the maker specifies.
const MS_THROUGHPUT: Basis = Basis::Published {
    source: MS_SLOW_IO,
    says: "throughput is checked against what the hardware maker specifies for the storage",
};

/// Whose words say that a cache must survive power loss and a commit must reach stable media.
/// Generic cites PostgreSQL's, the most explicit about write caches and how to turn them off.
fn durability_source(guidance: Guidance) -> Source {
    match guidance {
        Guidance::SqlServer => MS_LOGGING_RELIABILITY,
        Guidance::Mysql => MARIADB_FLUSH_LOG,
        Guidance::Postgres | Guidance::Generic => PG_RELIABILITY,
    }
}

/// What that document says.
fn durability_says(guidance: Guidance) -> &'static str {
    match guidance {
        Guidance::SqlServer => {
            "a transaction is committed only when its log records are in stable storage; any write cache must be \
             battery-backed, all other caching is prone to data loss"
        }
        Guidance::Mysql => "1 writes and flushes the redo log at each commit, as full ACID compliance needs",
        Guidance::Postgres | Guidance::Generic => {
            "write-back caches on controllers and drives (many SSDs too) lose data on power failure unless \
             battery-backed"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUIDANCES: [Guidance; 4] = [Guidance::Generic, Guidance::SqlServer, Guidance::Postgres, Guidance::Mysql];

    #[test]
    fn every_published_rule_cites_a_document_with_an_https_address_and_what_it_says() {
        for rule in RULES {
            for g in GUIDANCES {
                let basis = (rule.basis)(g);
                match basis {
                    Basis::Published { says, .. } => assert!(says.len() > 20, "{} under {g:?}", rule.name),
                    Basis::Own { how, .. } => assert!(how.len() > 20, "{} under {g:?}", rule.name),
                }
                if let Some(s) = basis.document() {
                    assert!(!s.title.is_empty() && !s.publisher.is_empty(), "{} under {g:?}", rule.name);
                    assert!(s.url.starts_with("https://") && s.url.len() > 8, "{}: {}", rule.name, s.url);
                }
            }
        }
    }

    /// The rows of docs/guidance.md's rule tables, by rule name: the whole line.
    fn doc_rows() -> Vec<(&'static str, &'static str)> {
        include_str!("../../../../docs/guidance.md")
            .lines()
            .filter_map(|l| {
                let name = l.strip_prefix("| `")?.split('`').next()?;
                Some((name, l))
            })
            .collect()
    }

    #[test]
    fn every_rule_its_basis_and_its_sources_are_in_docs_guidance() {
        let doc = include_str!("../../../../docs/guidance.md");
        let rows = doc_rows();
        for rule in RULES {
            let row = rows.iter().find(|(n, _)| *n == rule.name).map(|(_, l)| *l);
            let row = row.unwrap_or_else(|| panic!("docs/guidance.md has no row for rule {}", rule.name));
            let says_own = row.contains("| spindle's own |");
            assert_eq!(says_own, (rule.basis)(Guidance::Generic).is_own(), "{}'s basis in its row: {row}", rule.name);
            assert!(says_own || row.contains("| published |"), "{}: its row names no basis: {row}", rule.name);
            for g in GUIDANCES {
                if let Some(s) = (rule.basis)(g).document() {
                    assert!(doc.contains(s.url) && doc.contains(s.title), "docs/guidance.md lacks {}", s.url);
                }
            }
        }
        assert!(rows.iter().all(|(n, _)| RULES.iter().any(|r| r.name == *n)), "a row for a rule the code lacks");
    }

    #[test]
    fn every_figure_docs_guidance_gives_a_rule_is_the_figure_the_rule_uses() {
        for (name, row) in doc_rows() {
            let Some(rule) = RULES.iter().find(|r| r.name == name) else { continue };
            let mut documented: Vec<String> =
                row.split("**").skip(1).step_by(2).map(|v| v.replace('\u{a0}', " ")).collect();
            let mut used = rule.values();
            documented.sort();
            documented.dedup();
            used.sort();
            used.dedup();
            assert_eq!(documented, used, "the figures in docs/guidance.md's row for {name} (bold) against the code");
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

    #[test]
    fn values_read_as_the_guidance_page_writes_them() {
        let rule = |name: &str| RULES.iter().find(|r| r.name == name).unwrap();
        assert_eq!(rule("commit-latency").values(), ["5 ms", "15 ms", "100 ms"]);
        assert_eq!(rule("volatile-write-cache").values(), ["50 µs", "1 ms"]);
        assert_eq!(rule("partition-alignment").values(), ["1 MiB", "4 KiB"]);
        assert_eq!(rule("free-space").values(), ["20%", "10%"]);
        assert_eq!(rule("page-read-knee").values(), ["10%", "5 points", "25%"]);
        assert_eq!(rule("log-optimum").values(), ["10%"]);
        assert_eq!(rule("verify").values(), ["0"]);
        assert_eq!(rule("level-shift").values(), ["1.5 times", "3 s", "10 s"]);
    }
}
