//! What a run's kind adds to its record: the job it ran, typed per kind, and the figures only
//! that kind has. One enum instead of optional fields beside each other, so a record cannot
//! carry a log test's figures on an I/O run, and the run's kind is read off its details
//! instead of being stored beside them where the two could disagree.

use crate::db::{LargeOpFigures, LogTestFigures};
use crate::db_spec::{HammerSpec, LargeOpSpec, LoadSpec, LogTestSpec};
use crate::kind::{ImportedSpec, Origin, RunKind};
use crate::spec::JobSpec;
use crate::verify::VerifySummary;
use serde::{Deserialize, Serialize};

/// In JSON, an object whose `kind` names the variant (`io`, `imported`, `hammer`,
/// `hammer-load`, `logtest`, `largeops`) beside the variant's fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum KindData {
    /// spindle's own I/O run (`io`, `suite`, `ab`): the resolved job, and what `--verify`
    /// found in the data read back.
    #[serde(rename = "io")]
    Io {
        spec: JobSpec,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        verify: Option<VerifySummary>,
    },
    /// An I/O run read from another tool's result file (`spindle import`): the tool and file,
    /// and the job as far as the file says.
    #[serde(rename = "imported")]
    Imported { origin: Origin, spec: ImportedSpec },
    /// Database Hammer's calls (`hammer run`).
    #[serde(rename = "hammer")]
    Hammer { spec: HammerSpec },
    /// Database Hammer's table loaded (`hammer load`).
    #[serde(rename = "hammer-load")]
    HammerLoad { spec: LoadSpec },
    /// One transaction size of the log test, with the original article's `io_results` row.
    #[serde(rename = "logtest")]
    LogTest { spec: LogTestSpec, figures: LogTestFigures },
    /// One large operation, with the time and I/O sizes the article compares.
    #[serde(rename = "largeops")]
    LargeOps { spec: LargeOpSpec, figures: LargeOpFigures },
}

impl KindData {
    /// The command that made the run; an imported run is an I/O run.
    pub fn kind(&self) -> RunKind {
        match self {
            KindData::Io { .. } | KindData::Imported { .. } => RunKind::Io,
            KindData::Hammer { .. } => RunKind::Hammer,
            KindData::HammerLoad { .. } => RunKind::HammerLoad,
            KindData::LogTest { .. } => RunKind::LogTest,
            KindData::LargeOps { .. } => RunKind::LargeOps,
        }
    }

    /// The engine the run ran on: spindle's I/O engine, the database engine, or the imported
    /// tool's engine when its file names one.
    pub fn engine(&self) -> Option<&str> {
        match self {
            KindData::Io { spec, .. } => Some(spec.engine.name()),
            KindData::Imported { spec, .. } => spec.engine.as_deref(),
            KindData::Hammer { spec } => Some(&spec.engine),
            KindData::HammerLoad { spec } => Some(&spec.engine),
            KindData::LogTest { spec, .. } => Some(&spec.engine),
            KindData::LargeOps { spec, .. } => Some(&spec.engine),
        }
    }

    /// The job spindle ran (its own I/O runs only).
    pub fn job(&self) -> Option<&JobSpec> {
        match self {
            KindData::Io { spec, .. } => Some(spec),
            _ => None,
        }
    }

    /// What `--verify` found (I/O runs under `--verify` only).
    pub fn verify(&self) -> Option<&VerifySummary> {
        match self {
            KindData::Io { verify, .. } => verify.as_ref(),
            _ => None,
        }
    }

    /// The tool and file an imported run came from.
    pub fn origin(&self) -> Option<&Origin> {
        match self {
            KindData::Imported { origin, .. } => Some(origin),
            _ => None,
        }
    }

    pub fn imported_spec(&self) -> Option<&ImportedSpec> {
        match self {
            KindData::Imported { spec, .. } => Some(spec),
            _ => None,
        }
    }

    pub fn log_test(&self) -> Option<&LogTestFigures> {
        match self {
            KindData::LogTest { figures, .. } => Some(figures),
            _ => None,
        }
    }

    pub fn large_op(&self) -> Option<&LargeOpFigures> {
        match self {
            KindData::LargeOps { figures, .. } => Some(figures),
            _ => None,
        }
    }

    /// The spec alone as JSON, for what compares settings key by key (which settings two runs
    /// differ in) and for showing it as written.
    pub fn spec_json(&self) -> serde_json::Value {
        let spec = match self {
            KindData::Io { spec, .. } => serde_json::to_value(spec),
            KindData::Imported { spec, .. } => serde_json::to_value(spec),
            KindData::Hammer { spec } => serde_json::to_value(spec),
            KindData::HammerLoad { spec } => serde_json::to_value(spec),
            KindData::LogTest { spec, .. } => serde_json::to_value(spec),
            KindData::LargeOps { spec, .. } => serde_json::to_value(spec),
        };
        // Plain structs of numbers, strings and maps of strings: serializing them cannot fail.
        spec.unwrap_or_default()
    }
}
