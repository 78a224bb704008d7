//! `spindle import`: other tools' result files into the store. Every file is read and checked
//! before anything is saved, and all runs are saved in one transaction: a file that breaks
//! anywhere imports nothing, and says where it broke. Another tool's file is read again as its
//! runs are saved, a run at a time, so a file of thousands of runs is never held whole.

mod file;

use crate::Outcome;
use crate::args::ImportArgs;
use crate::output;
use crate::store;
use crate::usage::UsageError;
use file::{Checked, Runs};
use spindle_model::RunRecord;
use spindle_store::{Placement, Store, StoreError};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::ControlFlow;

/// Why nothing was saved.
enum Refused {
    /// The `n`th file is stored already, as these runs.
    Already(usize, Vec<i64>),
    /// A file could not be read again as it was read first.
    File(UsageError),
}

pub fn run(args: &ImportArgs) -> anyhow::Result<Outcome> {
    let labels = output::labels(&args.labels)?;
    let now = std::time::SystemTime::now();
    let mut checked: Vec<Checked> = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let file = file::check(path)?;
        if let Some(first) = checked.iter().find(|f| f.sha == file.sha) {
            return Err(UsageError::file(path, format_args!("the same bytes as {}, given twice", first.shown)).into());
        }
        checked.push(file);
    }
    let location = store::location(&args.store)?;
    let mut store = Store::open(&location)?;
    // Whether a file is stored already is asked in the save's own transaction: another
    // spindle importing the same file at the same moment must not save it a second time.
    let already = |store: &Store| -> Result<Option<Refused>, StoreError> {
        if args.again {
            return Ok(None);
        }
        for (i, file) in checked.iter().enumerate() {
            let mut ids = store.imported_from(&file.sha)?;
            if let Runs::Records(records) = &file.runs {
                for r in records {
                    ids.extend(store.same_runs(r)?);
                }
            }
            if !ids.is_empty() {
                return Ok(Some(Refused::Already(i, ids)));
            }
        }
        Ok(None)
    };
    // `--json` prints every record saved, so only then are they kept.
    let mut printed: Vec<RunRecord> = Vec::new();
    let saving =
        Saving { args, labels: &labels, now, checked: &checked, printed: args.print.json.then_some(&mut printed) };
    let ids = match store.save_new(already, |save| saving.save(save))? {
        Ok(ids) => ids,
        Err(Refused::File(e)) => return Err(e.into()),
        Err(Refused::Already(i, ids)) => {
            let list: Vec<String> = ids.iter().map(i64::to_string).collect();
            return Err(UsageError::file(
                &args.files[i],
                format_args!(
                    "already imported (runs {}); pass --again to import {} once more",
                    list.join(", "),
                    checked[i].shown
                ),
            )
            .into());
        }
    };
    if args.print.json {
        output::print(&printed, &crate::args::OutputArgs { json: true, ..Default::default() })?;
    } else {
        let mut out = String::new();
        let mut ids = ids.iter();
        for f in &checked {
            let mine: Vec<String> = ids.by_ref().take(f.count()).map(i64::to_string).collect();
            let version = f.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
            let runs = if mine.len() == 1 { "1 run".to_string() } else { format!("{} runs", mine.len()) };
            let saved = if mine.len() == 1 { "run" } else { "runs" };
            let _ = writeln!(out, "{}: {runs} from {}{version}, saved as {saved} {}", f.shown, f.tool, id_list(&mine));
        }
        let _ = writeln!(out, "store: {location}");
        output::write_text(out.as_bytes())?;
    }
    Ok(Outcome::Success)
}

/// The files' runs, saved in the store's transaction.
struct Saving<'a> {
    args: &'a ImportArgs,
    labels: &'a BTreeMap<String, String>,
    now: std::time::SystemTime,
    checked: &'a [Checked],
    printed: Option<&'a mut Vec<RunRecord>>,
}

type Save<'s> = dyn FnMut(&RunRecord, &Placement) -> Result<i64, StoreError> + 's;

impl Saving<'_> {
    fn save(mut self, save: &mut Save<'_>) -> Result<Result<(), Refused>, StoreError> {
        let (checked, args) = (self.checked, self.args);
        for (file, path) in checked.iter().zip(&args.files) {
            match &file.runs {
                Runs::Records(records) => {
                    for r in records {
                        let mut r = r.clone();
                        r.labels.extend(self.labels.clone());
                        self.keep(save, r)?;
                    }
                }
                Runs::Foreign(count) => {
                    if let Err(refused) = self.foreign(save, file, path, *count)? {
                        return Ok(Err(refused));
                    }
                }
            }
        }
        Ok(Ok(()))
    }

    /// Saves a run, and keeps it to be printed when it is.
    fn keep(&mut self, save: &mut Save<'_>, record: RunRecord) -> Result<(), StoreError> {
        save(&record, &Placement::default())?;
        if let Some(printed) = self.printed.as_mut() {
            printed.push(record);
        }
        Ok(())
    }

    /// Another tool's file read again, each run saved as it is read; refused when the file
    /// is no longer what was read first.
    fn foreign(
        &mut self,
        save: &mut Save<'_>,
        file: &Checked,
        path: &std::path::Path,
        count: usize,
    ) -> Result<Result<(), Refused>, StoreError> {
        let source = spindle_formats::foreign::record::Source {
            file: &file.shown,
            sha256: &file.sha,
            imported_at: self.now,
            file_time: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
        };
        // A spindle run keeps the command that measured it; a foreign one says it was imported.
        let command_line = output::command_line();
        let (mut n, mut failed) = (0, None);
        let read = file::read_foreign(path, |run| {
            n += 1;
            let mut r = spindle_formats::foreign::record::record_of(&run, n as u32, &source);
            r.labels.extend(self.labels.clone());
            r.command_line = command_line.clone();
            match self.keep(save, r) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        match read {
            Ok(sha) if sha == file.sha && n == count => Ok(Ok(())),
            Ok(_) => Ok(Err(Refused::File(UsageError::file(
                path,
                "changed while it was imported; nothing was imported: import it again once it is written",
            )))),
            Err(e) => Ok(Err(Refused::File(e))),
        }
    }
}

/// `5`, `5-7`: consecutive ids as a range.
fn id_list(ids: &[String]) -> String {
    match ids {
        [] => String::new(),
        [one] => one.clone(),
        [first, .., last] => format!("{first}-{last}"),
    }
}
