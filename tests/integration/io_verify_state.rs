//! `spindle verify` against the write state a verified run keeps beside its target: every
//! lost, stale, torn, misdirected and corrupt block put into the file is named by its offset,
//! after a run that ended cleanly and after one killed with SIGKILL, with no false alarm; a
//! zeroed device is judged from the state kept where its run started; without the state it
//! says what it cannot judge; what is not storage, and anything not spindle's where the state
//! would go, is refused with exit 2.

use crate::common::{spindle, spindle_process};
use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const BLOCK: usize = 4096;

fn state_of(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_os_string();
    name.push(".spindle-verify-state");
    name.into()
}

/// Waits until the state at `path` is a save other than `seen` (each save replaces the file,
/// so its inode changes); the new save's inode.
fn next_save(path: &Path, seen: Option<u64>) -> u64 {
    let began = Instant::now();
    loop {
        if let Ok(m) = std::fs::metadata(path)
            && Some(m.ino()) != seen
        {
            return m.ino();
        }
        assert!(began.elapsed() < Duration::from_secs(60), "no new save of {}", path.display());
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// The generation of the run's write filling block `b` whole and in place (all its sectors
/// stamped by `run`, for their own offsets, by one write starting there), if one does.
fn block_write(bytes: &[u8], b: usize, run: u64) -> Option<u64> {
    let at = b * BLOCK;
    let generation = u64_at(bytes, at + 32);
    (0..BLOCK / 512)
        .all(|s| {
            let sector = at + s * 512;
            &bytes[sector + 8..sector + 16] == b"SPNDLVF2"
                && u64_at(bytes, sector + 16) == run
                && u64_at(bytes, sector + 24) == sector as u64
                && u64_at(bytes, sector + 32) == generation
                && u64_at(bytes, sector + 40) == at as u64
        })
        .then_some(generation)
}

fn verify_json(target: &Path) -> (Option<i32>, serde_json::Value) {
    let out = spindle().args(["verify", "--json", "--target"]).arg(target).output().unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

/// How large a check: a small file at a capped rate by default; with
/// SPINDLE_VERIFY_FIGURE=1, the figure of the docs: 768 MiB at full speed, 50 faults of each
/// kind (over 1M sectors judged even after a kill, whose last writes are newer than the state).
struct Scale {
    size: &'static str,
    /// `spindle io` flags setting the pace and mix.
    pace: &'static [&'static str],
    /// Saves to wait for before copying older writes.
    saves: usize,
    /// How long the run that is not killed runs: beyond those saves and one more.
    duration: &'static str,
    /// How long the killed run writes after its last save: writes newer than its state.
    after_save: Duration,
    per_kind: usize,
}

fn scale() -> Scale {
    if std::env::var_os("SPINDLE_VERIFY_FIGURE").is_some_and(|v| v == "1") {
        Scale {
            size: "768M",
            pace: &["--read", "0"],
            saves: 12,
            duration: "20s",
            after_save: Duration::ZERO,
            per_kind: 50,
        }
    } else {
        Scale {
            size: "4M",
            pace: &["--read", "50", "--rate", "400"],
            saves: 1,
            duration: "4s",
            after_save: Duration::from_millis(300),
            per_kind: 2,
        }
    }
}

/// A verified run of random writes (and reads), its target read twice while it runs (a copy
/// of older writes) and its state saved again after that; then it ends by itself, or is
/// killed with SIGKILL. Every kind of fault is put into blocks the state knows of, and
/// `spindle verify` must name exactly those, by offset.
fn faults_named_by_offset(kill: bool) {
    let scale = scale();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s.dat");
    let state = state_of(&target);
    let stderr = std::fs::File::create(dir.path().join("stderr")).unwrap();
    let mut child = spindle_process()
        .args(["io", "--engine", "sync", "--buffered", "--block", "4K", "--random", "100", "--size", scale.size])
        .args(scale.pace)
        .args(["--verify", "--keep-file", "--target"])
        .arg(&target)
        .args(["--duration", if kill { "600s" } else { scale.duration }])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut seen = next_save(&state, None);
    for _ in 0..scale.saves {
        seen = next_save(&state, Some(seen));
    }
    // Older writes of the run: blocks the same in two reads (none was half-copied then).
    let (older, again) = (std::fs::read(&target).unwrap(), std::fs::read(&target).unwrap());
    next_save(&state, Some(seen));
    if kill {
        // Some writes after the last save, newer than the state (how many does not matter).
        std::thread::sleep(scale.after_save);
        child.kill().unwrap();
    }
    let status = child.wait().unwrap();
    let said = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    assert_eq!(status.code(), if kill { None } else { Some(0) }, "{said}");

    let (code, clean) = verify_json(&target);
    assert_eq!((code, &clean["verify"]["faults"]), (Some(0), &serde_json::json!({})), "{clean}");
    let s = &clean["state"];
    assert_eq!(s["complete"], !kill, "{clean}");
    let run = u64::from_str_radix(clean["verify"]["id"].as_str().unwrap(), 16).unwrap();
    // After a kill, the writes of the last moments are newer than the state: faults are put
    // only where the state knows the last write (a margin for the one in flight as it saved).
    let known = if kill { s["next_generation"].as_u64().unwrap() - 16 } else { u64::MAX };

    let mut bytes = std::fs::read(&target).unwrap();
    let blocks = bytes.len() / BLOCK;
    let current: Vec<Option<u64>> = (0..blocks).map(|b| block_write(&bytes, b, run).filter(|&g| g < known)).collect();
    // Blocks apart from one another, so that no two faults join into one finding.
    let mut taken = vec![false; blocks + 1];
    let mut pick = |wanted: &dyn Fn(usize) -> bool, n: usize| -> Vec<usize> {
        let mut picked = Vec::new();
        for b in 1..blocks {
            if picked.len() == n {
                break;
            }
            if !taken[b - 1] && !taken[b] && !taken[b + 1] && wanted(b) {
                taken[b] = true;
                picked.push(b);
            }
        }
        assert_eq!(picked.len(), n, "not enough blocks to put faults in");
        picked
    };
    let overwritten = |b: usize| {
        older[b * BLOCK..][..BLOCK] == again[b * BLOCK..][..BLOCK]
            && matches!((block_write(&older, b, run), current[b]), (Some(o), Some(c)) if o < c)
    };
    let n = scale.per_kind;
    let (stale, torn) = (pick(&overwritten, n), pick(&overwritten, n));
    let known_here = |b: usize| current[b].is_some();
    let (lost, corrupt, misdirected) = (pick(&known_here, n), pick(&known_here, n), pick(&known_here, n));
    // Blocks the run wrote (a block never written copied elsewhere reads as a lost write).
    let sources = pick(&|b| block_write(&bytes, b, run).is_some(), n);

    let at = |b: usize| b * BLOCK;
    let mut expected = BTreeSet::new();
    for (&to, &from) in misdirected.iter().zip(&sources) {
        let copied = bytes[at(from)..][..BLOCK].to_vec();
        bytes[at(to)..][..BLOCK].copy_from_slice(&copied);
        expected.insert(("misdirected".to_string(), at(to), BLOCK, None, Some(at(from))));
    }
    for &b in &stale {
        bytes[at(b)..][..BLOCK].copy_from_slice(&older[at(b)..][..BLOCK]);
        expected.insert(("stale".to_string(), at(b), BLOCK, current[b], None));
    }
    for &b in &torn {
        bytes[at(b) + 2048..][..2048].copy_from_slice(&older[at(b) + 2048..][..2048]);
        expected.insert(("torn".to_string(), at(b) + 2048, 2048, current[b], None));
    }
    for &b in &lost {
        bytes[at(b)..][..BLOCK].fill(0);
        expected.insert(("lost".to_string(), at(b), BLOCK, current[b], None));
    }
    for &b in &corrupt {
        bytes[at(b) + 700] ^= 0x40;
        expected.insert(("corrupt".to_string(), at(b) + 512, 512, None, None));
    }
    std::fs::write(&target, &bytes).unwrap();

    let (code, found) = verify_json(&target);
    assert_eq!(code, Some(1), "{found}");
    let findings = found["verify"]["findings"].as_array().unwrap();
    let named: BTreeSet<_> = findings
        .iter()
        .map(|f| {
            let kind = f["kind"].as_str().unwrap().to_string();
            let offset = f["offset"].as_u64().unwrap() as usize;
            let bytes = f["bytes"].as_u64().unwrap() as usize;
            (kind, offset, bytes, f["expected_generation"].as_u64(), f["meant_for_offset"].as_u64().map(|m| m as usize))
        })
        .collect();
    assert_eq!(named, expected, "every fault named by offset (and the write meant), nothing else");
    let faulty: u64 = expected.iter().map(|f| f.2 as u64 / 512).sum();
    assert_eq!(
        found["verify"]["faults"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>(),
        faulty
    );
    let judged = clean["run_sectors"].as_u64().unwrap() - s["newer_than_state_sectors"].as_u64().unwrap();
    println!(
        "after {}: {} faults put in ({n} of each kind), {} named by offset; {judged} sectors of the run judged clean before, 0 false alarms; {} sectors newer than the state",
        if kill { "SIGKILL" } else { "a clean end" },
        expected.len(),
        named.len(),
        s["newer_than_state_sectors"]
    );

    let text = spindle().args(["verify", "--target"]).arg(&target).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains(&format!("lost        {} offset", target.display())), "{text}");
    if kill {
        assert!(text.contains("before the run was cut off") && text.contains("not judged"), "{text}");
    } else {
        assert!(text.contains("saved at its end"), "{text}");
    }

    // Without the state, the stamps alone cannot place lost or stale writes: said, not hidden.
    std::fs::remove_file(&state).unwrap();
    let (_, alone) = verify_json(&target);
    assert_eq!(alone["not_judged"], serde_json::json!(["lost", "stale"]), "{alone}");
    let text = spindle().args(["verify", "--target"]).arg(&target).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("lost and stale writes cannot be judged"), "{text}");
}

#[test]
fn every_fault_is_named_by_offset_after_a_clean_end() {
    faults_named_by_offset(false);
}

#[test]
fn every_fault_is_named_by_offset_after_sigkill() {
    faults_named_by_offset(true);
}

#[test]
fn what_cannot_be_judged_is_said_and_what_is_not_storage_refused() {
    let dir = tempfile::tempdir().unwrap();
    // A character device would be read forever, a pipe never ends.
    let out = spindle().args(["verify", "--id", "ff", "--target", "/dev/zero"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--target /dev/zero") && stderr.contains("character device"), "{stderr}");
    let fifo = dir.path().join("p");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = spindle().args(["verify", "--id", "ff", "--target"]).arg(&fifo).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pipe"));

    // Zeros where a run wrote, no mark, no state: never "no faults".
    let zeroed = dir.path().join("z.dat");
    std::fs::write(&zeroed, vec![0u8; 1 << 20]).unwrap();
    let out = spindle().args(["verify", "--id", "00000000000000ff", "--target"]).arg(&zeroed).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains("no faults"), "{stdout}");
    assert!(stdout.contains("lost and stale writes cannot be judged") && stdout.contains("none of run"), "{stdout}");

    // The user's file where the state would go is left alone, and the run refused.
    let target = dir.path().join("t.dat");
    let theirs = state_of(&target);
    std::fs::write(&theirs, b"my notes").unwrap();
    let out = spindle()
        .args(["io", "--engine", "sync", "--size", "1M", "--read", "50", "--duration", "1s", "--verify", "--target"])
        .arg(&target)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&theirs.display().to_string()) && stderr.contains("not spindle's"), "{stderr}");
    assert_eq!(std::fs::read(&theirs).unwrap(), b"my notes");
}

