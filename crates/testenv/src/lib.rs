//! For tests only: how a test says that something it needs is missing on this machine (a
//! PostgreSQL or MariaDB server, io_uring, a loop device, a tmpfs mount, user xattrs, a temp
//! directory on a block device), the headless Chromium (`chromium`) that browser tests drive, and
//! a workbook read back as its cells (`xlsx`).
//!
//! With `SPINDLE_REQUIRE_SERVERS=1` (CI sets it) the test fails there and then. Otherwise it
//! prints a notice and adds a line to the file `SPINDLE_SKIPPED_LOG` names, which
//! `scripts/test` counts at the end: a test that skipped passes, so without that count a
//! machine missing everything would look as green as one that has it all.

mod browser;
pub mod xlsx;

pub use browser::{Browser, CHROMIUM_FLAGS, chromium, chromium_installed};

use std::fmt::Display;
use std::io::Write;

/// `1`: a missing requirement fails the test instead of skipping it.
pub const REQUIRE: &str = "SPINDLE_REQUIRE_SERVERS";
/// The file each skip adds a line to (set by `scripts/test`).
pub const SKIPPED_LOG: &str = "SPINDLE_SKIPPED_LOG";

/// The calling test cannot do its checks here, because `what` is unavailable (`why`). It
/// panics under `SPINDLE_REQUIRE_SERVERS=1`; otherwise the caller skips those checks.
#[track_caller]
pub fn unavailable(what: &str, why: impl Display) {
    if std::env::var(REQUIRE).as_deref() == Ok("1") {
        panic!("{what} is required ({REQUIRE}=1) but unavailable here: {why}");
    }
    let at = std::panic::Location::caller();
    // The test harness names each test's thread after the test.
    let thread = std::thread::current();
    let line = skip_line(thread.name().unwrap_or("a test"), &format!("{}:{}", at.file(), at.line()), what, &why);
    eprintln!("notice: skipped: {line}");
    if let Some(path) = std::env::var_os(SKIPPED_LOG) {
        // One write of one line, appended: tests running at once do not interleave.
        let logged = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()));
        if let Err(e) = logged {
            panic!("cannot record the skip in {} ({e}): {line}", path.to_string_lossy());
        }
    }
}

/// A skip as the log keeps it: `TEST (FILE:LINE): WHAT unavailable: WHY`, on one line, since
/// the test command counts the log's lines as skipped tests (a reason holding a server's log
/// once counted each of its lines as a test).
fn skip_line(test: &str, at: &str, what: &str, why: &dyn Display) -> String {
    let why = why.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
    format!("{test} ({at}): {what} unavailable: {why}")
}

/// Runs each statement on its own (CREATE DATABASE cannot share a transaction) on the
/// PostgreSQL server `conninfo` names (`host=127.0.0.1 port=5432 user=root dbname=postgres`),
/// as its administrator: how tests make and drop scratch databases. `Err` says why, a server
/// that is not there included.
#[cfg(feature = "postgres")]
pub fn postgres_admin(conninfo: &str, statements: &[String]) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(async {
        let (client, conn) =
            tokio_postgres::connect(conninfo, tokio_postgres::NoTls).await.map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        for sql in statements {
            client
                .batch_execute(sql)
                .await
                .map_err(|e| e.as_db_error().map_or(e.to_string(), |d| d.message().into()))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod skip_tests {
    #[test]
    fn a_skip_is_one_line_whatever_its_reason_holds() {
        let why = "its spindle is \"/x\":\nServer listening on 127.0.0.1 port 1.\nAccepted publickey\n";
        let line = super::skip_line("t", "a.rs:3", "an sshd", &why);
        assert_eq!(
            line,
            "t (a.rs:3): an sshd unavailable: its spindle is \"/x\": Server listening on 127.0.0.1 port 1. Accepted publickey"
        );
    }
}
