//! Golden outputs of the check on a fixed fake device: fixture runs for every step of the
//! battery, fixed device facts, an earlier check of the same place in a fresh store; the
//! `--json` document, the terminal summary and the `--quiet` line are compared with the files
//! in crates/check/tests/golden/. Any figure, word or finding that changes fails here. Run with
//! `SPINDLE_UPDATE_GOLDEN=1` to rewrite them after a change meant to show.

use spindle_analysis::findings::{self, Commits, DirEvidence, Evidence, Guidance};
use spindle_check::{Answer, Budget, gather, sharing_a_device, since, view};
use spindle_model::db::LogTestFigures;
use spindle_model::fixtures;
use spindle_model::group::Point;
use spindle_model::record::{DeviceInfo, RunStatus};
use spindle_model::verify::VerifySummary;
use spindle_model::{KindData, RunRecord};
use spindle_runner::RunEnd;
use spindle_runner::experiment::Finished;
use spindle_store::{GroupKind, Store};
use std::path::{Path, PathBuf};

/// An 8 KiB random-read step at `iops`, `threads` x `depth`, with `block`-byte I/Os.
fn io_step(iops: f64, latency_ns: u64, block: u64, depth: u32) -> RunRecord {
    let mut r = fixtures::io_run(&[iops; 10], latency_ns, &[]);
    let w = &mut fixtures::job_mut(&mut r).targets[0].workload;
    w.mix[0].block = block;
    w.depth = depth;
    r
}

fn log_size(size: u64, mb_per_sec: f64) -> RunRecord {
    let mut figures = LogTestFigures {
        transaction_size: size,
        rows: 2000,
        commits: 2000 / size,
        row_bytes: 4000,
        log_write_ios: Some(2000 / size),
        log_bytes_written: Some((mb_per_sec * 2e6) as u64),
        log_syncs: Some(2000 / size),
        duration_s: 2.0,
        log_writes_are: "WAL frames".into(),
        log_bytes_are: "WAL bytes".into(),
        source: "sqlite".into(),
        ..LogTestFigures::default()
    };
    figures.derive();
    let details = KindData::LogTest { spec: Default::default(), figures };
    RunRecord::new(details, RunStatus::Complete, std::time::SystemTime::UNIX_EPOCH, 2.0)
}

/// Every step of the quick battery in one directory; its commits `commit_scale` times slower than the fixture's.
fn battery(commit_scale: u64) -> Vec<(Point, RunRecord)> {
    let mut runs = Vec::new();
    let curve = [(1, 4_800.0), (2, 9_500.0), (4, 18_000.0), (8, 30_000.0), (16, 33_000.0), (32, 33_400.0)];
    for (depth, iops) in curve {
        runs.push((Point::sweep("depth", depth.to_string()), io_step(iops, 200_000 * depth, 8192, depth as u32)));
    }
    let mut commits = fixtures::record();
    commits.summary.commit.latency_ns.mean *= commit_scale as f64;
    commits.summary.commit.latency_ns.p99 *= commit_scale;
    runs.push((Point::Member("commits".into()), commits));
    runs.push((Point::Member("large-writes".into()), io_step(900.0, 30_000_000, 256 << 10, 32)));
    runs.push((Point::Member("large-reads".into()), io_step(1_200.0, 6_000_000, 512 << 10, 8)));
    let mut verify = io_step(9_000.0, 400_000, 8192, 4);
    if let KindData::Io { verify: v, .. } = &mut verify.details {
        *v = Some(VerifySummary { id: "5eed".into(), sectors_checked: 65_536, ..Default::default() });
    }
    runs.push((Point::Member("verify".into()), verify));
    for (size, mb) in [(1, 3.0), (10, 21.0), (100, 23.0)] {
        runs.push((Point::sweep("batch", size.to_string()), log_size(size, mb)));
    }
    runs
}

fn finished(runs: Vec<(Point, RunRecord)>) -> Vec<Finished> {
    runs.into_iter()
        .enumerate()
        .map(|(i, (point, record))| Finished {
            id: i as i64 + 1,
            step: Some(i),
            group: Some(0),
            record,
            part: None,
            point: Some(point),
            repeat: 1,
            end: RunEnd::Complete { failed_operations: false },
        })
        .collect()
}

