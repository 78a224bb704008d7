//! Flags and spec files become one validated `JobSpec` here, before any I/O happens. Every
//! value carries its origin (`--read`, or `FILE line N (read)`) so a mistake is named exactly
//! where the user made it.

mod counts;
mod database;
pub mod database_url;
mod input;
pub mod input_file;
mod layer;
pub mod machine;
pub mod managed;
pub mod output_file;
pub mod profiles;
mod spec_file;
mod sweep;
mod target;
mod utf16;
mod values;

// Where a setting came from and the mistakes naming it are model's (every library names its
// users' mistakes the same way); planning speaks of them most.
pub use spindle_model::{origin, usage};

use crate::origin::{Origin, Setting};
use crate::usage::UsageError;
pub use counts::{row_list_of, rows_of};
pub use database::{DatabaseSide, DbTarget, DbWorkload, MAX_CUSTOMERS, plan_database, sessions_of};
pub use input::PlanInput;
use layer::Layer;
pub use spec_file::SpecFile;
use spindle_model::spec::{EngineKind, JobSpec, TargetSpec};
use spindle_model::units::{format_bytes_approx, format_size};
use std::path::{Path, PathBuf};
use target::{TargetDraft, resolve_target};
use values::{bad, duration_of, flag_of};

/// What the plan needs to know about the machine; separate so tests can pin it.
pub trait Machine {
    /// The device name and logical block size under `path`, when known.
    fn logical_block(&self, path: &Path) -> Option<(String, u64)>;
    fn memory_bytes(&self) -> u64;
    /// What `threads = "cpus"` means.
    fn logical_cpus(&self) -> u32;
    /// `Err(reason)` when io_uring cannot be used here.
    fn uring_available(&self) -> Result<(), String>;
    /// Whether the targets' paths are on this machine, so their directories can be checked
    /// here (not so for agents on other hosts).
    fn sees_targets(&self) -> bool {
        true
    }
}

/// Validated jobs plus what the user should be told about them.
pub struct IoPlan {
    /// One job, or one per sweep point and repeat, in the order they run.
    pub jobs: Vec<PlannedJob>,
    pub warnings: Vec<String>,
    /// The sweep, when `--sweep` was given.
    pub sweep: Option<Sweep>,
    pub repeats: u32,
    /// `--expect`: what the runs should deliver.
    pub expected: Option<spindle_model::expected::Expected>,
}

pub use sweep::Sweep;

/// One job of a plan and where it sits among the others.
pub struct PlannedJob {
    pub job: JobSpec,
    /// Index into the sweep's points.
    pub point: Option<usize>,
    /// 1-based.
    pub repeat: u32,
}

/// A counter sampling interval (`--sample-interval`, `--interval`): 1 s unless given;
/// between 100 ms and 1 h.
pub fn interval_of(flag: &'static str, text: &Option<String>) -> Result<std::time::Duration, UsageError> {
    let Some(text) = text else { return Ok(std::time::Duration::from_secs(1)) };
    let setting = Setting { text: text.clone(), origin: Origin::Flag(flag) };
    let ns = duration_of(&setting)?;
    if !(100_000_000..=3_600_000_000_000).contains(&ns) {
        return Err(bad(&setting.origin, text, "the interval must be between 100ms and 1h"));
    }
    Ok(std::time::Duration::from_nanos(ns))
}

/// An optional duration flag (`spindle record --duration`, `hammer run --warmup`), at least
/// `min`.
pub fn optional_duration_of(
    flag: &'static str,
    text: &Option<String>,
    min: std::time::Duration,
) -> Result<Option<std::time::Duration>, UsageError> {
    let Some(text) = text else { return Ok(None) };
    let setting = Setting { text: text.clone(), origin: Origin::Flag(flag) };
    let d = std::time::Duration::from_nanos(duration_of(&setting)?);
    if d < min {
        return Err(bad(&setting.origin, text, format!("the duration must be at least {min:?}")));
    }
    Ok(Some(d))
}

/// At most this many repeats; more is a typo.
const MAX_REPEATS: u64 = 1000;

/// `--repeat N`, 1 when absent.
pub fn repeats_of(text: &Option<String>) -> Result<u32, UsageError> {
    let Some(text) = text else { return Ok(1) };
    let setting = Setting { text: text.clone(), origin: Origin::Flag("--repeat") };
    Ok(values::count_of(&setting, 1, MAX_REPEATS, "the number of repeats")? as u32)
}

