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
    write_stdout(&format.exporter().export(doc)?)
}

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
    masked(std::env::args_os().map(|a| a.to_string_lossy().into_owned()))
}

/// Arguments with passwords replaced: the value of `--password`, and the password inside a
/// URL (`postgres://user:secret@host` -> `postgres://user:****@host`).
fn masked(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut hide_next = false;
    args.map(|arg| {
        if std::mem::take(&mut hide_next) {
            return "********".to_string();
        }
        let lower = arg.to_ascii_lowercase();
        if lower.starts_with("--password") {
            if arg.contains('=') {
                return "--password=********".to_string();
            }
            hide_next = true;
        }
        mask_url_password(&arg)
    })
    .collect()
}

/// The URL in `arg` with its password as `****`: in the credentials (which end at the last
/// `@` before the query: a password may hold `/` or `@`) and in a `password=` parameter.
fn mask_url_password(arg: &str) -> String {
    let Some(scheme_end) = arg.find("://") else { return arg.to_string() };
    let (head, rest) = arg.split_at(scheme_end + 3);
    let (before_query, query) = match rest.find('?') {
        Some(q) => rest.split_at(q),
        None => (rest, ""),
    };
    let mut out = head.to_string();
    match before_query.rsplit_once('@') {
        Some((credentials, host)) => {
            match credentials.split_once(':') {
                Some((user, _)) => out.push_str(&format!("{user}:****@")),
                None => out.push_str(&format!("{credentials}@")),
            }
            out.push_str(host);
        }
        None => out.push_str(before_query),
    }
    let masked: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if key.trim_start_matches('?') == "password" => format!("{key}=****"),
            _ => pair.to_string(),
        })
        .collect();
    out.push_str(&masked.join("&"));
    out
}

/// Refuses an output path that is a symbolic link (even with `--force`: writing through it
/// would replace a file the user did not name) or that is one of the command's input files.
pub fn check_output(path: &std::path::Path, inputs: &[&std::path::Path]) -> Result<(), crate::usage::UsageError> {
    use std::os::unix::fs::MetadataExt;
    let shown = path.display().to_string();
    let Ok(meta) = path.symlink_metadata() else { return Ok(()) };
    if meta.file_type().is_symlink() {
        return Err(crate::usage::UsageError::flag("-o", shown, "is a symbolic link; name the file itself"));
    }
    let same =
        |input: &&std::path::Path| input.metadata().is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino());
    if inputs.iter().any(same) {
        return Err(crate::usage::UsageError::flag("-o", shown, "is the file being read; name another"));
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_the_record() {
        let args = [
            "spindle",
            "hammer",
            "run",
            "--db=postgres://bench:s3cr:et@db1:5432/x",
            "--password",
            "pw",
            "--password=pw2",
        ];
        let out = masked(args.iter().map(|s| s.to_string()));
        assert_eq!(out[3], "--db=postgres://bench:****@db1:5432/x");
        assert_eq!((out[5].as_str(), out[6].as_str()), ("********", "--password=********"));
        assert_eq!(mask_url_password("mysql://root@h/db"), "mysql://root@h/db", "no password, nothing to hide");
        assert_eq!(mask_url_password("postgres://u:Se/cr@et@h/d"), "postgres://u:****@h/d");
        assert_eq!(
            mask_url_password("postgres://u@h/d?sslmode=disable&password=Secret&x=1"),
            "postgres://u@h/d?sslmode=disable&password=****&x=1"
        );
        assert_eq!(mask_url_password("postgres://u@h/d?password=Secret"), "postgres://u@h/d?password=****");
        assert_eq!(mask_url_password("sqlite:///tmp/a@b.db"), "sqlite:///tmp/a@b.db");
        assert!(!out.join(" ").contains("s3cr") && !out.join(" ").contains("pw2"));
    }
}
