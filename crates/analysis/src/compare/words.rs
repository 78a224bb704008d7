//! A comparison in words: the method, what a reader must know besides the table, and the
//! headline, in the manner of "Optimizing tempdb and log disk performance" ("VRAID1
//! outperformed VRAID5 by 117.65% IOPS") where the data allow it, and plainly not where they
//! do not.

use super::{Basis, Comparison, MetricComparison, Sequence, Settle, SideRuns, Verdict, simultaneous_confidence};
use crate::compare::verdict::Lean;
use spindle_model::units::signed_pct;

/// How the verdicts were reached, in a sentence.
pub(crate) fn method(basis: Basis, na: usize, nb: usize, threshold: f64, tested: usize) -> String {
    let over = if tested == 1 { "the 1 metric tested".to_string() } else { format!("the {tested} metrics tested") };
    let level = confidence_text(simultaneous_confidence(tested));
    let rule = format!(
        "p-values corrected with Bonferroni's method over {over}, and each interval the matching simultaneous \
         {level} interval (together they cover every true change with 95% probability; an interval excludes 0% \
         (no change) exactly when its corrected p is below 0.05); `better`/`worse` needs p < 0.05 and the whole interval \
         beyond ±{threshold}%, `equivalent` the whole interval inside it; changes and intervals are ratios \
         (geometric means)"
    );
    match basis {
        Basis::Paired => format!(
            "paired t-test on the log ratio B/A of each of {na} rounds (A and B alternated in balanced order, so \
             drift shared by a round cancels); {rule}"
        ),
        Basis::Independent => format!("Welch's t-test on the runs' log figures, {na} vs {nb} runs; {rule}"),
        Basis::SingleRun => "not tested: a side has a single run".into(),
        Basis::NotRepeats => "not tested: a side's runs are not repeats of one workload".into(),
    }
}

/// Why groups run one after the other on a fresh store get no verdict.
const NO_DRIFT: &str = "A and B ran one after the other and this host's drift between groups is unknown";

/// How to get one: measure the drift, or cancel it.
const MEASURE_DRIFT: &str = "run spindle ab (alternating rounds, so drift cancels) or keep a few repeat groups \
                             of one configuration so the drift can be estimated";

/// `+8.20%`, `+2,248%`.
fn pct(x: f64) -> String {
    signed_pct(x, 2)
}

/// `98.75%`: an interval's confidence, to the digits it has.
pub fn confidence_text(confidence: f64) -> String {
    let text = format!("{:.2}", confidence * 100.0);
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// `-1.0% .. +18.2%`, `+58.2% .. +1,363%`.
pub fn interval(ci: (f64, f64)) -> String {
    format!("{} .. {}", signed_pct(ci.0, 1), signed_pct(ci.1, 1))
}

/// `p = 0.031`, or `p < 0.001`.
pub fn p_text(p: f64) -> String {
    if p < 0.001 { "p < 0.001".to_string() } else { format!("p = {p:.3}") }
}

fn span(runs: &SideRuns) -> String {
    let (first, last) = runs.span().unwrap_or(("", ""));
    if first == last { first.to_string() } else { format!("{first} .. {last}") }
}

/// Runs a side, or rounds when paired.
fn unit(basis: Basis) -> &'static str {
    if basis == Basis::Paired { "rounds" } else { "runs a side" }
}

/// A metric's change with its interval at `confidence`: `+47.00%, 98.75% interval -1.0% ..
/// +118.0%`.
pub fn estimate(m: &MetricComparison, confidence: f64) -> String {
    let ci = m.ci_pct.map(interval).unwrap_or_default();
    format!("{}, {} interval {ci}", pct(m.change_pct), confidence_text(confidence))
}