pub fn plan_io(args: &PlanInput, machine: &dyn Machine) -> Result<IoPlan, UsageError> {
    let file = args.spec.as_deref().map(SpecFile::load).transpose()?;
    plan_with_file(args, file, machine)
}

/// [`plan_io`] with the spec file (if any) already read.
pub fn plan_with_file(args: &PlanInput, file: Option<SpecFile>, machine: &dyn Machine) -> Result<IoPlan, UsageError> {
    let sweep = args.sweep.as_deref().map(sweep::parse_sweep).transpose()?;
    let repeats = repeats_of(&args.repeat)?;
    let expected = args
        .expect
        .as_deref()
        .map(|text| spindle_model::expected::parse(text).map_err(|e| UsageError::flag("--expect", text, e)))
        .transpose()?;
    // A profile given as a flag sits just under the flags: `--profile X --depth 32` changes
    // only the depth.
    let flags = match &args.profile {
        Some(p) => Layer::from_input(args).over(&Layer::from_profile(&p.text, &p.origin)?),
        None => Layer::from_input(args),
    };
    let (drafts, job_settings) = match &file {
        Some(file) => file_drafts(args, file, &flags)?,
        None => (flag_drafts(args, &flags)?, JobSettings::from_input(args)),
    };
    let mut warnings = Vec::new();
    let (engine, fell_back) = engine_of(&job_settings, machine, &mut warnings)?;
    let resolved = Resolved { engine, fell_back, machine, file: file.as_ref() };
    let point_targets = resolved.points(&drafts, sweep.as_ref(), &mut warnings)?;
    warnings.dedup();

    let duration_ns = match &job_settings.duration {
        Some(s) => duration_of(s)?,
        None => 30_000_000_000,
    };
    if duration_ns < 1_000_000 {
        let s = job_settings.duration.as_ref().expect("a short duration was given");
        return Err(bad(&s.origin, &s.text, "the duration must be at least 1ms"));
    }
    let warmup_ns = job_settings.warmup.as_ref().map(duration_of).transpose()?.unwrap_or(0);
    let keep_file = args.keep_file || job_settings.keep_file.as_ref().map(flag_of).transpose()?.unwrap_or(false);
    let verify = match &job_settings.verify {
        _ if args.verify => Some(Origin::Flag("--verify")),
        Some(s) if flag_of(s)? => Some(s.origin.clone()),
        _ => None,
    };
    if let Some(origin) = &verify {
        check_verify(engine, &point_targets, origin, machine)?;
    }
    let job = |targets: &Vec<TargetSpec>| JobSpec {
        engine,
        duration_ns,
        warmup_ns,
        targets: targets.clone(),
        keep_file,
        force: args.force,
        allow_destroy: args.allow_destroy,
        verify: verify.is_some(),
    };
    // Repeats go round the whole sweep, so slow drift (a warming cache, a filling SSD) spreads
    // over every point instead of favouring the first.
    let jobs = (1..=repeats)
        .flat_map(|repeat| point_targets.iter().enumerate().map(move |(i, targets)| (repeat, i, targets)))
        .map(|(repeat, i, targets)| PlannedJob { job: job(targets), point: sweep.as_ref().map(|_| i), repeat })
        .collect();
    Ok(IoPlan { jobs, warnings, sweep, repeats, expected })
}

/// The targets given as `--target` flags, each with the flags' settings.
fn flag_drafts(args: &PlanInput, flags: &Layer) -> Result<Vec<TargetDraft>, UsageError> {
    if args.targets.is_empty() {
        return Err(UsageError::request("no target: pass --target PATH (repeatable) or --spec FILE.toml"));
    }
    Ok(args
        .targets
        .iter()
        .map(|path| TargetDraft { path: path.clone(), origin: Origin::Flag("--target"), layer: flags.clone() })
        .collect())
}

