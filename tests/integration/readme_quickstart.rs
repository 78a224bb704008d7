//! The README's quick start, followed as a new user would: its main command, taken from the
//! README itself (with the built binary for `cargo run --release --`), run in an empty
//! directory with nothing else set up, and what the README says of it checked: the run is
//! what the comment says, the test file is gone afterwards, and the run is kept in
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
    assert_eq!(args[0], "io", "the main job is an io run: {args:?}");
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
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    // "removed at the end unless --keep-file is given"
    let target = args.iter().position(|a| a == "--target").map(|i| &args[i + 1]).unwrap();
    assert!(!cwd.path().join(target).exists(), "{target} is removed at the end");
    // "Every run is kept in a results store, $XDG_DATA_HOME/spindle/results.db"
    assert!(xdg.join("spindle/results.db").exists());
    let list = spindle(&["runs".into(), "list".into(), "--json".into()]);
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "`spindle runs list` shows it: {runs}");
    // "an 8 KiB random-read run on a 256 MiB test file"
    let show = spindle(&["runs".into(), "show".into(), "1".into(), "--json".into()]);
    let record: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let target = &record["details"]["spec"]["targets"][0];
    let line = &target["workload"]["mix"][0];
    assert_eq!(
        (line["block"].as_u64(), line["read_pct"].as_u64(), line["random_pct"].as_u64()),
        (Some(8192), Some(100), Some(100)),
        "{target}"
    );
    assert_eq!(target["size"].as_u64(), Some(256 << 20));
}
