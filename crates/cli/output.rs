//! Writes results to stdout in the format asked for; the exporters themselves are pure.

use crate::args::OutputArgs;
use anyhow::Context;
use spindle_model::RunRecord;
use spindle_report::{Document, Format};
use std::io::Write;

impl OutputArgs {
    /// The format asked for, chosen once; `None` under `--quiet`.
    pub fn format(&self) -> Option<Format> {
        if self.json {
            Some(Format::Json)
        } else if self.csv {
            Some(Format::Csv)
        } else if self.quiet {
            None
        } else {
            Some(Format::Text)
        }
    }
}

pub fn print(records: &[RunRecord], output: &OutputArgs) -> anyhow::Result<()> {
    print_document(&Document::of_records(records), output)
}

/// Runs with their places in the store (ids, group, point), as saved.
pub fn print_document(doc: &Document, output: &OutputArgs) -> anyhow::Result<()> {
    let Some(format) = output.format() else { return Ok(()) };
    if format == spindle_report::Format::Json {
        // Streamed, never held whole: a thousand Hammer sessions' record is 8 MB of text.
        let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
        return spindle_report::write_json(doc, &mut stdout)
            .map_err(|e| std::io::Error::other(e.0))
            .and_then(|()| stdout.flush())
            .context("cannot write results to stdout");
    }
    let bytes = format.exporter().export(doc)?;
    if format == spindle_report::Format::Text { write_report(&bytes) } else { write_stdout(&bytes) }
}

/// A text report to stdout: on a terminal, its verdicts coloured (`style`); anywhere else, as
/// is. Either way its control characters are escaped, as `write_text` does.
pub fn write_report(bytes: &[u8]) -> anyhow::Result<()> {
    let text = String::from_utf8_lossy(bytes);
    let text = crate::style::printable(&text);
    if crate::style::enabled(crate::style::Stream::Stdout) {
        // Coloured after it is escaped: the colours are spindle's own escapes.
        write_stdout(crate::style::verdicts(&text).as_bytes())
    } else {
        write_stdout(text.as_bytes())
    }
}

/// Text for people (tables, summaries) to stdout, its control characters escaped
/// (`style::printable`): labels and imported fields reach the terminal as text, never as
/// escape sequences.
pub fn write_text(bytes: &[u8]) -> anyhow::Result<()> {
    write_stdout(crate::style::printable(&String::from_utf8_lossy(bytes)).as_bytes())
}

/// Bytes to stdout exactly: JSON (which escapes control characters itself), CSV, scripts, and
/// text already made printable.
pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes).context("cannot write results to stdout")?;
    stdout.flush().context("cannot write results to stdout")
}

/// `--label key=value` pairs; a malformed one names itself.
pub fn labels(raw: &[String]) -> Result<std::collections::BTreeMap<String, String>, crate::usage::UsageError> {
    raw.iter().map(|item| crate::selection::parse_label("--label", item)).collect()
}

/// The command line as recorded: values of password-like flags replaced.
pub fn command_line() -> Vec<String> {
    // Arguments are OS strings: a path need not be UTF-8, and one that is not must not cost
    // the run (it is recorded with U+FFFD where its bytes were not text).
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    crate::secrets::masked(&args)
}

// Output paths are checked where every plan is made.
pub use spindle_plan::output_file::{check_output, refuse_store};

/// Refuses jobs any of whose targets (a `--target`, or a workload file's) is the results
/// store or a file beside it.
pub fn refuse_store_targets<'a>(
    jobs: impl IntoIterator<Item = &'a spindle_model::spec::JobSpec>,
    store: &[std::path::PathBuf],
) -> Result<(), crate::usage::UsageError> {
    jobs.into_iter().flat_map(|j| &j.targets).try_for_each(|t| refuse_store(&t.path, store, "--target"))
}

/// Writes `bytes` to a new file beside `path`, then moves it into place: a reader never sees
/// half a file, and a failed write (a full file system) leaves nothing behind. Without
/// `force`, an existing file is never replaced, even one that appeared since it was checked.
pub fn write_whole(path: &std::path::Path, bytes: &[u8], force: bool) -> Result<(), crate::usage::UsageError> {
    write_whole_by(path, force, |out| out.write_all(bytes)).map(|_| ())
}

