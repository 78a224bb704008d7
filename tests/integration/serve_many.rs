//! `spindle serve` over a store of hundreds of runs: a download of all of them is whole in
//! every format (written as it is sent, run by run), and the runs page sorted by p99 pages
//! through them in the order the stored figures give, each run once.

use crate::common::spindle_with_store;
use crate::serve::Server;
use std::path::{Path, PathBuf};

/// Status and body of a GET.
fn get(server: &Server, path: &str) -> (u16, Vec<u8>) {
    let (status, _, body) = server.get(path, "");
    (status, body)
}

/// More than two pages of the runs page (100 a page).
const RUNS: i64 = 250;

/// A store of `RUNS` runs: one measured, copied with rusqlite as bench/many-runs.sh does,
/// each copy's p99 set apart (with ties, so the order's tie-break counts too).
fn many_runs(dir: &Path) -> PathBuf {
    let store = dir.join("results.db");
    let out = spindle_with_store(&store)
        .args(["io", "--engine", "null", "--duration", "300ms", "--quiet", "--target"])
        .arg(dir.join("x.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let db = rusqlite::Connection::open(&store).unwrap();
    let mut stmt = db.prepare("SELECT name FROM pragma_table_info('runs') WHERE name <> 'id'").unwrap();
    let cols: Vec<String> = stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    let names = cols.join(", ");
    for i in 2..=RUNS {
        db.execute(&format!("INSERT INTO runs ({names}) SELECT {names} FROM runs WHERE id = 1"), []).unwrap();
        let id = db.last_insert_rowid();
        db.execute("INSERT INTO records SELECT ?1, schema, json FROM records WHERE run_id = 1", [id]).unwrap();
        db.execute("INSERT INTO labels VALUES (?1, 'copy', ?2)", rusqlite::params![id, i.to_string()]).unwrap();
    }
    db.execute("UPDATE runs SET latency_p99_ns = 1000 + (id * 37) % 101", []).unwrap();
    store
}

#[test]
fn a_download_of_every_run_is_whole_in_each_format() {
    let dir = tempfile::tempdir().unwrap();
    let store = many_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let all = format!("/download?runs=1-{RUNS}&format=");

    let (status, csv) = get(&server, &format!("{all}csv"));
    assert_eq!(status, 200);
    let csv = String::from_utf8(csv).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let scope = header.iter().position(|h| *h == "scope").unwrap();
    let totals: Vec<&str> = csv.lines().skip(1).filter(|l| l.split(',').nth(scope) == Some("total")).collect();
    assert_eq!(totals.len(), RUNS as usize, "a total row per run");
    let ids: Vec<i64> = totals.iter().map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(ids, (1..=RUNS).collect::<Vec<_>>(), "every run once, oldest first");

    let (status, json) = get(&server, &format!("{all}json"));
    assert_eq!(status, 200);
    let json: serde_json::Value = serde_json::from_slice(&json).expect("the download parses as JSON");
    let records = json.as_array().expect("an array of records");
    assert_eq!(records.len(), RUNS as usize);
    assert!(records.iter().all(|r| r["labels"].is_object() && r["summary"]["ios"].as_u64() > Some(0)));

    let (status, html) = get(&server, &format!("{all}html"));
    assert_eq!(status, 200);
    let html = String::from_utf8(html).unwrap();
    assert_eq!(html.matches("<section id=\"run-").count(), RUNS as usize, "a section per run");
    assert!(html.ends_with("</body></html>\n"), "the page is whole");

    let (status, md) = get(&server, &format!("{all}md"));
    assert_eq!(status, 200);
    let md = String::from_utf8(md).unwrap();
    assert!(md.starts_with("# spindle report\n"));
    assert!(md.contains(&format!("{RUNS} runs")), "the overview counts every run");
    assert!(md.contains(&format!("### run {RUNS}")), "the last run's section is there");

    if cfg!(feature = "xlsx") {
        let (status, xlsx) = get(&server, &format!("{all}xlsx"));
        assert_eq!(status, 200);
        let sheets = spindle_testenv::xlsx::read(&xlsx).expect("the workbook opens");
        let (_, details) =
            sheets.iter().find(|(name, _)| name == "Run details").expect("a sheet of each run's details");
        let titles =
            details.cells.iter().filter(|((_, col), c)| *col == 0 && c.text().is_some_and(|t| t.starts_with("run ")));
        let titled: std::collections::BTreeSet<&str> = titles.filter_map(|(_, c)| c.text()).collect();
        assert!(titled.iter().any(|t| t.starts_with(&format!("run {RUNS}"))), "the last run's details: {titled:?}");
    }
}

#[test]
fn the_runs_page_sorted_by_p99_pages_through_the_stored_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = many_runs(dir.path());
    // The order, from the stored figures as `runs list` reads them: highest p99 first, ties
    // newest first.
    let out = spindle_with_store(&store).args(["runs", "list", "--all", "--json"]).output().unwrap();
    assert!(out.status.success());
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut expected: Vec<(u64, i64)> =
        listed.iter().map(|r| (r["latency_p99_ns"].as_u64().unwrap(), r["id"].as_i64().unwrap())).collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    let expected: Vec<i64> = expected.into_iter().map(|(_, id)| id).collect();
    assert_eq!(expected.len(), RUNS as usize);

    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let mut shown = Vec::new();
    for page in 1..=3 {
        let (status, body) = get(&server, &format!("/?sort=p99&page={page}"));
        assert_eq!(status, 200, "page {page}");
        let body = String::from_utf8(body).unwrap();
        shown
            .extend(body.split("<tr data-id=\"").skip(1).map(|s| s.split('"').next().unwrap().parse::<i64>().unwrap()));
    }
    assert_eq!(shown, expected, "three pages in p99 order, each run once, none missing");
    let (status, _) = get(&server, "/?sort=p99&page=4");
    assert_eq!(status, 400, "there are three pages");
    let (_, ascending) = get(&server, "/?sort=p99&order=asc");
    let ascending = String::from_utf8(ascending).unwrap();
    let first = ascending.split("<tr data-id=\"").nth(1).unwrap().split('"').next().unwrap().parse::<i64>().unwrap();
    assert_eq!(first, *expected.last().unwrap(), "ascending starts at the lowest p99, oldest first");
}

/// In a 1,280-pixel window the runs table fits without scrolling sideways: each start on one
/// line, the text columns wrapping, the figures grouped by thousands.
#[test]
fn the_runs_table_fits_a_1280_pixel_window() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = spindle_testenv::chromium(&dir.path().join("profile")) else { return };
    let store = many_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    browser.open(&server.url("/")).unwrap();
    let width = browser.eval("document.documentElement.scrollWidth").unwrap();
    assert!(width.as_u64().unwrap() <= 1280, "the page is {width} px wide");
    let lines = browser
        .eval("[...document.querySelectorAll('#runs td.d')].map(td => { const r = document.createRange(); r.selectNodeContents(td); return new Set([...r.getClientRects()].map(c => c.top)).size; })")
        .unwrap();
    let lines = lines.as_array().unwrap();
    assert_eq!(lines.len(), 100, "a start per run on the page");
    assert!(lines.iter().all(|n| n.as_u64() == Some(1)), "each start on one line: {lines:?}");
    // The null engine moves gigabytes a second: its MB/s has a thousands separator.
    let mbps = browser.eval("document.querySelector('#runs tr[data-id] td:nth-child(11)').textContent").unwrap();
    let mbps = mbps.as_str().unwrap();
    assert!(mbps.contains(',') && mbps.replace([',', '.'], "").bytes().all(|b| b.is_ascii_digit()), "{mbps}");
    assert_eq!(browser.errors(), Vec::<String>::new());
}