#[test]
fn a_device_zeroed_after_a_verified_run_is_judged_from_its_state_or_said_unjudged() {
    let dir = tempfile::tempdir().unwrap();
    let Some(device) = crate::common::Loop::over(dir.path().join("disk.img"), 16 << 20, &[]) else { return };
    // A device's state is kept in the directory the run is started from.
    let here = dir.path().join("here");
    std::fs::create_dir(&here).unwrap();
    let out = spindle()
        .current_dir(&here)
        .args(["io", "--engine", "sync", "--block", "4K", "--random", "100", "--read", "0", "--duration", "1s"])
        .args(["--verify", "--allow-destroy", "--json", "--target", &device.0])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = record["details"]["verify"]["id"].as_str().unwrap().to_string();
    let name = device.0.trim_start_matches("/dev/");
    assert!(here.join(format!("{name}.spindle-verify-state")).is_file());

    let zeros = std::fs::OpenOptions::new().write(true).open(&device.0).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&zeros, &vec![0u8; 16 << 20], 0).unwrap();
    zeros.sync_all().unwrap();

    // From the state: the run is known without --id, and every write it made is lost.
    let out = spindle().current_dir(&here).args(["verify", "--json", "--target", &device.0]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{json}");
    assert_eq!(json["verify"]["id"], id.as_str());
    let v = &json["verify"];
    assert!(v["faults"]["lost"].as_u64().unwrap() > 0 && v["faults"].as_object().unwrap().len() == 1, "{v}");
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["kind"] == "lost"), "{v}");

    // Elsewhere, with no state: never "no faults".
    let out = spindle().current_dir(dir.path()).args(["verify", "--id", &id, "--target", &device.0]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains("no faults") && stdout.contains("none of run"), "{stdout}");
}