/// As `write_whole`, the file's bytes written by `write` as they are made (a report read from
/// the store run by run); returns how many there were.
pub fn write_whole_by<E: std::fmt::Display>(
    path: &std::path::Path,
    force: bool,
    write: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<u64, crate::usage::UsageError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.spindle-{}.tmp", std::process::id()));
    let refused = |why: String| crate::usage::UsageError::flag("-o", path.display().to_string(), why);
    let filled = std::fs::File::create(&temp).map_err(|e| e.to_string()).and_then(|file| {
        let mut out = std::io::BufWriter::new(file);
        write(&mut out).map_err(|e| e.to_string())?;
        let file = out.into_inner().map_err(|e| e.error().to_string())?;
        file.metadata().map(|m| m.len()).map_err(|e| e.to_string())
    });
    let size = match filled {
        Ok(size) => size,
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            return Err(refused(format!("cannot write it ({e}); no part of it was written")));
        }
    };
    // Checked again just before the move: a device or FIFO may have appeared since the
    // command's first check, and the rename would replace it.
    if let Err(e) = spindle_plan::output_file::existing_regular(path) {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    let moved = if force {
        std::fs::rename(&temp, path)
    } else {
        std::fs::hard_link(&temp, path).and_then(|()| std::fs::remove_file(&temp))
    };
    moved.map(|()| size).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        refused(match e.kind() {
            std::io::ErrorKind::AlreadyExists => "the file exists; pass --force to replace it".to_string(),
            _ => format!("cannot write it ({e}); no part of it was written"),
        })
    })
}

/// Creates a file the user named with `-o`: never over an existing file unless `force`.
pub fn create_new_file(path: &std::path::Path, force: bool) -> Result<std::fs::File, crate::usage::UsageError> {
    spindle_plan::output_file::existing_regular(path)?;
    let shown = path.display();
    let mut open = std::fs::OpenOptions::new();
    open.write(true);
    if force {
        open.create(true).truncate(true);
    } else {
        open.create_new(true);
    }
    open.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            crate::usage::UsageError::flag("-o", shown.to_string(), "the file exists; pass --force to replace it")
        }
        _ => crate::usage::UsageError::flag("-o", shown.to_string(), format_args!("cannot create it: {e}")),
    })
}

/// A directory a flag named, made with its parents when it did not exist yet (`mkdir -p`), so
/// a command asked to write into a new place does not stop at "not a directory".
pub struct MadeDir {
    dir: std::path::PathBuf,
    /// The first of the directories that was new: what `undo` takes back, up to and with it.
    top: Option<std::path::PathBuf>,
}

/// `dir` as a directory: as it is, or made with its parents; anything else at that path (a
/// file, a dangling symbolic link) is refused, named by `flag`.
pub fn make_dir(flag: &'static str, dir: &std::path::Path) -> Result<MadeDir, crate::usage::UsageError> {
    let made = |top| MadeDir { dir: dir.to_path_buf(), top };
    if dir.is_dir() {
        return Ok(made(None));
    }
    let shown = dir.display().to_string();
    if dir.symlink_metadata().is_ok() {
        return Err(crate::usage::UsageError::flag(flag, shown, "not a directory"));
    }
    let top = dir.ancestors().take_while(|a| !a.as_os_str().is_empty() && a.symlink_metadata().is_err()).last();
    std::fs::create_dir_all(dir)
        .map_err(|e| crate::usage::UsageError::flag(flag, shown, format_args!("cannot create the directory: {e}")))?;
    Ok(made(top.map(std::path::Path::to_path_buf)))
}

impl MadeDir {
    /// Whether the directory was made just now.
    pub fn is_new(&self) -> bool {
        self.top.is_some()
    }

    /// Removes the directories `make_dir` made, deepest first, while they are empty: a command
    /// that refuses to run leaves nothing behind.
    pub fn undo(&self) {
        let Some(top) = &self.top else { return };
        for d in self.dir.ancestors() {
            if std::fs::remove_dir(d).is_err() || d == top {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::make_dir;

    #[test]
    fn a_missing_directory_is_made_with_its_parents_and_taken_back_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/c");
        let made = make_dir("--dir", &dir).unwrap();
        assert!(made.is_new() && dir.is_dir());
        made.undo();
        assert!(!tmp.path().join("a").exists(), "every directory it made is gone");
        assert!(tmp.path().is_dir(), "and nothing that was there before");

        let there = make_dir("--dir", tmp.path()).unwrap();
        assert!(!there.is_new());
        there.undo();
        assert!(tmp.path().is_dir(), "a directory that existed is never removed");

        let file = tmp.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let refused = make_dir("--dir", &file).err().unwrap().to_string();
        assert!(refused.contains("--dir") && refused.contains("not a directory"), "{refused}");
        let under_file = make_dir("--dir", &file.join("sub")).err().unwrap().to_string();
        assert!(under_file.contains("--dir") && under_file.contains("cannot create"), "{under_file}");
    }
}
