//! Two directories: data and log on one volume or two ("Optimizing tempdb and log disk
//! performance", "Database Hammer"), decided by the runner's A/B experiment in paired rounds.
//! A keeps the data file and the log file in the first directory; B moves the log to the
//! second. Each side is the same job of two targets run at once, so the log's commits compete
//! with the data's page I/O exactly where they share a volume.

use crate::battery::{Budget, Sizing, plan_layout};
use spindle_analysis::compare::DEFAULT_THRESHOLD_PCT;
use spindle_analysis::findings::Guidance;
use spindle_analysis::findings::placement::{Recommendation, recommend};
use spindle_model::spec::JobSpec;
use spindle_plan::usage::UsageError;
use spindle_runner::experiment::Runner;
use spindle_runner::experiment::ab::{self, AbPlan, random_bit};
use spindle_runner::experiment::rounds::Side;
use spindle_runner::workload::io::{Files, IoJob};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The two layouts, planned before any I/O.
pub struct Layouts {
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
    one: JobSpec,
    two: JobSpec,
    warnings: Vec<String>,
    pub rounds: u32,
}

/// The layouts' answer: the comparison's group and its recommendation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Answer {
    pub data_dir: String,
    pub log_dir: String,
    pub group: Option<i64>,
    pub comparison: spindle_analysis::compare::Comparison,
    pub recommendation: Recommendation,
}

/// Rounds per battery: enough pairs for a paired test in the quick one, more as time allows.
fn rounds(budget: Budget) -> u32 {
    match budget {
        Budget::Quick => 3,
        Budget::Default => 5,
        Budget::Thorough => 8,
    }
}

pub fn plan(dirs: &[PathBuf], guidance: Guidance, sizing: &Sizing, budget: Budget) -> Result<Layouts, UsageError> {
    let (data_dir, log_dir) = (&dirs[0], &dirs[1]);
    let (one, mut warnings) = plan_layout(data_dir, data_dir, guidance, sizing)?;
    let (two, more) = plan_layout(data_dir, log_dir, guidance, sizing)?;
    warnings.extend(more.into_iter().filter(|w| !warnings.contains(w)).collect::<Vec<_>>());
    Ok(Layouts { data_dir: data_dir.clone(), log_dir: log_dir.clone(), one, two, warnings, rounds: rounds(budget) })
}

impl Layouts {
    /// The runs the rounds take: each layout's, every round.
    pub fn steps(&self) -> usize {
        2 * self.rounds as usize
    }

    /// How long the rounds measure (each side's run and warm-up, every round).
    pub fn takes(&self) -> Duration {
        Duration::from_nanos((self.one.duration_ns + self.one.warmup_ns) * 2 * u64::from(self.rounds))
    }

    /// The rounds, then the comparison read as a recommendation; `None` when no round finished.
    pub fn run(self, runner: &mut Runner<'_>, shared_device: Option<&str>) -> anyhow::Result<Option<Answer>> {
        let (data, log) = (self.data_dir.display().to_string(), self.log_dir.display().to_string());
        let layout = |v: &str| BTreeMap::from([("layout".to_string(), v.to_string())]);
        let plan = AbPlan {
            rounds: self.rounds,
            first: if random_bit() { Side::A } else { Side::B },
            points: vec![None],
            threshold_pct: DEFAULT_THRESHOLD_PCT,
            name: format!("check layouts {data} {log}"),
            names: [format!("data and log on {data}"), format!("data on {data}, log on {log}")],
            side_labels: [layout("one-volume"), layout("two-volumes")],
        };
        runner.files = Files::for_jobs([&self.one, &self.two]);
        let (mut a, mut b) = (IoJob::new(self.one, self.warnings.clone()), IoJob::new(self.two, self.warnings));
        let compared = ab::run(runner, [&mut a, &mut b], &plan)?;
        let Some(c) = compared.into_iter().next().filter(|c| !c.comparison.a_runs.is_empty()) else {
            return Ok(None);
        };
        let recommendation = recommend(&c.comparison, &log, shared_device, "--thorough");
        Ok(Some(Answer {
            data_dir: data,
            log_dir: log,
            group: runner.groups[c.group].id,
            comparison: c.comparison,
            recommendation,
        }))
    }
}
