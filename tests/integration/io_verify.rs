//! `spindle io --verify` and `spindle verify` on real files: a clean run is clean, damage put
//! into a kept file is found and named by kind and offset, a process overwriting the file
//! under a verified run is caught in the act, and misuse is refused with exit 2.

use crate::common::{io_usage_error, spindle};
use std::path::Path;

/// A verified run of random reads and writes on `target` (kept), as JSON.
fn verified_run(target: &Path, extra: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = spindle()
        .args(["io", "--engine", "sync", "--buffered", "--size", "2M", "--block", "4K", "--random", "100"])
        .args(["--duration", "1s", "--verify", "--keep-file", "--json", "--target"])
        .arg(target)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let record = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no record: {stderr}"));
    (out.status.code(), record, stderr)
}

fn verify_file(target: &Path) -> (Option<i32>, serde_json::Value) {
    let out = spindle().args(["verify", "--json", "--target"]).arg(target).output().unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

fn faults(v: &serde_json::Value, kind: &str) -> u64 {
    v["faults"][kind].as_u64().unwrap_or(0)
}

/// Whether the file system keeps user xattrs (where the run's mark lives).
fn marks_kept(target: &Path) -> bool {
    let out = spindle().args(["verify", "--target"]).arg(target).output().unwrap();
    let kept = !String::from_utf8_lossy(&out.stderr).contains("no verification mark");
    if !kept {
        spindle_testenv::unavailable("user xattrs", "the verification mark was not kept");
    }
    kept
}

#[test]
fn a_clean_run_is_clean_and_damage_put_into_the_kept_file_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("v.dat");
    let (code, record, stderr) = verified_run(&target, &["--read", "50"]);
    assert_eq!(code, Some(0), "{stderr}");
    let v = &record["details"]["verify"];
    assert!(v["sectors_checked"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["faults"], serde_json::json!({}), "{v}");
    if !marks_kept(&target) {
        return;
    }
    let (code, clean) = verify_file(&target);
    assert_eq!(code, Some(0), "{clean}");
    let run_sectors = clean["run_sectors"].as_u64().unwrap();
    assert!(run_sectors > 0 && clean["verify"]["id"] == v["id"], "{clean}");

    // Damage three blocks the run wrote: a bit flip, half a block zeroed (a torn write), and
    // one block's data copied over another (a misdirected write).
    let mut bytes = std::fs::read(&target).unwrap();
    let stamped: Vec<usize> =
        (0..bytes.len() / 4096).map(|b| b * 4096).filter(|&at| &bytes[at + 8..at + 16] == b"SPNDLVF2").collect();
    assert!(stamped.len() > 3, "the run wrote blocks");
    let (flip, tear, over, from) = (stamped[0], stamped[1], stamped[2], stamped[3]);
    bytes[flip + 700] ^= 0x40;
    bytes[tear + 2048..tear + 4096].fill(0);
    let copied = bytes[from..from + 4096].to_vec();
    bytes[over..over + 4096].copy_from_slice(&copied);
    std::fs::write(&target, &bytes).unwrap();

    let (code, found) = verify_file(&target);
    assert_eq!(code, Some(1), "{found}");
    let v = &found["verify"];
    assert_eq!(faults(v, "corrupt"), 1, "{v}");
    assert_eq!(faults(v, "torn"), 4, "{v}");
    assert_eq!(faults(v, "misdirected"), 8, "{v}");
    let at =
        |kind: &str| v["findings"].as_array().unwrap().iter().find(|f| f["kind"] == kind).unwrap()["offset"].clone();
    assert_eq!(at("corrupt"), (flip + 512) as u64);
    assert_eq!(at("torn"), (tear + 2048) as u64);
    assert_eq!(at("misdirected"), over as u64);

    // A later verified run only reading judges nothing the earlier run wrote: those sectors
    // could hold anyone's bytes by then. They are unchecked, never a false alarm.
    let (code, record, stderr) = verified_run(&target, &["--read", "100"]);
    assert_eq!(code, Some(0), "{stderr}");
    let v = &record["details"]["verify"];
    assert!(v["sectors_unchecked"].as_u64().unwrap() > 0 && v["faults"] == serde_json::json!({}), "{v}");
}

#[test]
fn writes_overwritten_under_a_verified_run_are_caught_as_lost() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("v.dat");
    std::fs::write(&target, b"").unwrap();
    let mut child = crate::common::spindle_process()
        .args(["io", "--engine", "sync", "--buffered", "--size", "1M", "--block", "4K", "--random", "100"])
        .args(["--read", "50", "--duration", "2s", "--verify", "--force", "--json", "--target"])
        .arg(&target)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Zeros over the whole file, again and again, behind the run's back: every read of a
    // block the run wrote before the zeros finds its write gone.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut pipe.unwrap(), &mut bytes).unwrap();
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let zeros = vec![0u8; 1 << 20];
    let file = std::fs::OpenOptions::new().write(true).open(&target).unwrap();
    while child.try_wait().unwrap().is_none() {
        std::os::unix::fs::FileExt::write_all_at(&file, &zeros, 0).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    let stderr = String::from_utf8(stderr.join().unwrap()).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    let record: serde_json::Value = serde_json::from_slice(&stdout.join().unwrap()).unwrap();
    let v = &record["details"]["verify"];
    assert!(faults(v, "lost") > 0, "{v}");
    let lost = v["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "lost").unwrap();
    assert!(lost["expected_generation"].as_u64().unwrap() > 0, "{lost}");
}

#[test]
fn verify_refuses_what_it_cannot_check() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.dat");
    std::fs::write(&plain, vec![7u8; 8192]).unwrap();
    let out = spindle().args(["verify", "--target"]).arg(&plain).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--target") && stderr.contains("not written under --verify"), "{stderr}");
    assert_eq!(std::fs::read(&plain).unwrap(), vec![7u8; 8192], "the file is untouched");
    let out = spindle().args(["verify", "--id", "xyz", "--target"]).arg(&plain).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--id"));

    let t = dir.path().join("t.dat");
    let t = t.to_str().unwrap();
    let e = io_usage_error(&["--engine", "null", "--target", t, "--size", "1M", "--verify", "--duration", "1s"]);
    assert!(e.contains("--verify") && e.contains("null engine"), "{e}");
    let e = io_usage_error(&["--target", t, "--size", "1M", "--block", "1000", "--verify", "--duration", "1s"]);
    assert!(e.contains("multiple of 512"), "{e}");
}
