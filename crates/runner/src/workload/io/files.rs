//! Test files, prepared once for every I/O job of an experiment before any measurement (a path
//! two jobs share is created once, for writing if either writes), and removed at the end
//! unless kept; never anything spindle did not create.

use crate::observer::Observer;
use anyhow::Context;
use spindle_io::target::{PrepareOptions, PreparedTarget, TargetKind};
use spindle_model::spec::{EngineKind, JobSpec};
use spindle_model::units::format_size;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

#[derive(Default)]
pub struct Files {
    prepared: Vec<PreparedTarget>,
    /// Each path prepared, with its size (a device's is its own).
    sizes: Vec<(PathBuf, u64)>,
    /// What the experiment's jobs ask of each path, all of them together: writes, direct I/O.
    needs: Vec<(PathBuf, Needs)>,
    keep: bool,
}

#[derive(Clone, Copy, Default)]
struct Needs {
    writes: bool,
    direct: bool,
}

impl Files {
    /// Files for `jobs`, all of them: a file is prepared for writing (and direct I/O) when any
    /// job needs it so.
    pub fn for_jobs<'j>(jobs: impl IntoIterator<Item = &'j JobSpec>) -> Files {
        let jobs: Vec<&JobSpec> = jobs.into_iter().collect();
        let mut files = Files { keep: jobs.first().is_some_and(|j| j.keep_file), ..Files::default() };
        for job in jobs {
            for t in &job.targets {
                let need = Needs { writes: t.workload.writes(), direct: !t.workload.buffered };
                match files.needs.iter_mut().find(|(p, _)| p == &t.path) {
                    Some((_, n)) => *n = Needs { writes: n.writes || need.writes, direct: n.direct || need.direct },
                    None => files.needs.push((t.path.clone(), need)),
                }
            }
        }
        files
    }

    /// Creates or checks `job`'s targets that are not prepared yet, and gives the job each
    /// target's prepared size; the warnings found on the way (said as they arise). On failure,
    /// targets already prepared are cleaned up before the error is returned.
    pub fn prepare(
        &mut self,
        job: &mut JobSpec,
        observer: &dyn Observer,
        stop: &AtomicBool,
    ) -> anyhow::Result<Vec<String>> {
        let mut warnings = Vec::new();
        if job.engine == EngineKind::Null {
            return Ok(warnings);
        }
        for target in &job.targets {
            if self.sizes.iter().any(|(p, _)| p == &target.path) {
                continue;
            }
            // The target's own needs, with every other job's on the same path.
            let others = self.needs.iter().find(|(p, _)| p == &target.path).map_or(Needs::default(), |(_, n)| *n);
            let options = PrepareOptions {
                force: job.force,
                allow_destroy: job.allow_destroy,
                writes: others.writes || target.workload.writes(),
                direct: others.direct || !target.workload.buffered,
            };
            let shown = target.path.display().to_string();
            let result = spindle_io::target::prepare(
                &target.path,
                target.size,
                &options,
                &mut |done, total| observer.fill(&format!("creating {shown}"), done, total),
                stop,
            );
            observer.finish_line();
            match result {
                Ok(p) => {
                    if p.kind == TargetKind::ReusedTestFile {
                        observer.note(&format!("reusing test file {shown} ({})", format_size(p.size)));
                    }
                    for w in &p.warnings {
                        observer.warn(w);
                    }
                    warnings.extend(p.warnings.iter().cloned());
                    self.sizes.push((target.path.clone(), p.size));
                    self.prepared.push(p);
                }
                Err(e) => {
                    let _ = self.finish();
                    return Err(e.into());
                }
            }
        }
        for t in &mut job.targets {
            if let Some((_, size)) = self.sizes.iter().find(|(p, _)| p == &t.path) {
                t.size = *size;
            }
        }
        Ok(warnings)
    }

    /// Removes the test files this experiment created (unless kept); never anything else.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        for p in self.prepared.drain(..) {
            let path = p.path.clone();
            let removed = !self.keep && matches!(p.kind, TargetKind::CreatedTestFile | TargetKind::ReusedTestFile);
            p.finish(self.keep).with_context(|| format!("cannot remove test file {}", path.display()))?;
            if removed {
                // A verified run's write state goes with the file it describes.
                spindle_io::verify::state::remove_for(&path)?;
            }
        }
        Ok(())
    }
}
