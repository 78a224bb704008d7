//! `spindle compare` of label groups of thousands of runs, on SQLite and on PostgreSQL: the
//! sides are read a run at a time, the verdict is the one certain by design (B's null-engine
//! runs held at twice A's rate, the sides interleaved in time so drift cannot explain it), and
//! serve's compare page gives the command's answer to the byte, where it once refused a side
//! of more than 2,000 runs (413).

use crate::common::spindle;
use crate::serve::Server;
use spindle_store::{Location, Placement, Store};
use std::path::Path;

/// Runs of each side: A more than serve's compare page once read.
const RUNS: (usize, usize) = (2001, 100);

/// A store holding `RUNS.0` copies of a run at 400 I/Os a second (`side=a`), started a minute
/// apart, and `RUNS.1` of one at 800 (`side=b`) among them.
fn fill(store: &str, dir: &Path) {
    for rate in ["400", "800"] {
        let out = spindle()
            .args(["io", "--engine", "null", "--rate", rate, "--duration", "500ms", "--quiet", "--store", store])
            .arg("--target")
            .arg(dir.join("x.dat"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let mut s = Store::open(Location::parse(Path::new(store)).unwrap()).unwrap();
    let (a, b) = (s.load(1).unwrap().record, s.load(2).unwrap().record);
    let copy = |run: &spindle_model::RunRecord, side: &str, minute: usize| {
        let mut copy = run.clone();
        copy.labels.insert("side".into(), side.into());
        copy.started_at = format!("2026-11-{}T{:02}:{:02}:00Z", 20 + minute / 1440, minute / 60 % 24, minute % 60);
        copy
    };
    let a_copies = (0..RUNS.0).map(|i| copy(&a, "a", i));
    let copies: Vec<_> = a_copies.chain((0..RUNS.1).map(|i| copy(&b, "b", 20 * i + 1))).collect();
    let placed: Vec<_> = copies.iter().map(|r| (r, Placement::default())).collect();
    s.save_all(&placed).unwrap();
}

fn twice_the_rate_is_found_among_many_runs(store: &str) {
    let dir = tempfile::tempdir().unwrap();
    fill(store, dir.path());
    let out =
        spindle().args(["compare", "--a", "side=a", "--b", "side=b", "--json", "--store", store]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((c["a_runs"].as_array().unwrap().len(), c["b_runs"].as_array().unwrap().len()), RUNS);
    assert_eq!((&c["basis"], &c["sequence"]), (&"independent".into(), &"interleaved".into()), "{c}");
    let iops = &c["metrics"][0];
    assert_eq!((&iops["metric"], &iops["verdict"]), (&"iops".into(), &"better".into()), "{c}");
    let change = iops["change_pct"].as_f64().unwrap();
    assert!((90.0..110.0).contains(&change), "twice the rate: {change}");
    assert!(c["headline"].as_str().unwrap().starts_with("B outperforms A by"), "{c}");

    let server = Server::start(Path::new(store), &["--listen", "127.0.0.1:0"]);
    let (status, _, json) = server.get("/compare?a=side%3Da&b=side%3Db&format=json", "");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&json));
    assert_eq!(json, out.stdout, "the page's answer is the command's");
}

#[test]
fn twice_the_rate_is_found_among_thousands_of_runs_in_an_sqlite_store() {
    let dir = tempfile::tempdir().unwrap();
    twice_the_rate_is_found_among_many_runs(dir.path().join("results.db").to_str().unwrap());
}

#[cfg(feature = "postgres")]
#[test]
fn twice_the_rate_is_found_among_thousands_of_runs_in_a_postgres_store() {
    let Some(db) = crate::server_db::TestDb::create(&crate::hammer_postgres::POSTGRES, "compare_many") else { return };
    twice_the_rate_is_found_among_many_runs(&db.url());
}
