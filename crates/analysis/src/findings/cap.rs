//! A limit set above the device: a provisioned or throttled volume lets through a fixed number
//! of I/Os a second whatever their size, where a device's own limit lets through far fewer
//! large transfers than pages (each moves many times the bytes). Told from the check's steps:
//! page reads level off at one rate, large transfers of many times a page run at that same
//! rate, and past the level latency grows with depth as a fixed rate makes it (Little's law:
//! latency x IOPS = outstanding I/Os).

use super::Level;
use super::evidence::{DepthCurve, DirEvidence, Transfer};
use super::figures::{latency, mb_per_sec, rate};
use super::rules::{Check, Judgement};
use spindle_model::units::format_size;

/// Large transfers of at least this many pages: a device's own limit would let through at
/// most an eighth as many of them as of pages, had its limit been the bytes they move.
pub const CAP_SIZE_RATIO: u64 = 8;
/// Rates within this share of one another are one level.
pub const CAP_SAME_RATE: f64 = 0.10;
/// Little's law holds within this share at every depth past the level: latency x IOPS is the
/// number outstanding.
pub const LITTLE_SHARE: f64 = 0.20;

/// A cap on I/Os a second, and the steps that show it.
#[derive(Debug, PartialEq)]
pub struct Cap {
    /// The level, in I/Os a second (the median of the page reads past their knee).
    pub iops: f64,
    /// The page reads' depth where the level is first reached.
    pub from_depth: String,
    /// The large transfers at the same rate: what they are, and their figures.
    pub transfers: Vec<(&'static str, Transfer)>,
}

/// The I/O cap the steps show, when they show one (see the module's words); `None` when the
/// page reads still climb, are noisy, or no large transfer runs at their level.
pub fn iops_cap(dir: &DirEvidence) -> Option<Cap> {
    let curve = dir.page_reads.as_ref().filter(|c| !c.noisy)?;
    let plateau = curve.points.get(curve.knee?..).filter(|p| !p.is_empty())?;
    let mut rates: Vec<f64> = plateau.iter().map(|p| p.iops).collect();
    rates.sort_by(f64::total_cmp);
    let level = rates[rates.len() / 2];
    if !(level.is_finite() && level > 0.0) || rates.iter().any(|r| !same_rate(*r, level)) {
        return None;
    }
    let fixed_rate = plateau.iter().all(|p| {
        let outstanding: f64 = p.value.parse().unwrap_or(f64::NAN);
        ((p.latency_mean_ns / 1e9 * p.iops) / outstanding - 1.0).abs() <= LITTLE_SHARE
    });
    let transfers: Vec<(&'static str, Transfer)> =
        [("large reads", &dir.large_reads), ("large writes", &dir.large_writes)]
            .into_iter()
            .filter_map(|(what, t)| Some((what, t.clone()?)))
            .filter(|(_, t)| t.block >= CAP_SIZE_RATIO * curve.block && same_rate(t.iops, level))
            .collect();
    (fixed_rate && !transfers.is_empty()).then(|| Cap { iops: level, from_depth: plateau[0].value.clone(), transfers })
}

fn same_rate(a: f64, level: f64) -> bool {
    (a / level - 1.0).abs() <= CAP_SAME_RATE
}

/// `0.5 ms at 1, 16 ms at 32`: latency at the first and last depth of the level.
fn latency_growth(curve: &DepthCurve, from: usize) -> String {
    let (first, last) = (&curve.points[from], &curve.points[curve.points.len() - 1]);
    if first.value == last.value {
        return format!("{} at {}", latency(first.latency_mean_ns), first.value);
    }
    format!(
        "{} at {} to {} at {}",
        latency(first.latency_mean_ns),
        first.value,
        latency(last.latency_mean_ns),
        last.value
    )
}

/// The volume's cap, named: the level, and the steps that show it is the volume's, not the
/// device's.
pub(crate) fn volume_cap(c: &Check) -> Option<Judgement> {
    let cap = iops_cap(c.dir)?;
    let curve = c.dir.page_reads.as_ref()?;
    let transfers: Vec<String> = cap
        .transfers
        .iter()
        .map(|(what, t)| {
            format!("{} {what} ({}, {} IOPS)", format_size(t.block), mb_per_sec(t.mb_per_sec), rate(t.iops))
        })
        .collect();
    let text = format!(
        "this volume is capped at about {} IOPS: {} page reads level off there from {} outstanding, latency growing \
         with depth as a fixed rate makes it ({}), and {} run at the same rate; a limit that counts I/Os whatever \
         their size is set above the device (a provisioned or throttled volume), not the device's own knee",
        rate(cap.iops),
        format_size(curve.block),
        cap.from_depth,
        latency_growth(curve, curve.knee?),
        transfers.join(" and ")
    );
    Some(Judgement {
        level: Level::Note,
        text,
        figure: format!("{} IOPS", rate(cap.iops)),
        threshold: Some(format!(
            "transfers of {CAP_SIZE_RATIO} pages or more within {:.0}% of the page reads' level, and latency x IOPS \
             within {:.0}% of the outstanding I/Os",
            CAP_SAME_RATE * 100.0,
            LITTLE_SHARE * 100.0
        )),
        advice: Some(
            "More outstanding I/Os buy only latency here: for more, provision more IOPS (or a larger volume, where \
             IOPS grow with size), or spread the files over several volumes"
                .into(),
        ),
    })
}

/// The page reads' knee said as the cap it is, when the steps show one.
pub(crate) fn knee_at_cap(c: &Check, pages: &str) -> Option<Judgement> {
    let cap = iops_cap(c.dir)?;
    Some(Judgement {
        level: Level::Ok,
        text: format!(
            "{pages} page reads reach this volume's cap of about {} IOPS at {} outstanding (not the device's knee); \
             beyond that latency grows for nothing",
            rate(cap.iops),
            cap.from_depth
        ),
        figure: format!("{} outstanding, {} IOPS", cap.from_depth, rate(cap.iops)),
        threshold: None,
        advice: None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{curve, dir, judge};
    use super::*;

    /// A transfer of `block` bytes at `iops`, 8 outstanding.
    fn transfer(block: u64, iops: f64) -> Transfer {
        Transfer {
            block,
            outstanding: 8,
            mb_per_sec: iops * block as f64 / 1e6,
            iops,
            latency_mean_ns: 8e9 / iops,
            latency_p99_ns: (16e9 / iops) as u64,
        }
    }

    /// What `check --quick` measured on a loop device throttled to 2,000 IOPS: the level from
    /// depth 1, latency in step with depth.
    fn capped() -> DirEvidence {
        let mut d = dir();
        let points: Vec<(String, f64, f64)> = [1, 2, 4, 8, 16, 32]
            .iter()
            .map(|&q| (q.to_string(), 2_000.0 + q as f64, q as f64 / 2_000.0 * 1e9))
            .collect();
        let points: Vec<(&str, f64, f64)> = points.iter().map(|(v, i, l)| (v.as_str(), *i, *l)).collect();
        d.page_reads = Some(curve(&points, Some(0)));
        d.large_reads = Some(transfer(1 << 20, 2_000.0));
        d.large_writes = Some(transfer(512 << 10, 1_991.0));
        d
    }

    #[test]
    fn a_level_shared_by_pages_and_large_transfers_is_the_volumes_cap() {
        let cap = iops_cap(&capped()).unwrap();
        assert_eq!(cap.from_depth, "1");
        assert!((cap.iops - 2_008.0).abs() < 1.0, "{cap:?}");
        assert_eq!(cap.transfers.len(), 2);
        let f = judge("volume-cap", &capped()).unwrap();
        assert_eq!(f.level, Level::Note);
        assert!(
            f.text.starts_with("this volume is capped at about 2,008 IOPS: 8KiB page reads level off there from 1")
        );
        assert!(f.text.contains("1MiB large reads (2,097 MB/s, 2,000 IOPS) and 512KiB large writes"), "{}", f.text);
        assert!(f.basis.is_own());
        let knee = judge("page-read-knee", &capped()).unwrap();
        assert!(
            knee.text.contains("reach this volume's cap of about 2,008 IOPS at 1 outstanding (not the device's knee)")
        );
        assert!(!knee.text.contains("stop scaling"), "{}", knee.text);
    }

    #[test]
    fn a_device_whose_large_transfers_run_fewer_times_a_second_has_no_cap() {
        // A device's knee: large transfers limited by the bytes they move.
        let mut d = capped();
        d.large_reads = Some(transfer(1 << 20, 500.0));
        d.large_writes = Some(transfer(512 << 10, 700.0));
        assert_eq!(iops_cap(&d), None);
        assert!(judge("volume-cap", &d).is_none());
        assert!(judge("page-read-knee", &d).unwrap().text.contains("stop scaling at about 1 outstanding"));
        // Transfers too small to tell a count of I/Os from a count of bytes.
        let mut small = capped();
        small.large_reads = Some(transfer(32 << 10, 2_000.0));
        small.large_writes = None;
        assert_eq!(iops_cap(&small), None);
        // Page reads still climbing, or swinging past the level.
        let mut climbing = capped();
        climbing.page_reads.as_mut().unwrap().knee = None;
        assert_eq!(iops_cap(&climbing), None);
        let mut swinging = capped();
        swinging.page_reads.as_mut().unwrap().points[3].iops = 2_500.0;
        assert_eq!(iops_cap(&swinging), None);
    }

    #[test]
    fn latency_out_of_step_with_a_fixed_rate_is_no_cap() {
        // Latency that stays flat as depth grows is not a queue at a fixed rate.
        let mut d = capped();
        d.page_reads.as_mut().unwrap().points.iter_mut().for_each(|p| p.latency_mean_ns = 5e5);
        assert_eq!(iops_cap(&d), None);
        let mut noisy = capped();
        noisy.page_reads.as_mut().unwrap().noisy = true;
        assert_eq!(iops_cap(&noisy), None);
    }
}
