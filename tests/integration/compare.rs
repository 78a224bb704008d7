//! `spindle compare` on real runs: a run against itself is identical and untested; direct
//! against buffered reads of a file the page cache holds is a real difference.

use crate::common::spindle_with_store;

#[test]
fn a_run_compared_with_itself_is_identical_not_tested() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let ok = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "2s", "--quiet", "--target"])
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    assert!(ok.status.success());
    let out = spindle_with_store(&store).args(["compare", "1", "1", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["metrics"][0]["metric"], "iops");
    assert_eq!(c["metrics"][0]["verdict"], "untested");
    assert_eq!(c["basis"], "single_run");
    assert!(c["headline"].as_str().unwrap().contains("identical"), "{c}");
    assert_eq!(c["confounders"].as_array().map(Vec::len), Some(0));
}

#[test]
fn direct_and_buffered_reads_of_a_cached_file_differ_significantly() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let target = dir.path().join("cached.dat");
    for (label, extra) in [("cache=direct", None), ("cache=buffered", Some("--buffered"))] {
        let out = spindle_with_store(&store)
            // spindle drops the file from the page cache before each run; the warm-up reads it
            // back in, so buffered runs measure the cache.
            .args(["io", "--size", "4M", "--block", "4K", "--warmup", "1s", "--duration", "300ms", "--repeat", "3"])
            .arg("--keep-file")
            .args(["--quiet", "--label", label, "--target"])
            .arg(&target)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out =
        spindle_with_store(&store).args(["compare", "--a", "cache=direct", "--b", "cache=buffered"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("B outperforms A by"), "{text}");
    assert!(text.contains("3 vs 3 runs"), "{text}");
    assert!(text.contains("buffered: A false; B true"), "the other difference is named: {text}");
}
