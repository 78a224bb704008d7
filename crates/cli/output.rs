//! Writes results to stdout in the format asked for; the exporters themselves are pure.

use crate::args::OutputArgs;
use anyhow::Context;
use spindle_model::RunRecord;
use std::io::Write;

pub fn print(records: &[RunRecord], output: &OutputArgs) -> anyhow::Result<()> {
    let bytes = if output.json {
        match records {
            [one] => spindle_report::render_json(one),
            many => spindle_report::render_json_many(many),
        }
    } else if output.csv {
        spindle_report::render_csv(records)
    } else if output.quiet {
        return Ok(());
    } else {
        spindle_report::render_text(records)
    };
    write_stdout(&bytes)
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
    masked(std::env::args())
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

fn mask_url_password(arg: &str) -> String {
    let Some(scheme_end) = arg.find("://") else { return arg.to_string() };
    let rest = &arg[scheme_end + 3..];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else { return arg.to_string() };
    match rest[..at].find(':') {
        Some(colon) => format!("{}{}:****{}", &arg[..scheme_end + 3], &rest[..colon], &rest[at..]),
        None => arg.to_string(),
    }
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
        assert_eq!(mask_url_password("sqlite:///tmp/a@b.db"), "sqlite:///tmp/a@b.db");
        assert!(!out.join(" ").contains("s3cr") && !out.join(" ").contains("pw2"));
    }
}
