//! The sustained step (`check --sustain`): page reads held long enough for a cloud volume's
//! burst allowance to run out, said as the burst (how long, how fast) and the rate the volume
//! keeps after it. The burst is the step's level shift, decided by `crate::over_time` when the
//! run finished; here it is said as what the volume sustains.

use super::Level;
use super::figures::{latency, rate};
use super::rules::{Check, Judgement};
use serde::{Deserialize, Serialize};
use spindle_model::RunRecord;
use spindle_model::over_time::LevelShift;
use spindle_model::units::{format_elapsed, format_size};
use std::time::Duration;

/// The sustained step's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sustained {
    pub block: u64,
    /// Outstanding I/Os (threads times depth).
    pub outstanding: u32,
    /// Seconds measured.
    pub seconds: f64,
    /// The mean rate over the whole hold.
    pub iops: f64,
    pub latency_mean_ns: f64,
    /// Its rate's lasting change of level, as the record keeps it.
    pub level_shift: Option<LevelShift>,
}

impl Sustained {
    pub fn of(r: &RunRecord) -> Sustained {
        let t = super::evidence::Transfer::of(r);
        Sustained {
            block: t.block,
            outstanding: t.outstanding,
            seconds: r.measured_seconds,
            iops: t.iops,
            latency_mean_ns: t.latency_mean_ns,
            level_shift: r.level_shift,
        }
    }

    /// The rate the volume kept: after a shift, the level it shifted to; else the mean.
    pub fn kept_iops(&self) -> f64 {
        self.level_shift.map_or(self.iops, |s| s.after)
    }

    /// `held at 64 outstanding for 2 min 00 s`.
    pub fn held(&self) -> String {
        format!(
            "{} page reads held at {} outstanding for {}",
            format_size(self.block),
            self.outstanding,
            format_elapsed(Duration::from_secs_f64(self.seconds.max(0.0)))
        )
    }

    /// `a burst of about 20 s at 6,000 IOPS`, when the rate fell for good.
    pub fn burst(&self) -> Option<String> {
        let s = self.level_shift.filter(LevelShift::fell)?;
        Some(format!("a burst of about {:.0} s at {} IOPS", s.at_seconds, rate(s.before)))
    }
}

/// The burst and the rate kept after it, or that none ran out.
pub(crate) fn sustained_rate(c: &Check) -> Option<Judgement> {
    let s = c.dir.sustained.as_ref()?;
    let kept = rate(s.kept_iops());
    let text = match (s.level_shift, s.burst()) {
        (Some(shift), Some(burst)) => format!(
            "{} ran at {} IOPS for {:.0} s, then {kept}: {burst}, {kept} IOPS sustained",
            s.held(),
            rate(shift.before),
            shift.at_seconds
        ),
        (Some(shift), None) => format!(
            "{} rose from {} to {kept} IOPS after {:.0} s (other load ending, or a limit lifted): {kept} IOPS sustained",
            s.held(),
            rate(shift.before),
            shift.at_seconds
        ),
        (None, _) => format!(
            "{} kept {kept} IOPS, {} each, with no lasting change of level: no burst ran out within it",
            s.held(),
            latency(s.latency_mean_ns)
        ),
    };
    Some(Judgement {
        level: if s.burst().is_some() { Level::Note } else { Level::Ok },
        text,
        figure: format!("{kept} IOPS sustained"),
        threshold: None,
        advice: s.burst().map(|_| {
            "Size the database for the sustained rate, not the burst: the steps before this one may have run on \
             the burst"
                .into()
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{dir, judge};
    use super::*;

    fn held(shift: Option<LevelShift>) -> super::super::evidence::DirEvidence {
        let mut d = dir();
        d.sustained = Some(Sustained {
            block: 8192,
            outstanding: 64,
            seconds: 60.0,
            iops: 2_500.0,
            latency_mean_ns: 25e6,
            level_shift: shift,
        });
        d
    }

    #[test]
    fn a_burst_running_out_is_said_as_its_length_and_the_rate_kept() {
        let f = judge("sustained-rate", &held(Some(LevelShift { at_seconds: 20.0, before: 6_000.0, after: 1_500.0 })))
            .unwrap();
        assert_eq!(f.level, Level::Note);
        assert_eq!(
            f.text,
            "8KiB page reads held at 64 outstanding for 1 min 00 s ran at 6,000 IOPS for 20 s, then 1,500: a burst of \
             about 20 s at 6,000 IOPS, 1,500 IOPS sustained"
        );
        assert_eq!(f.figure, "1,500 IOPS sustained");
        assert!(f.basis.is_own());
        let steady = judge("sustained-rate", &held(None)).unwrap();
        assert_eq!(steady.level, Level::Ok);
        assert!(
            steady
                .text
                .ends_with("kept 2,500 IOPS, 25 ms each, with no lasting change of level: no burst ran out within it")
        );
        let rose =
            judge("sustained-rate", &held(Some(LevelShift { at_seconds: 30.0, before: 1_000.0, after: 3_000.0 })))
                .unwrap();
        assert!(rose.text.contains("rose from 1,000 to 3,000 IOPS after 30 s"), "{}", rose.text);
        assert!(judge("sustained-rate", &dir()).is_none());
    }
}
