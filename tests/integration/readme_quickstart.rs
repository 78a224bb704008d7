//! The README's quick start, followed as a new user would: its main command, taken from the
//! README itself (with the built binary for `cargo run --release --`), run in an empty
//! directory with nothing else set up, and what the README says of it checked: findings per
//! area on one screen, only the report left behind, and every step kept in
//! `$XDG_DATA_HOME/spindle/results.db`, where `spindle runs list` finds it. When the README
//! and the tool disagree, this fails.

use assert_cmd::cargo::cargo_bin;
use std::process::Command;

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));

/// The first `cargo run --release -- ...` line of the quick start's code block, as words.
fn quick_start_command() -> Vec<String> {
    let start = README.find("## Quick start").expect("the README has a quick start");
    let section = &README[start..];
    let block = section.split("```").nth(1).expect("a code block in the quick start");
    let line = block
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("cargo run --release -- "))
        .expect("a `cargo run --release --` command in the quick start");
    line.split_whitespace().map(String::from).collect()
}

#[test]
fn the_quick_start_does_what_the_readme_says() {
    let args = quick_start_command();
    assert_eq!(args, ["check", "--quick"], "the main job is a quick check of the current directory");
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let xdg = home.path().join("xdg");
    // A new user's environment: no store chosen, the default one under XDG_DATA_HOME.
    let spindle = |args: &[String]| {
        Command::new(cargo_bin("spindle"))
            .args(args)
            .current_dir(cwd.path())
            .env_remove("SPINDLE_STORE")
            .env("XDG_DATA_HOME", &xdg)
            .env("HOME", home.path())
            .output()
            .unwrap()
    };
    let out = spindle(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{args:?}: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    // "findings in plain words": a verdict per area, each measured area named.
    for area in ["environment", "page reads", "commits", "large writes", "large reads", "log", "verify"] {
        assert!(stdout.lines().any(|l| l.trim_start().starts_with(area)), "no {area} verdict:\n{stdout}");
    }
    assert!(stdout.lines().count() <= 26, "the summary fits a terminal:\n{stdout}");
    // "The check's test files and its SQLite database are removed at the end; its report stays."
    let left: Vec<String> =
        std::fs::read_dir(cwd.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left.len(), 1, "only the report is left: {left:?}");
    assert!(left[0].starts_with("spindle-check-") && left[0].ends_with(".html"), "{left:?}");
    assert!(stdout.contains(&format!("report: ./{}", left[0])), "the summary names the report:\n{stdout}");
    let html = std::fs::read_to_string(cwd.path().join(&left[0])).unwrap();
    assert!(html.contains("<caption>Findings</caption>"), "the report leads with the findings");
    // "Every step of it is a run kept in a results store, $XDG_DATA_HOME/spindle/results.db"
    assert!(xdg.join("spindle/results.db").exists());
    let list = spindle(&["runs".into(), "list".into(), "--json".into()]);
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let runs = runs.as_array().expect("a list of runs");
    // Six depths of page reads, commits, large writes and reads, the verified pass, and three
    // transaction sizes of the log test, all in one group; and two depths more when the page
    // reads' knee was a close call, measured again (repeat 2).
    let again: Vec<&str> = runs.iter().filter(|r| r["repeat"] == 2).filter_map(|r| r["point"].as_str()).collect();
    let settled = again.is_empty() || (again.len() == 2 && again.iter().all(|p| p.starts_with("depth=")));
    assert!(settled, "only a close call's two depths are measured again: {again:?}");
    assert_eq!(runs.len(), 13 + again.len(), "`spindle runs list` shows every step: {runs:?}");
    assert!(runs.iter().all(|r| r["group"] == runs[0]["group"] && r["group"].is_i64()), "{runs:?}");
    let group = runs[0]["group"].as_i64().unwrap().to_string();
    let show = spindle(&["runs".into(), "show".into(), "--group".into(), group.clone()]);
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains("(check ") && shown.contains("findings:"), "{shown}");
    // Most databases' disks are virtual, as the build's own may be: there a flush is the host's
    // to answer, and the check warns of no volatile cache it cannot see.
    let first = spindle(&["runs".into(), "show".into(), runs[0]["id"].to_string(), "--json".into()]);
    let record: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let origin = &record["environment"]["devices"][0]["origin"];
    let view = spindle(&["runs".into(), "show".into(), "--group".into(), group, "--json".into()]);
    let view: serde_json::Value = serde_json::from_slice(&view.stdout).unwrap();
    assert!(view["findings"].get("stopped").is_none() && !shown.contains("stopped early"), "a whole check: {view}");
    let flush = view["findings"]["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "volatile-write-cache");
    let flush = flush.expect("the flush finding");
    if origin["kind"] == "virtual" {
        assert_eq!(flush["level"], "note", "{flush}");
        assert!(flush["text"].as_str().unwrap().starts_with("The host answers"), "{flush}");
        assert!(!stdout.contains("WARNING Flushes"), "{stdout}");
    }
}
