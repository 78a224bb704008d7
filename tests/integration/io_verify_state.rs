//! `spindle verify` against the write state a verified run keeps beside its target: every
//! lost, stale, torn, misdirected and corrupt block put into the file is named by its offset,
//! after a run that ended cleanly and after one killed with SIGKILL, with no false alarm;
//! without the state it says what it cannot judge; what is not storage, and anything not
//! spindle's where the state would go, is refused with exit 2.

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

/// A verified run of random reads and writes over 4 MiB, its target read twice while it
/// runs (a copy of older writes) and its state saved twice after that; then it ends by
/// itself, or is killed with SIGKILL. Every kind of fault is put into blocks the state knows
/// of, and `spindle verify` must name exactly those.
fn faults_named_by_offset(kill: bool) {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s.dat");
    let state = state_of(&target);
    let stderr = std::fs::File::create(dir.path().join("stderr")).unwrap();
    let mut child = spindle_process()
        .args(["io", "--engine", "sync", "--buffered", "--size", "4M", "--block", "4K", "--random", "100"])
        .args(["--read", "50", "--rate", "400", "--verify", "--keep-file", "--target"])
        .arg(&target)
        .args(["--duration", if kill { "120s" } else { "5s" }])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let first = next_save(&state, None);
    let writing = next_save(&state, Some(first));
    // Older writes of the run: blocks the same in two reads (none was half-copied then).
    let (older, again) = (std::fs::read(&target).unwrap(), std::fs::read(&target).unwrap());
    next_save(&state, Some(writing));
    if kill {
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
    let overwritten: Vec<usize> = (0..blocks)
        .filter(|&b| older[b * BLOCK..][..BLOCK] == again[b * BLOCK..][..BLOCK])
        .filter(|&b| matches!((block_write(&older, b, run), current[b]), (Some(o), Some(c)) if o < c))
        .collect();
    assert!(overwritten.len() >= 2, "blocks written again after the copy: {overwritten:?}");
    let (stale, torn) = (overwritten[0], overwritten[1]);
    let others: Vec<usize> = (0..blocks).filter(|&b| current[b].is_some() && b != stale && b != torn).collect();
    assert!(others.len() >= 4, "blocks the state knows: {others:?}");
    let (lost, corrupt, misdirected, from) = (others[0], others[1], others[2], others[3]);

    let block = |b: usize| b * BLOCK..(b + 1) * BLOCK;
    bytes[block(stale)].copy_from_slice(&older[block(stale)]);
    bytes[torn * BLOCK + 2048..(torn + 1) * BLOCK].copy_from_slice(&older[torn * BLOCK + 2048..(torn + 1) * BLOCK]);
    bytes[block(lost)].fill(0);
    bytes[corrupt * BLOCK + 700] ^= 0x40;
    let copied = bytes[block(from)].to_vec();
    bytes[block(misdirected)].copy_from_slice(&copied);
    std::fs::write(&target, &bytes).unwrap();

    let (code, found) = verify_json(&target);
    assert_eq!(code, Some(1), "{found}");
    let named: BTreeSet<(String, u64, u64)> = found["verify"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["kind"].as_str().unwrap().to_string(), f["offset"].as_u64().unwrap(), f["bytes"].as_u64().unwrap()))
        .collect();
    let at = |b: usize| (b * BLOCK) as u64;
    let expected: BTreeSet<(String, u64, u64)> = [
        ("stale", at(stale), 4096),
        ("torn", at(torn) + 2048, 2048),
        ("lost", at(lost), 4096),
        ("corrupt", at(corrupt) + 512, 512),
        ("misdirected", at(misdirected), 4096),
    ]
    .into_iter()
    .map(|(k, o, n)| (k.to_string(), o, n))
    .collect();
    assert_eq!(named, expected, "every fault named by offset, and nothing else: {found}");
    let f = |kind: &str| found["verify"]["findings"].as_array().unwrap().iter().find(|f| f["kind"] == kind).unwrap();
    assert_eq!(f("stale")["expected_generation"], current[stale].unwrap(), "{found}");
    assert_eq!(f("stale")["found_generation"], block_write(&older, stale, run).unwrap(), "{found}");
    assert_eq!(f("lost")["expected_generation"], current[lost].unwrap(), "{found}");
    assert_eq!(f("misdirected")["meant_for_offset"], at(from), "{found}");

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
