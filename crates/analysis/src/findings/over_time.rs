//! How each step's rate moved over its seconds, as the runner marked its record: a lasting
//! change of level (a cloud volume's burst allowance running out, a throttle, a neighbour) and
//! a wide swing (shared or throttled storage). The test and its thresholds are
//! `crate::over_time`'s; here they are said about a check's steps.

use super::rules::{Check, Judgement};
use super::{Area, Level};
use crate::over_time::{MIN_POINTS, shift_words, swing_words, too_short, wide};
use serde::{Deserialize, Serialize};
use spindle_model::RunRecord;
use spindle_model::db::Counts;
use spindle_model::over_time::{LevelShift, Swing};

/// One I/O step's rate over its seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepOverTime {
    /// The area whose figures the step measured.
    pub area: Area,
    /// The step, as a sentence names it (`large writes`).
    pub step: String,
    /// Its whole seconds, when too few to test (none when tested).
    pub too_short: Option<usize>,
    pub level_shift: Option<LevelShift>,
    pub swing: Option<Swing>,
}

impl StepOverTime {
    /// What the step's record says over time.
    pub fn of(area: Area, step: String, r: &RunRecord) -> StepOverTime {
        StepOverTime { area, step, too_short: too_short(r), level_shift: r.level_shift, swing: r.swing }
    }

    /// Tested: long enough, and marked (a record from before it was kept is neither).
    fn tested(&self) -> bool {
        self.swing.is_some()
    }

    /// The swing said, where it is wide and no shift explains it.
    fn wide_swing(&self) -> Option<&Swing> {
        self.swing.as_ref().filter(|s| wide(s) && self.level_shift.is_none())
    }
}

/// A step's rate that fell for good is a warning (the check's other figures may be a burst's);
/// one that rose, a note. Steps too short to test are said, never judged.
pub(crate) fn level_shift(c: &Check) -> Option<Judgement> {
    let steps = &c.dir.over_time;
    let tested: Vec<&StepOverTime> = steps.iter().filter(|s| s.tested()).collect();
    if tested.is_empty() {
        let seconds = steps.iter().filter_map(|s| s.too_short).max()?;
        return Some(Judgement {
            level: Level::Ok,
            text: format!(
                "The steps were too short to test for a lasting change of level: {seconds} whole seconds at most, \
                 {MIN_POINTS} needed"
            ),
            figure: format!("{seconds} s"),
            threshold: Some(format!("at least {MIN_POINTS} s a step")),
            advice: Some("Run the default or --thorough battery to test for it".into()),
        });
    }
    let shifted: Vec<(&StepOverTime, &LevelShift)> =
        tested.iter().filter_map(|s| Some((*s, s.level_shift.as_ref()?))).collect();
    let Some((_, first)) = shifted.first() else {
        return Some(Judgement {
            level: Level::Ok,
            text: format!("No step's rate changed level for good ({} steps tested)", tested.len()),
            figure: "no shift".into(),
            threshold: None,
            advice: None,
        });
    };
    let said: Vec<String> =
        shifted.iter().map(|(s, shift)| format!("{} {}", s.step, shift_words(shift, Counts::Ios))).collect();
    let fell = shifted.iter().any(|(_, s)| s.fell());
    Some(Judgement {
        level: if fell { Level::Warning } else { Level::Note },
        text: format!("A lasting change of level in {} of {} steps: {}", shifted.len(), tested.len(), said.join("; ")),
        figure: format!(
            "{} -> {} after {:.0} s",
            super::figures::rate(first.before),
            super::figures::rate(first.after),
            first.at_seconds
        ),
        threshold: None,
        advice: fell.then(|| {
            "A cloud volume's burst or a neighbour sets the figures before the fall: measure for longer \
             (--thorough) to see the rate it keeps, and compare it with what the volume was sold as"
                .into()
        }),
    })
}

