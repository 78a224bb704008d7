//! `spindle import` of a fio JSON of many jobs: a run per job, saved as the file is read (a
//! file of thousands of jobs is never held whole), and a file that breaks after hundreds of
//! jobs imports none of them.

use crate::common::spindle_with_store;
use std::path::Path;

/// The real json+ file's two jobs, taken in turn and named `job-N`, `jobs` of them.
fn many_jobs(jobs: usize) -> String {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/testdata/fio-3.33-plus.json");
    let mut doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(real).unwrap()).unwrap();
    let two = doc["jobs"].as_array().unwrap().clone();
    let many: Vec<serde_json::Value> = (0..jobs)
        .map(|i| {
            let mut job = two[i % 2].clone();
            job["jobname"] = format!("job-{i}").into();
            job
        })
        .collect();
    doc["jobs"] = many.into();
    serde_json::to_string_pretty(&doc).unwrap()
}

fn run_count(store: &Path) -> usize {
    let out = spindle_with_store(store).args(["runs", "list", "--all", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).unwrap().len()
}

#[test]
fn a_fio_file_of_many_jobs_is_a_run_per_job_and_one_broken_late_imports_none() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let jobs = 200;
    let text = many_jobs(jobs);
    let file = dir.path().join("many.json");
    std::fs::write(&file, &text).unwrap();
    let out = spindle_with_store(&store).arg("import").arg(&file).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = records.iter().map(|r| r["details"]["spec"]["name"].as_str().unwrap()).collect();
    let want: Vec<String> = (0..jobs).map(|i| format!("job-{i}")).collect();
    assert_eq!(names, want, "a run per job, in the file's order");
    assert_eq!(run_count(&store), jobs);
    let out = spindle_with_store(&store).arg("import").arg(&file).arg("--again").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("many.json: 200 runs from fio 3.33, saved as runs 201-400"), "{stdout}");

    // Cut inside its 151st job: the 150 before it are not imported either.
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &text[..text.find("\"job-150\"").unwrap()]).unwrap();
    let out = spindle_with_store(&store).arg("import").arg(&cut).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cut.json: line ") && err.contains("nothing was imported"), "{err}");
    assert_eq!(run_count(&store), 2 * jobs, "nothing added");
}
