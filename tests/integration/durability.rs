//! `spindle durability`: a power cut simulated on a loop device by snapshotting its backing
//! file while the writer runs (every write acknowledged before a snapshot began must be in
//! it), a writer killed with SIGKILL mid-write, the log kept by a listener over TCP, and logs
//! that do not belong to the target refused with exit 2.

use crate::common::{Loop, path_str, spindle, spindle_process};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Acknowledgements in a log's text.
fn acks(text: &[u8]) -> usize {
    text.split(|&b| b == b'\n').filter(|l| l.starts_with(b"A ")).count()
}

/// Waits until the log at `path` holds at least `n` acknowledgements; the writer runs free, so
/// this waits on what it has said, never on a clock (the limit only ends a test whose writer died).
fn wait_for_acks(path: &Path, n: usize, writer: &mut Child) -> Vec<u8> {
    let start = Instant::now();
    loop {
        let text = std::fs::read(path).unwrap_or_default();
        if acks(&text) >= n {
            return text;
        }
        if let Some(status) = writer.try_wait().unwrap() {
            panic!("the writer ended ({status}) before {n} acknowledgements");
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no {n} acknowledgements in 120 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn kill(child: &mut Child) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
}

/// `durability verify`: (exit code, stdout, stderr).
fn verify(target: &Path, log: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let out = spindle()
        .args(["durability", "verify", "--target"])
        .arg(target)
        .args(["--log", log])
        .args(extra)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn every_write_acknowledged_before_a_snapshot_is_in_it_and_an_older_snapshot_shows_the_loss() {
    let Some(device) = Loop::attach(512) else { return };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("d.log");
    let mut writer = spindle_process()
        .args(["durability", "write", "--allow-destroy", "--target", &device.0, "--log", path_str(&log)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Power cuts at five moments: the log as it stood, then the device's backing file as it
    // is now (what a power cut after those acknowledgements would leave at best).
    let mut acked = 50;
    let mut cuts = Vec::new();
    for i in 0..5 {
        let said = wait_for_acks(&log, acked, &mut writer);
        let snapshot = dir.path().join(format!("cut{i}.img"));
        std::fs::copy(&device.1, &snapshot).unwrap();
        let prefix = dir.path().join(format!("cut{i}.log"));
        std::fs::write(&prefix, &said).unwrap();
        cuts.push((snapshot, prefix));
        acked = acks(&said) + 50;
    }
    wait_for_acks(&log, acked, &mut writer);
    // SIGKILL mid-write: whatever was in flight, every acknowledged write is on the device.
    kill(&mut writer);
    let (code, out, err) = verify(Path::new(&device.0), path_str(&log), &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("never ended") && out.contains("every acknowledged write is there"), "{out}");
    for (snapshot, prefix) in &cuts {
        let (code, out, err) = verify(snapshot, path_str(prefix), &[]);
        assert_eq!(code, Some(0), "{}: {out}{err}", snapshot.display());
        assert!(out.contains(": no faults"), "{out}");
    }
    // The first snapshot against the whole log: a storage that kept only what it had then
    // lost every write acknowledged since, and the check says so.
    let (code, out, err) = verify(&cuts[0].0, path_str(&log), &["--json"]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let faulty: u64 = report["verify"]["faults"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert!(faulty >= 8, "{out}");
    assert!(report["kept_places"].as_u64() < report["acknowledged_places"].as_u64(), "{out}");
    let (_, text, _) = verify(&cuts[0].0, path_str(&log), &[]);
    assert!(text.contains("ACKNOWLEDGED WRITES LOST"), "{text}");
}

#[test]
fn a_listener_keeps_the_log_of_a_writer_killed_mid_write_and_hands_it_to_verify() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let mut listener = spindle_process()
        .args(["durability", "listen", "--listen", "127.0.0.1:0", "--dir"])
        .arg(&logs)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(listener.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let address = first.strip_prefix("listening on ").and_then(|r| r.split(';').next()).unwrap().to_string();
    let target = dir.path().join("d.dat");
    let mut writer = spindle_process()
        .args(["durability", "write", "--size", "8M", "--block", "8K", "--writes-per-flush", "2", "--target"])
        .arg(&target)
        .args(["--log", &address])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let logged = lines.next().unwrap().unwrap();
    assert!(logged.contains("logging to"), "{logged}");
    let run = logged.split(' ').nth(1).unwrap().to_string();
    wait_for_acks(&logs.join(format!("{run}.log")), 100, &mut writer);
    kill(&mut writer);
    // The listener has kept all the writer sent once it sees the connection close.
    let closed = lines.next().unwrap().unwrap();
    assert!(closed.contains("connection closed"), "{closed}");
    let (code, out, err) = verify(&target, &address, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains(&run) && out.contains("every acknowledged write is there"), "{out}");
    // A run the listener never heard of.
    let (code, _, err) = verify(&target, &address, &["--id", "0123456789abcdef"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--log") && err.contains("keeps no log of run 0123456789abcdef"), "{err}");
    // SAFETY: a signal to our own child; Ctrl-C ends the listener cleanly.
    unsafe { libc::kill(listener.id() as i32, libc::SIGINT) };
    assert!(listener.wait().unwrap().success());
}

#[test]
fn a_log_of_another_run_or_target_is_refused_naming_the_mismatch() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let write = |name: &str, size: &str| {
        let target = dir.path().join(format!("{name}.dat"));
        let log = dir.path().join(format!("{name}.log"));
        let out = spindle()
            .args(["durability", "write", "--size", size, "--duration", "300ms", "--target"])
            .arg(&target)
            .args(["--log", path_str(&log)])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (target, log)
    };
    let (a, a_log) = write("a", "2M");
    let (b, b_log) = write("b", "2M");
    let (small, _) = write("small", "1M");
    let (code, out, err) = verify(&a, path_str(&a_log), &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    // The file's mark names its run.
    let (code, _, err) = verify(&a, path_str(&b_log), &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--log") && err.contains("last written by run"), "{err}");
    // A copy keeps no mark; its stamps name the run.
    let copy = dir.path().join("copy.dat");
    std::fs::copy(&b, &copy).unwrap();
    let (code, _, err) = verify(&copy, path_str(&a_log), &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("holds writes of run") && err.contains("none of it"), "{err}");
    let (code, _, err) = verify(&small, path_str(&a_log), &["--id", "1"]);
    // It failed once in a full run with exit 1, the reason unseen: say it if it fails again.
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--log") && err.contains("not of run 0000000000000001"), "{err}");
    // A target smaller than the log's.
    std::fs::copy(&small, dir.path().join("small-copy.dat")).unwrap();
    let (code, _, err) = verify(&dir.path().join("small-copy.dat"), path_str(&a_log), &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("another target"), "{err}");
    // Not a log at all, and a log file that exists already (never overwritten).
    let (code, _, err) = verify(&a, path_str(&a), &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--log") && err.contains("not a durability log"), "{err}");
    let before = std::fs::read(&a_log).unwrap();
    let out = spindle()
        .args(["durability", "write", "--size", "2M", "--duration", "100ms", "--target"])
        .arg(dir.path().join("c.dat"))
        .args(["--log", path_str(&a_log)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never overwritten"));
    assert_eq!(std::fs::read(&a_log).unwrap(), before);
    assert!(!dir.path().join("c.dat").exists(), "nothing made for a refused run");
}

/// Colour as people expect it: the verdict in red when asked for (CLICOLOR_FORCE stands in for
/// a terminal here), never under NO_COLOR, and never in what goes to a pipe otherwise.
#[test]
fn a_lost_write_is_red_when_colour_is_on_and_plain_otherwise() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let (target, log) = (dir.path().join("c.dat"), dir.path().join("c.log"));
    let out = spindle()
        .args(["durability", "write", "--size", "1M", "--duration", "300ms", "--target"])
        .arg(&target)
        .args(["--log", path_str(&log)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The storage "loses" everything: the file zeroed.
    std::fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    let verify = |colour: &[(&str, &str)]| {
        let mut cmd = spindle();
        cmd.env_remove("NO_COLOR")
            .args(["durability", "verify", "--target"])
            .arg(&target)
            .args(["--log", path_str(&log)]);
        for (k, v) in colour {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert!(verify(&[("CLICOLOR_FORCE", "1")]).contains("\x1b[1;31mACKNOWLEDGED WRITES LOST\x1b[0m"));
    for plain in [verify(&[]), verify(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])] {
        assert!(plain.contains("ACKNOWLEDGED WRITES LOST") && !plain.contains('\x1b'), "{plain}");
    }
    let err =
        spindle().env_remove("NO_COLOR").env("CLICOLOR_FORCE", "1").args(["io", "--size", "lots"]).output().unwrap();
    assert!(String::from_utf8_lossy(&err.stderr).contains("\x1b[1;31merror:\x1b[0m"));
}