/// Steps whose seconds swung widely, and no shift explains it: a note naming them. A steady
/// check says nothing more (its swings are in the evidence, and `level-shift` says the steps
/// were tested).
pub(crate) fn rate_swing(c: &Check) -> Option<Judgement> {
    let steps = &c.dir.over_time;
    let tested = steps.iter().filter(|s| s.tested()).count();
    let wide: Vec<(&StepOverTime, &Swing)> = steps.iter().filter_map(|s| Some((s, s.wide_swing()?))).collect();
    let widest = wide.iter().map(|(_, w)| w.width()).reduce(f64::max)?;
    let said: Vec<String> = wide.iter().map(|(s, w)| format!("{} {}", s.step, swing_words(w, Counts::Ios))).collect();
    Some(Judgement {
        level: Level::Note,
        text: format!("The rate swung widely in {} of {tested} steps: {}", wide.len(), said.join("; ")),
        figure: format!("{:.0}% below the fastest seconds", widest * 100.0),
        threshold: Some(format!(
            "the slowest seconds (p5) at most {:.0}% below the fastest (p95)",
            crate::over_time::WIDE_SWING * 100.0
        )),
        advice: Some(
            "Figures from storage that swings are a moment's: check again at another hour, and compare the \
             swings (spindle check keeps them)"
                .into(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{dir, judge, level};
    use super::*;

    fn step(name: &str, shift: Option<(f64, f64)>, swing: (f64, f64)) -> StepOverTime {
        StepOverTime {
            area: Area::LargeWrites,
            step: name.into(),
            too_short: None,
            level_shift: shift.map(|(before, after)| LevelShift { at_seconds: 10.0, before, after }),
            swing: Some(Swing { p5: swing.0, p95: swing.1 }),
        }
    }

    #[test]
    fn a_fall_for_good_is_a_warning_naming_the_step_and_a_rise_a_note() {
        let mut d = dir();
        d.over_time = vec![
            step("commits", None, (900.0, 1000.0)),
            step("large writes", Some((6000.0, 1500.0)), (1500.0, 6000.0)),
        ];
        let f = judge("level-shift", &d).unwrap();
        assert_eq!(f.level, Level::Warning);
        assert_eq!(
            f.text,
            "A lasting change of level in 1 of 2 steps: large writes fell from 6,000 to 1,500 IOPS after 10 s and \
             stayed there: a burst allowance running out, or other load"
        );
        assert_eq!(f.figure, "6,000 -> 1,500 after 10 s");
        assert!(f.basis.is_own());
        // The shift explains the swing: it is not said again.
        assert_eq!(level("rate-swing", &d), None);
        d.over_time[1].level_shift = Some(LevelShift { at_seconds: 5.0, before: 1500.0, after: 6000.0 });
        assert_eq!(level("level-shift", &d), Some(Level::Note));
    }

    #[test]
    fn a_wide_swing_is_a_note_and_a_steady_one_is_not_said() {
        let mut d = dir();
        d.over_time = vec![step("commits", None, (950.0, 1000.0)), step("large reads", None, (2000.0, 5000.0))];
        let f = judge("rate-swing", &d).unwrap();
        assert_eq!(f.level, Level::Note);
        assert_eq!(
            f.text,
            "The rate swung widely in 1 of 2 steps: large reads swings between 2,000 and 5,000 IOPS (p5-p95 of its \
             seconds): shared or throttled storage, or a busy host"
        );
        assert_eq!(level("level-shift", &d), Some(Level::Ok));
        assert_eq!(f.figure, "60% below the fastest seconds");
        d.over_time.pop();
        assert_eq!(level("rate-swing", &d), None);
    }

    #[test]
    fn steps_too_short_are_said_untested_and_nothing_is_said_without_steps() {
        let mut d = dir();
        assert_eq!((level("level-shift", &d), level("rate-swing", &d)), (None, None));
        d.over_time = vec![StepOverTime {
            area: Area::Commits,
            step: "commits".into(),
            too_short: Some(2),
            level_shift: None,
            swing: None,
        }];
        let f = judge("level-shift", &d).unwrap();
        assert_eq!(f.level, Level::Ok);
        assert_eq!(
            f.text,
            "The steps were too short to test for a lasting change of level: 2 whole seconds at most, 10 needed"
        );
        assert_eq!(level("rate-swing", &d), None);
    }
}
