//! The log test on a managed PostgreSQL or MariaDB whose log has a volume of its own: the
//! leading columns are that volume's, and agree with its own /proc/diskstats.

use crate::common::installed;
use crate::common::{Ext4, Loop, spindle, spindle_with_store};
use std::path::PathBuf;

/// A volume's cumulative writes, sectors written and flushes, from /proc/diskstats.
fn diskstats(name: &str) -> (u64, u64, u64) {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    let line = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).find(|f| f[2] == name).unwrap();
    let n = |i: usize| line[i].parse::<u64>().unwrap();
    (n(7), n(9), line.get(18).map_or(0, |f| f.parse().unwrap()))
}

/// A managed instance taken down (and its directories removed) however the test ends.
struct Instance {
    xdg: PathBuf,
    data: PathBuf,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = spindle()
            .env("XDG_DATA_HOME", &self.xdg)
            .args(["db", "down", "--remove", "--data"])
            .arg(&self.data)
            .output();
    }
}

#[test]
fn logtest_leads_with_the_wal_volumes_own_io() {
    if installed("postgres") {
        // Its WAL segments are written ahead (zeroed): a commit's fdatasync flushes alone.
        leads_with_the_logs_own_volume("postgres", "write() calls", 0.95..=1.2);
    }
}

#[test]
fn logtest_leads_with_the_redo_logs_volumes_own_io() {
    if installed("mariadb") {
        // Its redo log is new: each commit's fdatasync also commits ext4's journal, whose
        // descriptor and commit block are two more writes (counted against the block layer's
        // trace of every request: 9,013 writes of data for 3,000 commits).
        leads_with_the_logs_own_volume("mariadb", "redo writes", 2.9..=3.2);
    }
}

/// A managed instance of `engine` whose log has an ext4 loop device of its own: the log test
/// leads with what that volume did, and its writes and bytes are the device's own counts over
/// the run (less the settling between sizes), `per_commit` writes a commit at one row a
/// transaction (the flushes the kernel also counts as writes set apart), with the engine's
/// counters beside, named `writes_are`.
fn leads_with_the_logs_own_volume(engine: &str, writes_are: &str, per_commit: std::ops::RangeInclusive<f64>) {
    let scratch = tempfile::tempdir().unwrap();
    let Some(device) = Loop::over(scratch.path().join("wal.img"), 1 << 30, &[]) else { return };
    let name = device.0.trim_start_matches("/dev/").to_string();
    let Some(fs) = Ext4::on(device) else { return };
    let instance = Instance { xdg: scratch.path().join("xdg"), data: scratch.path().join("data") };
    let up = spindle()
        .env("XDG_DATA_HOME", &instance.xdg)
        .args(["db", "up", "--engine", engine, "--data"])
        .arg(&instance.data)
        .arg("--wal")
        .arg(fs.mount.join("wal"))
        .output()
        .unwrap();
    assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
    let url = String::from_utf8(up.stdout).unwrap().trim().to_string();

    let before = diskstats(&name);
    let run = spindle_with_store(&scratch.path().join("results.db"))
        .args(["logtest", "--db", &url, "--rows", "3000", "--batch", "1,100", "--settle", "0s", "--json"])
        .output()
        .unwrap();
    let after = diskstats(&name);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&run.stdout).unwrap();
    let lead = |r: &serde_json::Value, k: &str| r["lead"][k].as_f64().unwrap_or_else(|| panic!("{k}: {r}"));
    for r in &rows {
        assert_eq!(r["lead"]["volume"], name.as_str(), "{r}");
        assert_eq!((r["own_volume"].as_bool(), r["engine_leads"].is_null()), (Some(true), true), "{r}");
        assert_eq!(r["log_writes_are"], writes_are, "the engine's counts beside, named: {r}");
    }
    // Everything the volume counted: the leading (data-carrying) writes and the flushes the
    // kernel counted among them; what the settling between sizes wrote is all that is left.
    let writes: f64 = rows.iter().map(|r| r["device"]["writes"].as_f64().unwrap()).sum();
    let bytes: f64 = rows.iter().map(|r| lead(r, "bytes")).sum();
    let (dev_writes, dev_bytes) = ((after.0 - before.0) as f64, ((after.1 - before.1) * 512) as f64);
    assert!((writes - dev_writes).abs() <= 0.02 * dev_writes, "writes {writes} against the device's {dev_writes}");
    assert!((bytes - dev_bytes).abs() <= 0.02 * dev_bytes, "bytes {bytes} against the device's {dev_bytes}");
    let empty: f64 = rows.iter().map(|r| r["device"]["empty_writes"].as_f64().unwrap_or(0.0)).sum();
    assert!((writes - empty - rows.iter().map(|r| lead(r, "writes")).sum::<f64>()).abs() < 0.5);
    let at_one = lead(&rows[0], "writes_per_transaction");
    assert!(per_commit.contains(&at_one), "{at_one} writes per commit at one row: {}", rows[0]);
    assert!(lead(&rows[0], "flushes") >= 3000.0, "a flush per durable commit: {}", rows[0]);
    let best: Vec<&serde_json::Value> = rows.iter().filter(|r| r["optimum"] == true).collect();
    let rising: Vec<&serde_json::Value> = rows.iter().filter(|r| r["still_rising"] == true).collect();
    assert_eq!(best.len() + rising.len(), 1, "one size marked: {rows:?}");
    if let Some(best) = best.first() {
        assert!(best["optimum_why"].as_str().unwrap().contains("within 10% of the best"), "{best}");
    } else {
        assert_eq!(rising[0]["transaction_size"], rows.last().unwrap()["transaction_size"], "{rows:?}");
    }
    drop(instance);
}
