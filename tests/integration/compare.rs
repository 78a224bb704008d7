//! `spindle compare` on real runs: a run against itself is identical and untested; twice the
//! rate is a real difference.

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
fn groups_at_twice_the_rate_one_after_the_other_get_no_verdict_on_a_fresh_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    // The null engine holds a rate exactly, so the difference is certain by design; but the
    // groups ran one after the other and nothing stored says how far this host drifts between
    // groups, so compare gives no verdict and says how to get one.
    for (label, rate) in [("rate=400", "400"), ("rate=800", "800")] {
        let out = spindle_with_store(&store)
            .args(["io", "--engine", "null", "--rate", rate, "--duration", "500ms", "--repeat", "3", "--quiet"])
            .args(["--label", label, "--target"])
            .arg(dir.path().join("x.dat"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out =
        spindle_with_store(&store).args(["compare", "--a", "rate=400", "--b", "rate=800", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let iops = c["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "iops").expect("IOPS compared");
    assert_eq!(c["sequence"], "one_after_the_other", "{c}");
    assert_eq!((&iops["verdict"], &iops["drift_unknown"]), (&"inconclusive".into(), &true.into()), "{c}");
    let headline = c["headline"].as_str().unwrap();
    assert!(headline.contains("drift between groups is unknown: no verdict") && headline.contains("spindle ab"), "{c}");
}

/// A run stopped in its warm-up measured nothing: comparing it is refused, not called
/// identical or a change of -100%.
#[test]
fn a_run_that_measured_nothing_is_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let real = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "200ms", "--warmup", "0s", "--quiet", "--target"])
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    assert!(real.status.success());
    let child = crate::common::spindle_process()
        .env("SPINDLE_STORE", &store)
        .args(["io", "--engine", "null", "--duration", "5s", "--warmup", "60s", "--quiet", "--target"])
        .arg(dir.path().join("y.dat"))
        .spawn()
        .unwrap();
    // The null engine starts at once; any moment of the minute's warm-up will do.
    std::thread::sleep(std::time::Duration::from_secs(2));
    // SAFETY: signals the test's own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let cmp = spindle_with_store(&store).args(["compare", "1", "2"]).output().unwrap();
    let err = String::from_utf8_lossy(&cmp.stderr);
    assert_eq!(cmp.status.code(), Some(2), "{err}");
    assert!(err.contains("run 2 measured nothing"), "{err}");
}