/// The spec file's `[[target]]`s, each its own keys over its profile over the flags over the
/// file's `[defaults]`, and the job's settings, the flags' over the file's.
fn file_drafts(
    args: &PlanInput,
    file: &SpecFile,
    flags: &Layer,
) -> Result<(Vec<TargetDraft>, JobSettings), UsageError> {
    if !args.targets.is_empty() {
        return Err(UsageError::request(format!(
            "--target cannot be combined with --spec: list targets as [[target]] tables in {}",
            file.path.display()
        )));
    }
    let defaults = match &file.spec.defaults {
        Some(d) => {
            if let Some(p) = &d.path {
                let origin = file.origin("path", p.span().start);
                return Err(UsageError::at(origin, "a path belongs in a [[target]] table, not in [defaults]"));
            }
            if let Some(p) = &d.profile {
                let origin = file.origin("profile", p.span().start);
                return Err(UsageError::at(
                    origin,
                    "a profile belongs in a [[target]] table (or pass --profile), not in [defaults]",
                ));
            }
            Layer::from_file(file, d)
        }
        None => Layer::default(),
    };
    let base = flags.clone().over(&defaults);
    if file.spec.database.is_some() {
        return Err(UsageError::file(
            &file.path,
            "this file runs a [database] workload: run it with spindle ab (two such files against each other)",
        ));
    }
    if file.spec.target.is_empty() {
        return Err(UsageError::file(&file.path, "the spec file has no [[target]] table"));
    }
    let mut drafts = Vec::new();
    for t in &file.spec.target {
        let Some(path) = &t.path else {
            let line = t.size.as_ref().map(|s| s.span().start).unwrap_or(0);
            return Err(UsageError::at(file.origin("target", line), "this [[target]] has no path"));
        };
        // A target's own profile is part of the target: above the flags, under its keys.
        let under = match &t.profile {
            Some(p) => Layer::from_profile(p.get_ref(), &file.origin("profile", p.span().start))?.over(&base),
            None => base.clone(),
        };
        drafts.push(TargetDraft {
            path: PathBuf::from(path.get_ref()),
            origin: file.origin("path", path.span().start),
            layer: Layer::from_file(file, t).over(&under),
        });
    }
    Ok((drafts, JobSettings::from_input(args).over(JobSettings::from_file(file))))
}

/// The engine asked for (io_uring when none was), and whether this machine made it fall back
/// to the sync engine.
fn engine_of(
    job_settings: &JobSettings,
    machine: &dyn Machine,
    warnings: &mut Vec<String>,
) -> Result<(EngineKind, bool), UsageError> {
    let engine = match &job_settings.engine {
        Some(s) => EngineKind::from_name(s.text.trim()).ok_or_else(|| {
            let names: Vec<_> = EngineKind::ALL.iter().map(|e| e.name()).collect();
            bad(&s.origin, &s.text, format!("unknown engine; valid engines: {}", names.join(", ")))
        })?,
        None => EngineKind::Uring,
    };
    if engine == EngineKind::Uring
        && let Err(reason) = machine.uring_available()
    {
        warnings
            .push(format!("io_uring is not available ({reason}): using the sync engine, one I/O in flight per thread"));
        return Ok((EngineKind::Sync, true));
    }
    Ok((engine, false))
}

/// What every target of a job is resolved against.
struct Resolved<'a> {
    engine: EngineKind,
    fell_back: bool,
    machine: &'a dyn Machine,
    file: Option<&'a SpecFile>,
}

