//! How a run ended and how a whole command ends, decided from typed facts (a worker that met
//! ENOSPC, an interrupt, a failed statement), never from the words of a warning.

/// How one measured run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Ran its course. `failed_operations`: some operations failed (I/O errors, failed calls,
    /// sectors that did not verify), counted in the record; the experiment goes on.
    Complete { failed_operations: bool },
    /// Stopped early by Ctrl-C; the figures cover what ran, and nothing runs after it.
    Interrupted,
    /// A target ran out of space; the figures cover the run until then.
    OutOfSpace,
    /// The work could not go on (a statement failed, a server went away): said once, and
    /// nothing runs after it.
    Failed(String),
}

impl RunEnd {
    /// Whether the steps after this one still run.
    pub fn goes_on(&self) -> bool {
        matches!(self, RunEnd::Complete { .. })
    }

    /// What this end makes of the command's outcome so far.
    pub fn outcome(&self) -> Outcome {
        match self {
            RunEnd::Complete { failed_operations: false } => Outcome::Success,
            RunEnd::Complete { failed_operations: true } | RunEnd::OutOfSpace | RunEnd::Failed(_) => {
                Outcome::OperationsFailed
            }
            RunEnd::Interrupted => Outcome::Interrupted,
        }
    }
}

/// How a command ended, when it did not fail outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// The run completed, but some operations failed.
    OperationsFailed,
    /// Stopped early (Ctrl-C); partial results were printed.
    Interrupted,
    /// Everything ran, and what it found includes a problem the user asked to fail on
    /// (`spindle check --strict`).
    Problems,
}

impl Outcome {
    /// The two together: an interruption is said above all (exit 130, as a shell expects of
    /// Ctrl-C), then failed operations, then success.
    pub fn and(self, other: Outcome) -> Outcome {
        match (self, other) {
            (Outcome::Interrupted, _) | (_, Outcome::Interrupted) => Outcome::Interrupted,
            (Outcome::OperationsFailed, _) | (_, Outcome::OperationsFailed) => Outcome::OperationsFailed,
            (Outcome::Problems, _) | (_, Outcome::Problems) => Outcome::Problems,
            _ => Outcome::Success,
        }
    }
}

/// Whether a step's error is a full filesystem, as the error's own type says: a verified
/// run's write state that could not be saved, a test file or a database's write that met
/// ENOSPC. The experiment then ends as a worker meeting ENOSPC ends it.
pub fn is_out_of_space(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let full = |io: &std::io::Error| matches!(io.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT));
        if let Some(run) = cause.downcast_ref::<spindle_io::run::RunError>() {
            run.is_out_of_space()
        } else if let Some(state) = cause.downcast_ref::<spindle_io::verify::state::StateError>() {
            state.is_out_of_space()
        } else if let Some(db) = cause.downcast_ref::<spindle_db::DbError>() {
            db.is_out_of_space()
        } else {
            cause.downcast_ref::<std::io::Error>().is_some_and(full)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interruption_is_said_above_failures() {
        assert_eq!(Outcome::OperationsFailed.and(Outcome::Interrupted), Outcome::Interrupted);
        assert_eq!(Outcome::OperationsFailed.and(Outcome::Success), Outcome::OperationsFailed);
        assert_eq!(Outcome::Success.and(Outcome::Interrupted), Outcome::Interrupted);
        assert_eq!(Outcome::Problems.and(Outcome::OperationsFailed), Outcome::OperationsFailed);
        assert_eq!(Outcome::Success.and(Outcome::Problems), Outcome::Problems);
        assert_eq!(RunEnd::OutOfSpace.outcome(), Outcome::OperationsFailed);
        assert!(!RunEnd::OutOfSpace.goes_on());
        assert!(RunEnd::Complete { failed_operations: true }.goes_on());
    }
}