/// The fake device: what the host would say lies under `dir`.
fn host_facts(dir: &str, disk: &str) -> DirEvidence {
    let device = DeviceInfo {
        target: dir.into(),
        device: Some(disk.into()),
        partition: Some(format!("{disk}1")),
        ..fixtures::record().environment.devices[0].clone()
    };
    DirEvidence {
        dir: dir.into(),
        device,
        free_bytes: Some(40 << 30),
        filesystem_bytes: Some(250 << 30),
        partition_start_bytes: Some(1 << 20),
        ..DirEvidence::default()
    }
}

/// What an earlier check of `dir` kept: commits twice as fast as today's fixture.
fn earlier_check(store: &Store, name: &str) -> i64 {
    let id = store.new_group(GroupKind::Check, name, "2026-11-20T10:34:07Z").unwrap();
    let mut before = host_facts("/data", "vda");
    before.commits = Some(Commits {
        write_bytes: 65536,
        count: 2500,
        per_sec: 1000.0,
        mean_ns: 1e6,
        p99_ns: 1_400_000,
        flush_median_ns: 800_000,
        flush_p99_ns: 1_200_000,
    });
    let summary = serde_json::json!({"guidance": Guidance::Generic, "evidence": before});
    store.set_group_summary(id, &summary).unwrap();
    id
}

/// The check's answer for `dirs` (each with its disk and commit slowness), as `run` builds it.
fn answer(dirs: &[(&str, &str, u64)]) -> Answer {
    let scratch = tempfile::tempdir().unwrap();
    let store = Store::open(scratch.path().join("results.db")).unwrap();
    let mut evidence = Evidence { guidance: Guidance::Generic, dirs: Vec::new() };
    for (dir, disk, scale) in dirs {
        let mut facts = host_facts(dir, disk);
        let runs = finished(battery(*scale));
        gather(&mut facts, Guidance::Generic, &runs.iter().collect::<Vec<_>>(), "sqlite");
        evidence.dirs.push(facts);
    }
    let mut sinces = Vec::new();
    let mut groups = Vec::new();
    for dir in &evidence.dirs {
        let name = format!("check {}", dir.dir);
        if dir.dir == "/data" {
            earlier_check(&store, &name);
        }
        let id = store.new_group(GroupKind::Check, &name, "2026-11-28T09:00:00Z").unwrap();
        groups.push(id);
        sinces.push((dir.dir.clone(), since(&store, &name, id, dir, evidence.guidance).unwrap()));
    }
    let found = findings::findings(&evidence);
    let shared = sharing_a_device(&evidence.dirs);
    Answer {
        verdicts: findings::verdicts(&found),
        findings: found,
        evidence,
        since: sinces,
        shared,
        budget: Budget::Quick,
        elapsed: std::time::Duration::from_secs(47),
        groups,
        report: Some(PathBuf::from("/data/spindle-check-2026-11-28-0900.html")),
        stopped: None,
        layouts: None,
    }
}

/// Compares `actual` with the golden file `name`, or writes it under `SPINDLE_UPDATE_GOLDEN`.
fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("SPINDLE_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if expected != actual {
        let at = expected.lines().zip(actual.lines()).position(|(e, a)| e != a);
        panic!(
            "{name} changed (first differing line {at:?}); if meant, rerun with SPINDLE_UPDATE_GOLDEN=1\n{actual}",
            at = at.map(|i| i + 1)
        );
    }
}

fn outputs(prefix: &str, a: &Answer) {
    let json = serde_json::to_string_pretty(&view::json(a)).unwrap() + "\n";
    golden(&format!("{prefix}.json"), &json);
    golden(&format!("{prefix}.txt"), &view::render(a));
    golden(&format!("{prefix}.quiet.txt"), &view::verdict_line(&a.findings));
}

#[test]
fn golden_check_of_one_directory_on_a_fixed_fake_device() {
    outputs("one-dir", &answer(&[("/data", "vda", 1)]));
}

#[test]
fn golden_check_of_two_directories_on_one_fixed_fake_device() {
    outputs("two-dirs", &answer(&[("/data", "vda", 1), ("/log", "vda", 8)]));
}
