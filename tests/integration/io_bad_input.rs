//! Every invalid flag value or spec line exits 2 with a message naming it, before any I/O.

use crate::common::{io_usage_error, path_str};

#[test]
fn percentages_out_of_range_name_the_flag() {
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--read", "120"]);
    assert!(err.contains("--read 120") && err.contains("between 0 and 100"), "{err}");
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--random", "-1"]);
    assert!(err.contains("--random"), "{err}");
}

#[test]
fn bad_sizes_and_durations_name_the_value() {
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--size", "10X"]);
    assert!(err.contains("--size 10X") && err.contains("not a size"), "{err}");
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--block", "0"]);
    assert!(err.contains("--block"), "{err}");
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--duration", "30"]);
    assert!(err.contains("--duration 30") && err.contains("unit"), "{err}");
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--mix", "64K:83,512"]);
    assert!(err.contains("--mix") && err.contains("SIZE:WEIGHT"), "{err}");
}

#[test]
fn expected_rates_that_cannot_be_read_name_the_flag() {
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--expect", "0iops"]);
    assert!(err.contains("--expect 0iops") && err.contains("above zero"), "{err}");
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--expect", "125MB"]);
    assert!(err.contains("--expect 125MB") && err.contains("give a rate with its unit"), "{err}");
}

#[test]
fn missing_target_directory_is_named() {
    let err = io_usage_error(&["--target", "/nonexistent-dir-for-spindle/x.dat", "--duration", "1s"]);
    assert!(err.contains("/nonexistent-dir-for-spindle") && err.contains("does not exist"), "{err}");
}

#[test]
fn unknown_engine_lists_the_valid_ones() {
    let err = io_usage_error(&["--engine", "aio", "--target", "x.dat"]);
    assert!(err.contains("uring") && err.contains("sync") && err.contains("null"), "{err}");
}

#[test]
fn sync_engine_refuses_depth() {
    let err = io_usage_error(&["--engine", "sync", "--target", "x.dat", "--depth", "8"]);
    assert!(err.contains("--depth 8") && err.contains("--threads"), "{err}");
}

#[test]
fn fsync_without_writes_is_refused() {
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--fsync-every", "1"]);
    assert!(err.contains("--fsync-every"), "{err}");
}

#[test]
fn no_target_says_how_to_give_one() {
    let err = io_usage_error(&["--engine", "null"]);
    assert!(err.contains("--target"), "{err}");
}

#[test]
fn malformed_label_is_named() {
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--label", "raid"]);
    assert!(err.contains("--label raid"), "{err}");
    // A newline in a value would print as a line of its own wherever the run is listed.
    let err = io_usage_error(&["--engine", "null", "--target", "x.dat", "--label", "site=a\nfake line"]);
    assert!(err.contains("--label site=a\\nfake line") && err.contains("holds a line break"), "{err}");
}

#[test]
fn spec_file_mistakes_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("jobs.toml");
    std::fs::write(&spec, "duration = \"1s\"\n\n[[target]]\npath = \"a.dat\"\nread = 120\n").unwrap();
    let err = io_usage_error(&["--engine", "null", "--spec", path_str(&spec)]);
    assert!(err.contains("jobs.toml line 5 (read)") && err.contains("120"), "{err}");

    std::fs::write(&spec, "[[target]]\npath = \"a.dat\"\nreads = 50\n").unwrap();
    let err = io_usage_error(&["--engine", "null", "--spec", path_str(&spec)]);
    assert!(err.contains("jobs.toml") && err.contains("reads") && err.contains("line 3"), "{err}");

    std::fs::write(&spec, "duration = \"1s\"\n").unwrap();
    let err = io_usage_error(&["--engine", "null", "--spec", path_str(&spec)]);
    assert!(err.contains("no [[target]]"), "{err}");

    let err = io_usage_error(&["--engine", "null", "--spec", path_str(&spec), "--target", "b.dat"]);
    assert!(err.contains("--target cannot be combined with --spec"), "{err}");
}

/// A spec of 20,000 targets is checked whole (the mistake in its last one named by line),
/// in linear time: line numbers come from an index of the file's lines, not a count from
/// its start for every value.
#[test]
fn a_spec_of_twenty_thousand_targets_names_the_line_of_its_last_mistake() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("many.toml");
    let mut text = String::from("duration = \"100ms\"\nwarmup = \"0s\"\nengine = \"null\"\n");
    for i in 0..20_000 {
        let size = if i == 19_999 { "4K" } else { "1M" };
        text.push_str(&format!("[[target]]\npath = \"t{i}.dat\"\nsize = \"{size}\"\n"));
    }
    std::fs::write(&spec, text).unwrap();
    let err = io_usage_error(&["--spec", path_str(&spec)]);
    assert!(err.contains("many.toml line 60003 (size)"), "{err}");
}

/// A file and a link to it are one target named twice: refused before anything is touched,
/// so neither the file nor the user's link is removed afterwards.
#[test]
fn a_file_and_a_link_to_it_are_one_target() {
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join("kept.dat");
    std::fs::write(&kept, vec![1u8; 1 << 20]).unwrap();
    let link = dir.path().join("link.dat");
    std::os::unix::fs::symlink(&kept, &link).unwrap();
    let err =
        io_usage_error(&["--engine", "null", "--size", "1M", "--target", path_str(&kept), "--target", path_str(&link)]);
    assert!(err.contains("are one file"), "{err}");
    assert!(kept.exists() && link.symlink_metadata().is_ok());
}
