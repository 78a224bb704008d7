//! What `runs list`, `runs show` and `report` print for a fixed store, held byte for byte to
//! the files in tests/integration/golden/, so moving code between crates cannot change a
//! figure or a word unnoticed. The store is the import of real result files (the same every
//! run; a file without a date of its own is dated by its modification time, set here to a
//! fixed one); the one thing that changes is the time of this run (a report says when it was
//! written), which is written as NOW.
//!
//! After a change meant to alter these outputs, run with SPINDLE_UPDATE_GOLDEN=1 to write the new
//! golden files, and read their diff before committing it.

use crate::common::spindle_with_store;
use std::path::{Path, PathBuf};

const FILES: [&str; 6] = [
    "sqlio.random.read.8.8.G.txt",
    "DiskSpdExample-ReadWrite.txt",
    "diskspd-expected-results.xml",
    "fio-plot_HPDL380G8-MX200_randread-1-1.json",
    "bensonjohnson_fio.json",
    "quarch_insttestfile.csv",
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/golden")
}

/// Every `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DDTHH:MM:SS` at or after `since` becomes NOW.
fn without_now(text: &str, since: &str) -> String {
    let shape = |w: &[u8]| {
        w.len() == 19
            && w.iter().enumerate().all(|(i, &c)| match i {
                4 | 7 => c == b'-',
                10 => c == b'T' || c == b' ',
                13 | 16 => c == b':',
                _ => c.is_ascii_digit(),
            })
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if i + 19 <= bytes.len() && shape(&bytes[i..i + 19]) {
            let stamp = text[i..i + 19].replace(' ', "T");
            if stamp.as_str() >= since {
                out.push_str("NOW");
                i += 19;
                continue;
            }
        }
        let c = text[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// `text` with what differs between machines and runs named instead: the time of this run,
/// and the binary's path in the import's command line.
fn same_everywhere(text: &str, since: &str) -> String {
    let binary = assert_cmd::cargo::cargo_bin("spindle");
    without_now(text, since).replace(binary.to_str().unwrap(), "spindle")
}

/// The time now, as the outputs write it (without the zone), less a second (the import may
/// begin in it).
fn now_less_a_second() -> String {
    let at = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    spindle_model::time::rfc3339_utc(at).trim_end_matches('Z').to_string()
}

fn same_as_golden(name: &str, got: &str) -> Option<String> {
    let path = golden_dir().join(name);
    if std::env::var_os("SPINDLE_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, got).unwrap();
        return None;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (SPINDLE_UPDATE_GOLDEN=1 writes it)", path.display()));
    if want == got {
        return None;
    }
    let line = want
        .lines()
        .zip(got.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(want.lines().count().min(got.lines().count()));
    Some(format!(
        "{name} differs from {} at line {}:\n  golden: {:?}\n  now:    {:?}",
        path.display(),
        line + 1,
        want.lines().nth(line).unwrap_or("(end)"),
        got.lines().nth(line).unwrap_or("(end)")
    ))
}

#[test]
fn runs_list_show_and_report_print_what_they_printed_before() {
    let since = now_less_a_second();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    // 2026-01-02T03:04:05Z: a checkout dates its files when it is made.
    let dated = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_767_323_045);
    for f in FILES {
        let copy = dir.path().join(f);
        std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/testdata").join(f), &copy).unwrap();
        std::fs::File::options().write(true).open(&copy).unwrap().set_modified(dated).unwrap();
    }
    // Imported by name from their directory, so the records name them the same every run.
    let imported = spindle_with_store(&store)
        .current_dir(dir.path())
        .arg("import")
        .args(FILES)
        .args(["--label", "array=old"])
        .output()
        .unwrap();
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    let printed = |args: &[&str]| {
        let out = spindle_with_store(&store).args(args).output().unwrap();
        assert!(out.status.success(), "spindle {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        same_everywhere(&String::from_utf8(out.stdout).unwrap(), &since)
    };
    let mut outputs = vec![("runs-list.txt".to_string(), printed(&["runs", "list", "--all"]))];
    for id in 1..=FILES.len() {
        outputs.push((format!("runs-show-{id}.txt"), printed(&["runs", "show", &id.to_string()])));
    }
    outputs.push(("runs-show-1.json".into(), printed(&["runs", "show", "1", "--json"])));
    for ext in ["md", "csv", "html"] {
        let file = dir.path().join(format!("report.{ext}"));
        printed(&["report", "-o", file.to_str().unwrap()]);
        outputs.push((format!("report.{ext}"), same_everywhere(&std::fs::read_to_string(&file).unwrap(), &since)));
    }
    let differ: Vec<String> = outputs.iter().filter_map(|(name, got)| same_as_golden(name, got)).collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