/// How many runs a side (rounds, when paired) would likely settle an inconclusive metric, in
/// the words every view says it with: `about 7 rounds (1 more) would likely settle it`.
pub fn settle_words(settle: Option<Settle>, basis: Basis) -> String {
    match settle.and_then(|s| s.runs.zip(s.more)) {
        Some((n, more)) => format!("about {n} {} ({more} more) would likely settle it", unit(basis)),
        None => format!("at this spread, settling it would take more than 1000 {}", unit(basis)),
    }
}

/// What the table alone does not say.
pub(crate) fn notes(c: &Comparison, a: &SideRuns, b: &SideRuns) -> Vec<String> {
    let mut notes = Vec::new();
    match c.basis {
        Basis::SingleRun => notes.push(
            "With a single run on a side the change is shown but not tested: runs of one configuration differ \
             from each other (two single runs of one configuration differed by 43% on a virtio disk), and one run \
             cannot say by how much. Run each side with --repeat 3, or alternate them with spindle ab."
                .into(),
        ),
        Basis::NotRepeats => {
            for (side, runs) in [("A", a), ("B", b)] {
                let keys = runs.differing_keys();
                if !keys.is_empty() {
                    notes.push(format!(
                        "{side}'s runs are not repeats of one workload (they differ in {}), so they are not pooled \
                         or tested; select the runs of one configuration on each side.",
                        keys.join(", ")
                    ));
                }
            }
        }
        Basis::Paired | Basis::Independent => {}
    }
    if c.sequence == Sequence::OneAfterTheOther {
        notes.push(format!(
            "A's runs ({}) and B's runs ({}) ran one after the other, so any drift of this host between them looks \
             like a difference.",
            span(a),
            span(b)
        ));
        match c.metrics.first().map(|headline| (headline, headline.drift)) {
            Some((headline, Some(d))) => notes.push(format!(
                "This host drifts ±{:.1}% in {} between groups ({} stored groups of an identical workload); a \
                 change within that is inconclusive (drift). Alternate A and B with spindle ab to cancel it.",
                d.pct,
                headline.metric.label(c.counts),
                d.groups
            )),
            // The headline says it already.
            Some((headline, None)) if headline.drift_unknown => {}
            _ => notes.push(format!("{NO_DRIFT}; {MEASURE_DRIFT}.")),
        }
    }
    // Kept in each record when the run finished: a run whose rate changed level for good
    // averages two levels, and the reader should know which.
    for (side, runs) in [("A", a), ("B", b)] {
        for (id, shift) in runs.shifts() {
            notes.push(format!(
                "{side}'s run {id}: the rate {}; its figures average the two levels.",
                crate::over_time::shift_words(shift, c.counts)
            ));
        }
    }
    for m in &c.metrics {
        if m.verdict != Verdict::Inconclusive {
            continue;
        }
        let leans = match m.lean {
            Some(Lean::Better) => "leans B better",
            Some(Lean::Worse) => "leans B worse",
            None => "leans neither way",
        };
        let settle = if m.within_drift {
            "within this host's drift between groups: alternate A and B with spindle ab".to_string()
        } else if m.drift_unknown {
            "more runs of the same groups cannot tell a change from this host's unknown drift".to_string()
        } else {
            settle_words(m.settle, c.basis)
        };
        notes.push(format!(
            "{}: inconclusive, {leans} ({}); {}{settle}.",
            m.metric.label(c.counts),
            estimate(m, c.interval_confidence),
            not_significant_after_correction(c, m).unwrap_or_default()
        ));
    }
    notes
}

