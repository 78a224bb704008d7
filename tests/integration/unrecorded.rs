//! Figures a run did not record are shown as absent, never as 0 ns: a DiskSpd file cut inside
//! its latency table is refused, IOMeter's missing minimum and standard deviation are "-" (and
//! null in JSON), and a run stopped before any I/O completed shows no latency.

use crate::common::{spindle_process, spindle_with_store};
use std::path::{Path, PathBuf};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/testdata").join(name)
}

fn ok(store: &Path, args: &[&str]) -> String {
    let out = spindle_with_store(store).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Every line of `text` that names a latency figure, for the messages.
fn latency_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains("atency") || l.contains("p99") || l.contains("Stddev")).collect()
}

/// A real DiskSpd file cut after its 90th percentile once imported as complete, its p95, p99
/// and max 0 ns.
#[test]
fn a_diskspd_file_cut_inside_its_latency_table_is_not_imported() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let full = std::fs::read_to_string(testdata("DiskSpdExample-ReadWrite.txt")).unwrap();
    let end = full.find("\n   95th |").unwrap();
    let cut = dir.path().join("cut.txt");
    std::fs::write(&cut, &full[..end]).unwrap();
    let out = spindle_with_store(&store).arg("import").arg(&cut).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cut.txt: line 69:") && err.contains("cut short"), "{err}");
    assert!(!store.exists() || ok(&store, &["runs", "list", "--all", "--json"]).trim() == "[]", "nothing imported");
}

/// IOMeter prints no minimum latency and no standard deviation: they were shown as 0ns.
#[test]
fn iometers_missing_minimum_and_stddev_are_not_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    ok(&store, &["import", testdata("quarch_insttestfile.csv").to_str().unwrap()]);

    let shown = ok(&store, &["runs", "show", "1"]);
    let figures = shown.lines().find(|l| l.contains("Min_Latency")).unwrap_or_else(|| panic!("{shown}"));
    assert!(figures.contains("Min_Latency: -") && figures.contains("Stddev: -"), "{figures}");
    assert!(!figures.contains("Max_Latency: -"), "IOMeter prints a maximum: {figures}");

    let json: serde_json::Value = serde_json::from_str(&ok(&store, &["runs", "show", "1", "--json"])).unwrap();
    let latency = &json["summary"]["latency_ns"];
    assert!(latency["min"].is_null() && latency["stddev"].is_null(), "{latency}");
    assert!(latency["mean"].as_f64().unwrap() > 0.0 && latency["max"].as_u64().unwrap() > 0, "{latency}");

    let (md, csv) = (dir.path().join("r.md"), dir.path().join("r.csv"));
    ok(&store, &["report", "-o", md.to_str().unwrap(), "-o", csv.to_str().unwrap()]);
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("| latency min | - |") && md.contains("Not in the file: the minimum latency."), "{md}");
    let csv = std::fs::read_to_string(csv).unwrap();
    let mut lines = csv.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = lines.next().unwrap();
    let total = lines.next().unwrap();
    let field = |name: &str| total[header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("{name}"))];
    assert_eq!((field("lat_min_ns"), field("lat_stddev_ns")), ("", ""), "{csv}");
    assert_ne!(field("lat_max_ns"), "", "{csv}");
}

/// A run interrupted before any I/O was measured (here in its warm-up) was saved with its
/// latency shown as 0ns.
#[test]
fn a_run_stopped_before_any_io_shows_no_latency() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let child = spindle_process()
        .env("SPINDLE_STORE", &store)
        .args(["io", "--engine", "null", "--duration", "5s", "--warmup", "60s", "--quiet", "--target"])
        .arg(dir.path().join("t.dat"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The null engine starts at once; any moment of the minute's warm-up will do.
    std::thread::sleep(std::time::Duration::from_secs(2));
    // SAFETY: signals the test's own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let printed = child.wait_with_output().unwrap();
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(!printed.contains("0ns"), "{printed}");

    let shown = ok(&store, &["runs", "show", "1"]);
    assert!(shown.contains("INTERRUPTED"), "{shown}");
    assert!(!shown.contains("0ns"), "{:?}", latency_lines(&shown));
    let json: serde_json::Value = serde_json::from_str(&ok(&store, &["runs", "show", "1", "--json"])).unwrap();
    assert_eq!(json["summary"]["ios"], 0);
    assert!(json["summary"]["latency_ns"]["mean"].is_null(), "{}", json["summary"]["latency_ns"]);

    assert!(shown.contains("no I/Os completed"), "{shown}");
    let md = dir.path().join("r.md");
    ok(&store, &["report", "-o", md.to_str().unwrap()]);
    let md = std::fs::read_to_string(md).unwrap();
    assert!(!md.contains("0ns"), "{:?}", latency_lines(&md));
    let listed = ok(&store, &["runs", "list"]);
    assert!(!listed.contains("0ns"), "{listed}");
}
