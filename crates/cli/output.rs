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

/// Refuses an output path that is a symbolic link (even with `--force`: writing through it
/// would replace a file the user did not name), anything else that is not a regular file (a
/// device, a FIFO, a socket: `--force` replacing /dev/full with a report would break the
/// machine for everyone), or one of the command's input files.
pub fn check_output(path: &std::path::Path, inputs: &[&std::path::Path]) -> Result<(), crate::usage::UsageError> {
    use std::os::unix::fs::MetadataExt;
    let shown = path.display().to_string();
    let Some(meta) = existing_regular(path)? else { return Ok(()) };
    let same =
        |input: &&std::path::Path| input.metadata().is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino());
    if inputs.iter().any(same) {
        return Err(crate::usage::UsageError::flag("-o", shown, "is the file being read; name another"));
    }
    Ok(())
}

/// What is at `path` when it is a regular file, `None` when nothing is; anything else (a
/// symbolic link, a directory, a device, a FIFO, a socket) is refused whatever `--force` says,
/// since only a regular file may be replaced.
fn existing_regular(path: &std::path::Path) -> Result<Option<std::fs::Metadata>, crate::usage::UsageError> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = path.symlink_metadata() else { return Ok(None) };
    let kind = meta.file_type();
    let what = if kind.is_file() {
        return Ok(Some(meta));
    } else if kind.is_symlink() {
        "is a symbolic link; name the file itself"
    } else if kind.is_dir() {
        "is a directory; name a file"
    } else if kind.is_char_device() {
        "is a character device; --force replaces regular files only"
    } else if kind.is_block_device() {
        "is a block device; --force replaces regular files only"
    } else if kind.is_fifo() {
        "is a FIFO; --force replaces regular files only"
    } else if kind.is_socket() {
        "is a socket; --force replaces regular files only"
    } else {
        "is not a regular file; --force replaces regular files only"
    };
    Err(crate::usage::UsageError::flag("-o", path.display().to_string(), what))
}

/// Writes `bytes` to a new file beside `path`, then moves it into place: a reader never sees
/// half a file, and a failed write (a full file system) leaves nothing behind. Without
/// `force`, an existing file is never replaced, even one that appeared since it was checked.
pub fn write_whole(path: &std::path::Path, bytes: &[u8], force: bool) -> Result<(), crate::usage::UsageError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.spindle-{}.tmp", std::process::id()));
    // Checked again just before the move: a device or FIFO may have appeared since the
    // command's first check, and the rename would replace it.
    existing_regular(path)?;
    let written = std::fs::write(&temp, bytes).and_then(|()| {
        if force {
            std::fs::rename(&temp, path)
        } else {
            std::fs::hard_link(&temp, path).and_then(|()| std::fs::remove_file(&temp))
        }
    });
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        let why = match e.kind() {
            std::io::ErrorKind::AlreadyExists => "the file exists; pass --force to replace it".to_string(),
            _ => format!("cannot write it ({e}); nothing was written"),
        };
        crate::usage::UsageError::flag("-o", path.display().to_string(), why)
    })
}

/// Creates a file the user named with `-o`: never over an existing file unless `force`.
pub fn create_new_file(path: &std::path::Path, force: bool) -> Result<std::fs::File, crate::usage::UsageError> {
    existing_regular(path)?;
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