/// For an inconclusive metric whose unadjusted 95% interval lies wholly beyond the threshold:
/// why a change that looks settled is not (the corrected p is not significant, or it is but
/// the simultaneous interval reaches inside the threshold), as a clause.
fn not_significant_after_correction(c: &Comparison, m: &MetricComparison) -> Option<String> {
    if m.within_drift || m.drift_unknown {
        return None;
    }
    let (test, p) = (m.test.as_ref()?, m.p_adjusted?);
    let (lo, hi) = (super::verdict::pct_of_log(test.ci95_low), super::verdict::pct_of_log(test.ci95_high));
    let t = c.threshold_pct;
    let beyond = if lo > t {
        format!("+{t}%")
    } else if hi < -t {
        format!("-{t}%")
    } else {
        return None;
    };
    let tested = c.metrics.iter().filter(|x| x.test.is_some()).count();
    let unadjusted = format!("its unadjusted 95% interval ({}) lies wholly beyond {beyond}", interval((lo, hi)));
    let level = confidence_text(c.interval_confidence);
    Some(if p < super::ALPHA {
        // Significant, yet the interval the verdict rests on reaches inside the threshold.
        format!(
            "{unadjusted}, and with {tested} metrics tested at once the change is significant ({} after \
             Bonferroni's correction), but its {level} interval reaches inside ±{t}%: it may be too small to act on; ",
            p_text(p)
        )
    } else {
        format!(
            "{unadjusted}, but with {tested} metrics tested at once that is not significant ({} after Bonferroni's \
             correction); ",
            p_text(p)
        )
    })
}

/// The result on the headline metric (the first), in one sentence.
pub(crate) fn headline(c: &Comparison) -> String {
    let Some(m) = c.metrics.first() else {
        return "Nothing to compare: no figure is recorded by every run on both sides (a checkpoint has a duration \
                and no rate of rows: compare each operation with the same operation)."
            .into();
    };
    let label = m.metric.label(c.counts);
    let by = m.change_pct.abs();
    let how = match (&m.test, m.p_adjusted) {
        (Some(_), Some(p)) => {
            let test = match c.basis {
                Basis::Paired => format!("paired t-test over {} rounds", c.a_runs.len()),
                _ => format!("Welch's t-test over {} vs {} runs", c.a_runs.len(), c.b_runs.len()),
            };
            format!(
                "{} interval {}; {test}, {} after Bonferroni's correction",
                confidence_text(c.interval_confidence),
                interval(m.ci_pct.unwrap_or((0.0, 0.0))),
                p_text(p)
            )
        }
        _ => String::new(),
    };
    match m.verdict {
        Verdict::Better => format!("B outperforms A by {by:.2}% {label} ({how})."),
        Verdict::Worse => {
            let way = if m.change_pct > 0.0 { "higher" } else { "lower" };
            format!("A outperforms B: B's {label} is {by:.2}% {way} ({how}).")
        }
        Verdict::Equivalent => format!(
            "A and B are equivalent in {label}: B vs A {} is within ±{}% ({how}).",
            pct(m.change_pct),
            c.threshold_pct
        ),
        Verdict::Inconclusive if m.within_drift => format!(
            "Inconclusive: B vs A {} {label} is within this host's drift between groups (±{:.1}%); alternate them \
             with spindle ab to tell.",
            pct(m.change_pct),
            m.drift.map_or(0.0, |d| d.pct)
        ),
        Verdict::Inconclusive if m.drift_unknown => {
            format!("{NO_DRIFT}: no verdict on B vs A {} {label} ({how}); {MEASURE_DRIFT}.", pct(m.change_pct))
        }
        Verdict::Inconclusive => {
            format!("Inconclusive: B vs A {} {label}, but the runs vary too much to tell ({how}).", pct(m.change_pct))
        }
        Verdict::Untested if m.change_pct == 0.0 && m.a_mean == m.b_mean => {
            format!("B vs A {} {label}: the figures are identical (not tested).", pct(0.0))
        }
        Verdict::Untested => {
            let why = match c.basis {
                Basis::NotRepeats => "a side's runs are not repeats of one workload",
                _ => {
                    "one run a side says nothing about how much runs of one configuration differ; run each side \
                      with --repeat 3, or alternate them with spindle ab"
                }
            };
            format!("B vs A {} {label}, not tested: {why}.", pct(m.change_pct))
        }
    }
}
