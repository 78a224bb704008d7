//! `spindle report`: stored runs, and the groups they were made in, written as files to hand
//! on. Every output is checked before the store is read, and each file appears whole or not
//! at all (written beside its place, then moved there).

use crate::Outcome;
use crate::args::ReportArgs;
use crate::selection;
use crate::store;
use crate::usage::UsageError;
use spindle_report::{Document, ExportError, Format, Heading, ReportGroup, ReportRun, RunSource};
use spindle_runner::saver::report_group;
use spindle_store::{Filter, Store, StoreError};
use std::path::{Path, PathBuf};

pub fn run(args: &ReportArgs) -> anyhow::Result<Outcome> {
    let outputs = outputs(args)?;
    let mut filter = selection::filter_of(&args.select, std::time::SystemTime::now())?;
    filter.ids = selection::parse_ids("report", &args.runs)?;
    let shown = store::location(&args.store)?;
    let Some(store) = store::open_existing(&args.store)? else {
        return Err(UsageError::file(shown.to_string(), "there is no results store here yet: nothing to report").into());
    };
    let title = args.title.clone().unwrap_or_else(|| "spindle report".into());
    let Some(runs) = StoredRuns::new(&store, filter, title)? else {
        return Err(UsageError::NoRuns { selection: selection_words(args) }.into());
    };
    let mut written: Vec<String> = Vec::new();
    for (path, format) in &outputs {
        let size = crate::output::write_whole_by(path, args.force, |out| format.exporter().write(&runs, out));
        let size = match size {
            Ok(size) => size,
            // The files before it stay written, and the message must not say otherwise.
            Err(e) if written.is_empty() => return Err(e.into()),
            Err(e) => return Err(anyhow::anyhow!("{e} ({} written before it)", written.join(", "))),
        };
        eprintln!("wrote {} ({} runs, {})", path.display(), runs.count(), size_words(size));
        written.push(path.display().to_string());
    }
    Ok(Outcome::Success)
}

/// The runs a filter selects, with the groups they were made in, as every exporter reads them
/// (`spindle report` and `spindle serve`'s downloads): read from the store one at a time, each
/// time the exporter reads them, so a report of any number of runs holds a few.
pub struct StoredRuns<'a> {
    store: &'a Store,
    filter: Filter,
    count: usize,
    title: String,
    generated_at: String,
    groups: Vec<ReportGroup>,
}

impl<'a> StoredRuns<'a> {
    /// `None` when no run matches.
    pub fn new(store: &'a Store, filter: Filter, title: String) -> Result<Option<StoredRuns<'a>>, StoreError> {
        let count = store.count(&filter)? as usize;
        if count == 0 {
            return Ok(None);
        }
        let groups = store.group_ids(&filter)?.into_iter().map(|id| store.group(id).map(report_group));
        let groups = groups.collect::<Result<Vec<_>, StoreError>>()?;
        let generated_at = spindle_model::time::rfc3339_utc(std::time::SystemTime::now());
        Ok(Some(StoredRuns { store, filter, count, title, generated_at, groups }))
    }
}

/// Why reading the runs stopped: the store, or the exporter writing them.
enum Stop {
    Store(StoreError),
    Export(ExportError),
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Stop {
        Stop::Store(e)
    }
}

impl RunSource for StoredRuns<'_> {
    fn heading(&self) -> Heading<'_> {
        Heading { title: &self.title, generated_at: &self.generated_at, groups: &self.groups }
    }

    fn count(&self) -> usize {
        self.count
    }

    fn each(&self, each: &mut dyn FnMut(&ReportRun) -> Result<(), ExportError>) -> Result<(), ExportError> {
        let read = self.store.each_run(&self.filter, |r| {
            let run = ReportRun {
                id: Some(r.summary.id),
                group: r.summary.group,
                point: r.summary.point,
                repeat: r.summary.repeat,
                record: r.record,
            };
            each(&run).map_err(Stop::Export)
        });
        match read {
            Ok(()) => Ok(()),
            Err(Stop::Export(e)) => Err(e),
            Err(Stop::Store(e)) => Err(ExportError(e.to_string())),
        }
    }
}

/// The runs `filter` selects with the groups they were made in, all in memory (a run's page:
/// one run); `None` when no run matches.
pub fn document(store: &Store, filter: &Filter) -> anyhow::Result<Option<Document>> {
    let runs = store.load_all(filter)?;
    if runs.is_empty() {
        return Ok(None);
    }
    let groups = store.group_ids(filter)?.into_iter().map(|id| store.group(id).map(report_group));
    let groups = groups.collect::<Result<Vec<_>, StoreError>>()?;
    let mut doc = store::document_of(runs);
    doc.groups = groups;
    Ok(Some(doc))
}

/// Each `-o` with its format, checked before anything is read: a format spindle writes, a
/// directory that exists, and a file that does not (unless `--force`, and then a regular one).
fn outputs(args: &ReportArgs) -> Result<Vec<(PathBuf, Format)>, UsageError> {
    const WRITES: &str = "html, xlsx, csv or md";
    let forced = match &args.format {
        Some(name) => Some(
            Format::parse(name)
                .filter(|f| *f != Format::Text && *f != Format::Json)
                .ok_or_else(|| UsageError::flag("--format", name, format_args!("write {WRITES}")))?,
        ),
        None => None,
    };
    let mut seen: Vec<&Path> = Vec::new();
    let store_files = store::files(Some(&args.store));
    args.outputs
        .iter()
        .map(|path| {
            let shown = path.display().to_string();
            let format = forced.or_else(|| Format::of_path(path).filter(|f| *f != Format::Text && *f != Format::Json));
            let format = format.ok_or_else(|| {
                UsageError::flag("-o", &shown, "name a file ending in .html, .xlsx, .csv or .md, or pass --format")
            })?;
            if seen.contains(&path.as_path()) {
                return Err(UsageError::flag("-o", &shown, "named twice"));
            }
            seen.push(path);
            let dir = parent_of(path);
            if !dir.is_dir() {
                return Err(UsageError::flag(
                    "-o",
                    &shown,
                    format_args!("the directory {} does not exist", dir.display()),
                ));
            }
            crate::output::check_output(path, &[])?;
            crate::output::refuse_store(path, &store_files, "-o")?;
            if !args.force && path.symlink_metadata().is_ok() {
                return Err(UsageError::flag("-o", &shown, "the file exists; pass --force to replace it"));
            }
            Ok((path.clone(), format))
        })
        .collect()
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn selection_words(args: &ReportArgs) -> String {
    let mut words: Vec<String> = args.runs.clone();
    words.extend(args.select.labels.iter().map(|l| format!("--label {l}")));
    for (flag, v) in [
        ("--kind", &args.select.kind),
        ("--status", &args.select.status),
        ("--since", &args.select.since),
        ("--until", &args.select.until),
        ("--group", &args.select.group),
    ] {
        if let Some(v) = v {
            words.push(format!("{flag} {v}"));
        }
    }
    if words.is_empty() { "the store".to_string() } else { words.join(" ") }
}

fn size_words(bytes: u64) -> String {
    spindle_model::units::format_bytes_approx(bytes)
}