impl Resolved<'_> {
    /// Each sweep point's targets (one point without a sweep), every one resolved and checked.
    fn points(
        &self,
        drafts: &[TargetDraft],
        sweep: Option<&Sweep>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Vec<TargetSpec>>, UsageError> {
        // A swept setting overrides every layer, the target's own keys included: it is what the
        // user asked to vary.
        let overrides: Vec<Option<Layer>> = match sweep {
            Some(sw) => sw.points.iter().map(|p| Some(Layer::swept(sw.param, p.clone()))).collect(),
            None => vec![None],
        };
        overrides.iter().map(|over| self.point(drafts, over.as_ref(), warnings)).collect()
    }

    fn point(
        &self,
        drafts: &[TargetDraft],
        over: Option<&Layer>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<TargetSpec>, UsageError> {
        let mut targets = Vec::new();
        let mut seen = std::collections::HashMap::new();
        for draft in drafts {
            let draft = TargetDraft {
                path: draft.path.clone(),
                origin: draft.origin.clone(),
                layer: match over {
                    Some(o) => o.clone().over(&draft.layer),
                    None => draft.layer.clone(),
                },
            };
            let target = resolve_target(draft, self.engine, self.fell_back, self.machine, warnings)?;
            if let Some(earlier) = seen.insert(file_identity(&target.path), target.path.clone()) {
                let within = self.file.map(|f| format!(" in {}", f.path.display())).unwrap_or_default();
                let how = if earlier == target.path {
                    format!("target {} is listed twice{within}", target.path.display())
                } else {
                    format!(
                        "targets {} and {} are one file, listed twice{within}",
                        earlier.display(),
                        target.path.display()
                    )
                };
                return Err(UsageError::request(how));
            }
            targets.push(target);
        }
        check_buffer_memory(&targets, self.file.map(|f| f.path.as_path()), self.machine)?;
        Ok(targets)
    }
}

/// Every worker's buffers are allocated up front; refuse a job that would crowd out the
/// machine rather than let it swap and measure the swap.
/// What makes two target paths one file: the device and inode of an existing file (a link
/// to it, or another spelling of its path, is the same file); for a file still to be made,
/// its absolute path.
#[derive(PartialEq, Eq, Hash)]
enum FileIdentity {
    Inode(u64, u64),
    Path(std::path::PathBuf),
}

fn file_identity(path: &std::path::Path) -> FileIdentity {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => FileIdentity::Inode(m.dev(), m.ino()),
        Err(_) => FileIdentity::Path(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
    }
}

/// The targets' I/O buffers must fit in a quarter of memory; `spec` is the spec file the
/// targets came from, named in the refusal since the values to lower may be there.
fn check_buffer_memory(targets: &[TargetSpec], spec: Option<&Path>, machine: &dyn Machine) -> Result<(), UsageError> {
    let buffer_bytes: u64 =
        targets.iter().map(|t| t.workload.threads as u64 * t.workload.depth as u64 * t.workload.largest_block()).sum();
    if buffer_bytes > machine.memory_bytes() / 4 {
        let lower = match spec {
            Some(path) => format!(
                "lower threads, depth or block (or mix) in {}, or give --threads, --depth or --block",
                path.display()
            ),
            None => "lower --threads, --depth or --block".to_string(),
        };
        return Err(UsageError::request(format!(
            "threads x depth x block needs {} of I/O buffers, more than a quarter of this machine's memory ({}); {lower}",
            format_bytes_approx(buffer_bytes),
            format_bytes_approx(machine.memory_bytes())
        )));
    }
    Ok(())
}

/// `--verify` (or `verify = true`) needs data read back, sector-sized blocks, and a
/// generation map of every target in memory.
fn check_verify(
    engine: EngineKind,
    point_targets: &[Vec<TargetSpec>],
    origin: &Origin,
    machine: &dyn Machine,
) -> Result<(), UsageError> {
    use spindle_io::verify::{map::GenerationMap, stamp::SECTOR};
    if engine == EngineKind::Null {
        return Err(UsageError::at(
            origin.clone(),
            "the null engine reads nothing back to check: verify with the uring or sync engine",
        ));
    }
    let targets = point_targets.iter().flatten();
    if let Some(block) = targets.clone().flat_map(|t| &t.workload.mix).map(|m| m.block).find(|b| b % SECTOR as u64 != 0)
    {
        return Err(UsageError::at(
            origin.clone(),
            format!("verification stamps 512-byte sectors: block size {} is not a multiple of 512", format_size(block)),
        ));
    }
    let map_bytes: u64 =
        targets.map(|t| GenerationMap::bytes_for(t.size, t.workload.block_granule())).max().unwrap_or(0);
    if map_bytes > machine.memory_bytes() / 4 {
        return Err(UsageError::at(
            origin.clone(),
            format!(
                "verification keeps 4 bytes per block of the target, {} here, more than a quarter of this machine's memory; verify a smaller --size or larger blocks",
                format_bytes_approx(map_bytes)
            ),
        ));
    }
    Ok(())
}

/// Job-wide settings (not per target), flags over file.
#[derive(Default)]
struct JobSettings {
    engine: Option<Setting>,
    duration: Option<Setting>,
    warmup: Option<Setting>,
    keep_file: Option<Setting>,
    verify: Option<Setting>,
}

impl JobSettings {
    fn from_input(input: &PlanInput) -> JobSettings {
        JobSettings {
            engine: input.get("engine").cloned(),
            duration: input.get("duration").cloned(),
            warmup: input.get("warmup").cloned(),
            keep_file: None,
            verify: None,
        }
    }

    fn from_file(file: &SpecFile) -> JobSettings {
        JobSettings {
            engine: file.setting("engine", &file.spec.engine),
            duration: file.setting("duration", &file.spec.duration),
            warmup: file.setting("warmup", &file.spec.warmup),
            keep_file: file.setting("keep_file", &file.spec.keep_file),
            verify: file.setting("verify", &file.spec.verify),
        }
    }

    fn over(self, under: JobSettings) -> JobSettings {
        JobSettings {
            engine: self.engine.or(under.engine),
            duration: self.duration.or(under.duration),
            warmup: self.warmup.or(under.warmup),
            keep_file: self.keep_file.or(under.keep_file),
            verify: self.verify.or(under.verify),
        }
    }
}
