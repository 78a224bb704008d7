//! Synthetic evidence for the rules' tests: a healthy directory each test bends one way.

use super::evidence::*;
use super::rules::RULES;
use super::{Finding, Level};
use crate::curve::CurvePoint;
use spindle_model::record::DeviceInfo;

/// `/data` on ext4 on sda, nothing measured.
pub(crate) fn dir() -> DirEvidence {
    DirEvidence {
        dir: "/data".into(),
        device: DeviceInfo {
            target: "/data".into(),
            device: Some("sda".into()),
            filesystem: Some("ext4".into()),
            mount_options: Some("rw,relatime".into()),
            ..DeviceInfo::default()
        },
        ..DirEvidence::default()
    }
}

/// The named rule's finding about `dir` under generic guidance.
pub(crate) fn judge(name: &str, dir: &DirEvidence) -> Option<Finding> {
    judge_for(name, dir, Guidance::Generic)
}

pub(crate) fn judge_for(name: &str, dir: &DirEvidence, guidance: Guidance) -> Option<Finding> {
    RULES.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no rule {name}")).apply(dir, guidance)
}

pub(crate) fn level(name: &str, dir: &DirEvidence) -> Option<Level> {
    judge(name, dir).map(|f| f.level)
}

pub(crate) fn commits(mean_ns: f64, p99_ns: u64, flush_median_ns: u64) -> Commits {
    Commits {
        write_bytes: 8192,
        count: 1000,
        per_sec: 1e9 / mean_ns,
        mean_ns,
        p99_ns,
        flush_median_ns,
        flush_p99_ns: flush_median_ns * 2,
    }
}

/// A depth curve of (depth, IOPS, mean latency ns) points with 8 KiB pages.
pub(crate) fn curve(points: &[(&str, f64, f64)], knee: Option<usize>) -> DepthCurve {
    DepthCurve {
        block: 8192,
        points: points
            .iter()
            .map(|&(value, iops, latency)| CurvePoint {
                value: value.into(),
                runs: 1,
                iops,
                mb_per_sec: iops * 8192.0 / 1e6,
                latency_mean_ns: latency,
                latency_p99_ns: latency * 3.0,
            })
            .collect(),
        knee,
        knee_range: None,
        noisy: false,
        dip: None,
    }
}
