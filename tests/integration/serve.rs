//! `spindle serve`: the pages over a real store, what they refuse, the token, bad stores and
//! ports; and in headless Chromium, what a person sees once the page's script ran.

use crate::common::{spindle_process, spindle_with_store};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// A running `spindle serve`, stopped when dropped.
pub(crate) struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    addr: String,
    /// What it printed when it started.
    banner: String,
}

impl Server {
    pub(crate) fn start(store: &Path, args: &[&str]) -> Server {
        let mut child = spindle_process()
            .arg("serve")
            .arg("--store")
            .arg(store)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut banner = String::new();
        let addr = loop {
            let Some(line) = lines.next() else { panic!("serve ended before printing its address:\n{banner}") };
            let line = line.unwrap();
            banner.push_str(&line);
            banner.push('\n');
            if let Some(rest) = line.strip_prefix("serving http://") {
                break rest.split('/').next().unwrap().to_string();
            }
        };
        // Keep reading so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server { child, addr, banner }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Status, headers and body of one request.
    pub(crate) fn get(&self, path: &str, headers: &str) -> (u16, String, Vec<u8>) {
        raw(&self.addr, &format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}\r\n", self.addr))
    }

    fn page(&self, path: &str) -> (u16, String) {
        let (status, _, body) = self.get(path, "");
        (status, String::from_utf8(body).unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn raw(addr: &str, request: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).unwrap();
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&bytes[..end]).to_string();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    let body = &bytes[end + 4..];
    let chunked = head.lines().any(|l| l.eq_ignore_ascii_case("transfer-encoding: chunked"));
    (status, head, if chunked { unchunked(body) } else { body.to_vec() })
}

/// A chunked body's bytes (a streamed download's): it must end with its last chunk, or it
/// was cut.
fn unchunked(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n").expect("a chunk's size line: the body was cut");
        let size = std::str::from_utf8(&body[..line_end]).unwrap().split(';').next().unwrap();
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        body = &body[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

/// A store with an I/O run labelled with markup, a group of two repeats, and runs to compare.
fn store_with_runs(dir: &Path) -> PathBuf {
    let store = dir.join("results.db");
    for (label, rate, repeat) in
        [("disk=<script>alert(1)</script>", "400", "1"), ("raid=5", "400", "2"), ("raid=10", "800", "2")]
    {
        let out = spindle_with_store(&store)
            .args(["io", "--engine", "null", "--rate", rate, "--duration", "2s", "--repeat", repeat, "--quiet"])
            .args(["--label", label, "--target"])
            .arg(dir.join("x.dat"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    store
}

fn digest(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn serve_pages_show_the_store_and_refuse_hostile_requests() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let before = digest(&store);
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);

    let (status, runs) = server.page("/");
    assert_eq!(status, 200, "{runs}");
    for id in 1..=5 {
        assert!(runs.contains(&format!("<a href=\"/run/{id}\">{id}</a>")), "run {id} listed: {runs}");
    }
    assert!(!runs.contains("<script>alert"), "labels are escaped");
    assert!(runs.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let (status, filtered) = server.page("/?label=raid%3D10&sort=rate&order=asc");
    assert_eq!(status, 200);
    assert_eq!(filtered.matches("<tr data-id=").count(), 2, "{filtered}");

    let (status, run) = server.page("/run/1");
    assert_eq!(status, 200);
    assert!(run.contains("<svg") && run.contains("Command line"), "charts and the command line");
    assert!(!run.contains("<script>alert"));
    let (status, group) = server.page("/group/1");
    assert_eq!(status, 200);
    assert!(group.contains("<a href=\"/run/2\">2</a>"), "{group}");

    // The compare page's verdict is the command's, to the byte of its JSON.
    let (status, _, json) = server.get("/compare?a=raid%3D5&b=raid%3D10&format=json", "");
    assert_eq!(status, 200);
    let cli =
        spindle_with_store(&store).args(["compare", "--a", "raid=5", "--b", "raid=10", "--json"]).output().unwrap();
    assert!(cli.status.success());
    let page: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let command: serde_json::Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(page, command);
    // A run page's "compare with another": the form, side A filled in, asking for B.
    let (status, half) = server.page("/compare?a=1");
    assert_eq!(status, 200, "{half}");
    assert!(half.contains("pick side B") && half.contains("<form") && half.contains("value=\"1\""), "{half}");
    let (status, compare) = server.page("/compare?a=raid%3D5&b=raid%3D10");
    assert_eq!(status, 200);
    let headline = command["headline"].as_str().unwrap();
    assert!(compare.contains(&spindle_report::esc(headline).to_string()), "{headline} in {compare}");

    for format in ["html", "csv", "json", "xlsx"] {
        if format == "xlsx" && !cfg!(feature = "xlsx") {
            continue;
        }
        let (status, head, body) = server.get(&format!("/download?a=1&b=2&format={format}"), "");
        assert_eq!(status, 200, "{format}: {head}");
        assert!(head.contains(&format!("filename=\"spindle-runs-1-to-2.{format}\"")), "{head}");
        assert!(!body.is_empty());
    }

    for (path, expected) in [
        ("/run/-1", 400),
        ("/run/99999999999999999999999", 400),
        ("/run/12abc", 400),
        ("/run/999", 404),
        ("/group/0", 400),
        ("/group/77", 404),
        ("/../../etc/passwd", 400),
        ("/%2e%2e/%2e%2e/etc/passwd", 400),
        ("/assets/..%2f..%2fCargo.toml", 400),
        ("/nothing", 404),
        ("/?page=99999999999999999999", 400),
        ("/?page=-3", 400),
        ("/?sort=%3Cscript%3Ealert(1)%3C/script%3E", 400),
        ("/?label=nosuch%3D1", 404),
        ("/?label=%3Cscript%3E", 400),
        ("/?since=yesterday", 400),
        ("/compare?a=-5&b=2", 400),
        ("/compare?a=1&b=999", 404),
        ("/compare?a=1&b=2&threshold=1e999", 400),
        ("/download?format=exe&runs=1", 400),
        ("/download?format=csv", 400),
        ("/download?runs=1-99999999999999999999", 400),
        ("/download?runs=900-990", 404),
    ] {
        let (status, body) = server.page(path);
        assert_eq!(status, expected, "{path}: {body}");
        assert!(!body.contains("<script>"), "{path} escaped its input: {body}");
    }
    let (status, _, _) = raw(&server.addr, &format!("POST / HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr));
    assert_eq!(status, 405);
    let (status, _, _) = raw(&server.addr, "GET / HTTP/1.1\r\nHost: rebound.example:80\r\n\r\n");
    assert_eq!(status, 403, "a page elsewhere cannot reach it through a rebound name");
    let (status, _, _) = raw(&server.addr, "NONSENSE\r\n\r\n");
    assert_eq!(status, 400);
    drop(server);
    assert!(digest(&store) == before, "no request changed the store");
}

#[test]
fn serve_on_the_network_needs_its_token() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "0.0.0.0:0"]);
    let token =
        server.banner.split("token=").nth(1).expect("a generated token printed").split_whitespace().next().unwrap();
    let token = token.to_string();
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    let addr = format!("127.0.0.1:{port}");
    for path in ["/", "/run/1", "/assets/serve.js", "/nothing", "/?token=wrong"] {
        let (status, _, _) = raw(&addr, &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
        assert_eq!(status, 401, "{path}");
    }
    let (status, head, _) = raw(&addr, &format!("GET /?token={token} HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
    assert_eq!(status, 200);
    assert!(head.contains(&format!("Set-Cookie: spindle_token={token}; Path=/; HttpOnly; SameSite=Strict")), "{head}");
    let (status, _, _) =
        raw(&addr, &format!("GET /run/1 HTTP/1.1\r\nHost: {addr}\r\nCookie: spindle_token={token}\r\n\r\n"));
    assert_eq!(status, 200);
    let short = spindle_with_store(&store).args(["serve", "--listen", "0.0.0.0:0", "--token", "abc"]).output().unwrap();
    assert_eq!(short.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&short.stderr).contains("--token"), "names the flag");

    // A token given is gone from the process list while serve runs, and still opens the pages.
    let given = "Tok3nTok3nTok3nTok3nTok3n";
    let server = Server::start(&store, &["--listen", "0.0.0.0:0", "--token", given]);
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", server.child.id())).unwrap();
    let shown = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    assert!(!shown.contains(given) && shown.contains("--token x"), "{shown}");
    let addr = format!("127.0.0.1:{}", server.addr.rsplit(':').next().unwrap());
    let (status, _, _) = raw(&addr, &format!("GET /?token={given} HTTP/1.1\r\nHost: {addr}\r\n\r\n"));
    assert_eq!(status, 200);
}

#[test]
fn serve_refuses_bad_stores_and_busy_ports_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let serve = |store: &Path, listen: &str| {
        // A store taken by mistake would serve until killed: the timeout ends the test instead.
        let out = spindle_with_store(store)
            .args(["serve", "--listen", listen])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let missing = dir.path().join("none.db");
    assert!(serve(&missing, "127.0.0.1:0").contains("no results store"));
    assert!(!missing.exists(), "nothing created");
    let foreign = dir.path().join("notes.db");
    std::fs::write(&foreign, "my notes, not a store\n".repeat(300)).unwrap();
    let before = digest(&foreign);
    serve(&foreign, "127.0.0.1:0");
    assert!(digest(&foreign) == before, "a foreign file is left untouched");
    let newer = dir.path().join("newer.db");
    {
        let c = rusqlite::Connection::open(&newer).unwrap();
        let id = spindle_store::APPLICATION_ID;
        c.execute_batch(&format!(
            "PRAGMA application_id = {id}; PRAGMA user_version = 999; CREATE TABLE runs (id INTEGER);"
        ))
        .unwrap();
    }
    let before = digest(&newer);
    assert!(serve(&newer, "127.0.0.1:0").contains("newer"), "says a newer spindle made it");
    assert!(digest(&newer) == before);

    let store = store_with_runs(dir.path());
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let e = serve(&store, &format!("127.0.0.1:{port}"));
    assert!(e.contains(&format!("port {port} is in use")), "{e}");
    assert!(serve(&store, "nowhere").contains("--listen nowhere"));
}

#[test]
fn serve_stops_at_once_on_ctrl_c_with_130() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let mut server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGINT) };
    let status = server.child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().contains("serve")), "{left:?}");
}

/// The latency units a page's text shows figures in (`4.13 ms` and `331ns` give `ms`, `ns`).
fn latency_units(page: &str) -> std::collections::BTreeSet<String> {
    let text = page.replace(['<', '>'], " ");
    let words: Vec<&str> = text.split_whitespace().collect();
    let number = |w: &str| !w.is_empty() && w.trim_start_matches('-').replace(',', "").parse::<f64>().is_ok();
    let mut units = std::collections::BTreeSet::new();
    for (i, w) in words.iter().enumerate() {
        for unit in ["ns", "µs", "us", "ms"] {
            let glued = w.strip_suffix(unit).is_some_and(number);
            if glued || (*w == unit && i > 0 && number(words[i - 1])) {
                units.insert(unit.to_string());
            }
        }
    }
    units
}

/// Each bar chart's count of bars with a length.
fn bars_per_chart(page: &str) -> Vec<usize> {
    page.split("<svg")
        .skip(1)
        .map(|svg| svg.split("</svg>").next().unwrap_or(""))
        .filter(|svg| svg.contains("<rect x="))
        .map(|svg| svg.matches("<rect x=").count() - svg.matches("width=\"0.0\"").count())
        .collect()
}

#[test]
fn serve_pages_lead_with_their_answer_in_one_latency_unit() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    for path in ["/run/1", "/group/2"] {
        let (status, page) = server.page(path);
        assert_eq!(status, 200, "{page}");
        let units = latency_units(&page);
        assert_eq!(units.len(), 1, "{path}: one latency unit, not {units:?}");
        assert!(!units.contains("us"), "{path}: µs spelled so");
        let bars = bars_per_chart(&page);
        assert!(bars.iter().all(|n| *n > 1), "{path}: no chart of one bar: {bars:?}");
        let tables = page.split("<table").skip(1).map(|t| t.split("</table>").next().unwrap_or(""));
        assert!(tables.clone().all(|t| t.contains("<td")), "{path}: no table without rows");
    }
    let (_, run) = server.page("/run/1");
    let figures = run.find("<caption>Figures</caption>").expect("the run's figures");
    assert!(run.find("<svg").is_none_or(|chart| figures < chart), "the figures lead the run's page");
    assert!(!run.contains("highest first"), "no ranking of one run");
    let (_, group) = server.page("/group/2");
    let said = group.find("id=\"group-2\"").expect("the group's section");
    assert!(group.find("id=\"kind-io\"").is_none_or(|kind| said < kind), "the group's answer leads");
}

/// The most of a page a screenshot shows, from its top (where each page puts its answer).
const SHOT_HEIGHT: u32 = 2_400;

/// Where the browser test puts its screenshots: `SPINDLE_SCREENSHOTS` (scripts/screenshots
/// sets it to docs/serve), else the test's scratch directory.
fn screenshot_dir(scratch: &Path) -> PathBuf {
    std::env::var_os("SPINDLE_SCREENSHOTS").map(PathBuf::from).unwrap_or_else(|| scratch.to_path_buf())
}

#[test]
fn serve_in_a_browser_shows_runs_charts_and_the_commands_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = spindle_testenv::chromium(&dir.path().join("profile")) else { return };
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let shots = screenshot_dir(dir.path());

    browser.open(&server.url("/")).unwrap();
    let ids =
        browser.eval("[...document.querySelectorAll('#runs tr[data-id]')].map(r => Number(r.dataset.id))").unwrap();
    assert_eq!(ids, serde_json::json!([5, 4, 3, 2, 1]), "the runs table holds the stored runs, newest first");
    // The script enables comparing once both sides have a run.
    let disabled = browser
        .eval("document.querySelector('input[name=a][value=\"2\"]').click(); document.querySelector('input[name=b][value=\"4\"]').click(); document.getElementById('compare').disabled")
        .unwrap();
    assert_eq!(disabled, serde_json::json!(false));
    assert_eq!(browser.eval("document.getElementById('picked').textContent").unwrap(), "A: 1 run(s), B: 1 run(s)");
    browser.screenshot(&shots.join("serve-runs.png")).unwrap();

    browser.open(&server.url("/run/1")).unwrap();
    let drawn = browser
        .eval("[...document.querySelectorAll('svg')].filter(s => s.querySelectorAll('path, rect, circle').length > 1).length")
        .unwrap();
    assert!(drawn.as_u64().unwrap() >= 2, "a run page draws its charts with data: {drawn}");
    assert_eq!(browser.eval("document.body.innerText.includes('<script>alert(1)</script>')").unwrap(), true);
    assert_eq!(
        browser.eval("document.querySelectorAll('script:not([src])').length").unwrap(),
        0,
        "no markup from a run"
    );
    browser.screenshot_top(&shots.join("serve-run.png"), SHOT_HEIGHT).unwrap();

    browser.open(&server.url("/group/2")).unwrap();
    browser.screenshot_top(&shots.join("serve-group.png"), SHOT_HEIGHT).unwrap();

    let cli =
        spindle_with_store(&store).args(["compare", "--a", "raid=5", "--b", "raid=10", "--json"]).output().unwrap();
    let command: serde_json::Value = serde_json::from_slice(&cli.stdout).unwrap();
    browser.open(&server.url("/compare?a=raid%3D5&b=raid%3D10")).unwrap();
    let shown = browser.eval("document.body.innerText").unwrap();
    assert!(shown.as_str().unwrap().contains(command["headline"].as_str().unwrap()), "{shown}");
    let verdicts = browser
        .eval("[...document.querySelectorAll('table')].find(t => t.caption && t.caption.textContent == 'Comparison').rows[1].cells[6].textContent")
        .unwrap();
    let verdict = verdicts.as_str().unwrap();
    assert!(verdict.starts_with(&words_of(&command["metrics"][0])), "{verdict} against {}", command["metrics"][0]);
    browser.screenshot(&shots.join("serve-compare.png")).unwrap();

    assert_eq!(browser.errors(), Vec::<String>::new(), "no errors on any page");
}

/// A store with a sweep (group 1), an A/B pair (group 2) and a quick check (group 3).
fn store_with_groups(dir: &Path) -> PathBuf {
    let store = dir.join("results.db");
    let run = |args: &[&str]| {
        let out = spindle_with_store(&store).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let target = dir.join("x.dat");
    let target = target.to_str().unwrap();
    run(&["io", "--engine", "null", "--rate", "2000", "--duration", "1s", "--sweep", "depth=1,2,4,8", "--quiet"]
        .into_iter()
        .chain(["--target", target])
        .collect::<Vec<_>>());
    let workload = |name: &str, rate: u32| {
        let path = dir.join(name);
        let text = format!("engine = \"null\"\nduration = \"1s\"\n\n[[target]]\npath = \"{target}\"\nrate = {rate}\n");
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (a, b) = (workload("a.toml", 200), workload("b.toml", 400));
    run(&["ab", &a, &b, "--rounds", "2"]);
    let work = dir.join("check");
    std::fs::create_dir_all(&work).unwrap();
    run(&["check", "--quick", work.to_str().unwrap()]);
    store
}

/// Run 1 of `store` saved again as a run three agents measured together, as `spindle agents`
/// saves one (its distribution read as JSON: the facts kept of an agent may grow): its id.
fn merged_run(store: &Path) -> i64 {
    let mut s = spindle_store::Store::open(store).unwrap();
    let mut record = s.load(1).unwrap().record;
    let agent = |index: u32, host: &str, late_us: f64, status: &str| {
        serde_json::json!({
            "index": index, "hostname": host, "run_id": null, "offset_ns": -1_250_000 + i64::from(index) * 400_000,
            "rtt_ns": 180_000, "late_us": late_us, "measured_seconds": 1.0, "status": status
        })
    };
    record.agents = Some(
        serde_json::from_value(serde_json::json!({
            "start_at_ns": 1_795_390_529_000_000_000i64, "start_skew_us": 640.0, "steady_seconds": 1.0,
            "agents": [agent(0, "db-a", 0.0, "complete"), agent(1, "db-b", 410.0, "complete"), agent(2, "db-c", 640.0, "interrupted")]
        }))
        .unwrap(),
    );
    s.save(&record, &spindle_store::Placement::default()).unwrap()
}

#[test]
fn serve_in_a_browser_draws_each_kind_of_group_at_1280_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = spindle_testenv::chromium(&dir.path().join("profile")) else { return };
    let store = store_with_groups(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let shots = screenshot_dir(dir.path());
    for (group, shot) in [(1, "serve-group-sweep.png"), (2, "serve-group-ab.png"), (3, "serve-check.png")] {
        browser.open(&server.url(&format!("/group/{group}"))).unwrap();
        browser.screenshot_top(&shots.join(shot), SHOT_HEIGHT).unwrap();
        if group == 2 {
            let title = browser.eval("document.querySelector('h1').textContent").unwrap();
            assert!(title.as_str().unwrap().starts_with("Group 2: A/B comparison ("), "{title}");
        }
        // Nothing wider than the window: tables wrap their words, not their figures.
        let wide = browser.eval("document.documentElement.scrollWidth").unwrap();
        let beyond = browser
            .eval("[...document.querySelectorAll('table, figure, pre')].filter(e => e.getBoundingClientRect().right > 1280).map(e => e.caption ? e.caption.textContent : e.tagName)")
            .unwrap();
        assert!(wide.as_u64().unwrap() <= 1280, "group {group} is {wide} px wide: {beyond}");
    }
    // A run three agents measured: its agents, and how far apart they started.
    let merged = merged_run(&store);
    browser.open(&server.url(&format!("/run/{merged}"))).unwrap();
    browser.screenshot_top(&shots.join("serve-agents.png"), SHOT_HEIGHT).unwrap();
    let agents = browser
        .eval("[...[...document.querySelectorAll('table')].find(t => t.caption && t.caption.textContent == 'Agents').rows].slice(1).map(r => r.cells[1].textContent + ' ' + r.cells[7].textContent)")
        .unwrap();
    assert_eq!(agents, serde_json::json!(["db-a complete", "db-b complete", "db-c interrupted"]));
    let first = browser
        .eval(
            "(() => { const h = document.body.innerHTML; return h.indexOf('<caption>Agents') < h.indexOf('<svg'); })()",
        )
        .unwrap();
    assert_eq!(first, true, "the agents lead with the figures, before the charts");
    let said = browser.eval("document.body.innerText.includes('their starts spread over 640 µs')").unwrap();
    assert_eq!(said, true, "the start spread is said");
    browser.open(&server.url("/group/3")).unwrap();
    // A check's findings lead its page, before its curves.
    let first = browser.eval("(() => { const h = document.body.innerHTML; return h.indexOf('<caption>Findings') < h.indexOf('<svg'); })()").unwrap();
    assert_eq!(first, true, "the findings before the charts");
    // A check's finding is given room; where its threshold comes from is not.
    let widths = browser
        .eval("(() => { const t = [...document.querySelectorAll('table')].find(t => t.caption && t.caption.textContent == 'Findings'); const th = [...t.rows[0].cells]; const w = n => th.find(c => c.textContent == n).getBoundingClientRect().width; return [w('finding'), w('source')]; })()")
        .unwrap();
    let (finding, source) = (widths[0].as_f64().unwrap(), widths[1].as_f64().unwrap());
    // Once 15 characters beside a wide source; a source is as narrow as its longest address part.
    assert!(finding >= 200.0 && finding > 1.5 * source, "finding {finding} px, source {source} px");
    assert_eq!(browser.errors(), Vec::<String>::new(), "no errors on any page");
}

/// The start of a metric's verdict as the page words it, from `compare --json`.
fn words_of(metric: &serde_json::Value) -> String {
    match metric["verdict"].as_str().unwrap() {
        "better" => "B better",
        "worse" => "B worse",
        "untested" => "not tested",
        other => other,
    }
    .to_string()
}

/// Waits (up to a minute: a slow machine, not a figure) until `ready` gives a value.
fn wait_for<T>(what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    for _ in 0..600 {
        if let Some(v) = ready() {
            return v;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{what} did not happen within a minute");
}

fn live_runs(server: &Server) -> Vec<serde_json::Value> {
    let (status, _, body) = server.get("/api/live", "");
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    v["runs"].as_array().cloned().unwrap_or_default()
}

fn io_running(store: &Path, dir: &Path, duration: &str) -> Child {
    spindle_process()
        .args(["io", "--engine", "null", "--rate", "500", "--duration", duration, "--quiet", "--store"])
        .arg(store)
        .arg("--target")
        .arg(dir.join("live.dat"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn serve_shows_a_run_in_progress_with_its_series_growing() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let mut io = io_running(&store, dir.path(), "8s");
    let id = wait_for("a live run on /api/live", || live_runs(&server).first().map(|r| r["id"].as_i64().unwrap()));
    let (status, runs) = server.page("/");
    assert_eq!(status, 200);
    assert!(runs.contains(&format!("href=\"/live/{id}\"")), "the runs page lists it");
    let points = |server: &Server| {
        let (_, _, body) = server.get(&format!("/api/live/{id}"), "");
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        v["run"]["points"].as_array().map_or(0, Vec::len)
    };
    let first = wait_for("a first point", || Some(points(&server)).filter(|n| *n > 0));
    let what = live_runs(&server)[0]["what"].as_str().unwrap().to_string();
    assert!(what.contains(" io --engine null --rate 500 "), "named by its command: {what}");
    // Time zero to the millisecond plus a point's time is when the run measured it: before its
    // row was written, and by no more than the writer's few milliseconds (a second allowed).
    let (_, _, body) = server.get(&format!("/api/live/{id}"), "");
    let run = &serde_json::from_slice::<serde_json::Value>(&body).unwrap()["run"];
    let last = run["points"].as_array().unwrap().last().unwrap()[0].as_f64().unwrap();
    let written = run["updated_ms"].as_i64().unwrap() - (last * 1000.0).round() as i64;
    let zero = |ms: i64| {
        spindle_model::time::rfc3339_utc_ms(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64))
    };
    let started = run["started_at"].as_str().unwrap();
    assert!(zero(written - 1000).as_str() <= started && started <= zero(written).as_str(), "{started} against {run}");
    wait_for("a point more", || Some(()).filter(|_| points(&server) > first));

    if let Some(mut browser) = spindle_testenv::chromium(&dir.path().join("profile")) {
        browser.open(&server.url(&format!("/live/{id}"))).unwrap();
        let drawn = |b: &mut spindle_testenv::Browser| {
            let n = b.eval("Number(document.querySelector('#live-chart path.s0')?.dataset.points || 0)").unwrap();
            n.as_u64().unwrap_or(0)
        };
        let seen = wait_for("the series drawn", || Some(drawn(&mut browser)).filter(|n| *n > 0));
        wait_for("the series growing on the page", || Some(()).filter(|_| drawn(&mut browser) > seen));
        browser.screenshot(&screenshot_dir(dir.path()).join("serve-live.png")).unwrap();
        assert!(io.wait().unwrap().success());
        wait_for("the page saying it finished", || {
            let text = browser.eval("document.getElementById('live-state').textContent").unwrap();
            text.as_str().is_some_and(|t| t.starts_with("Finished")).then_some(())
        });
        assert_eq!(browser.errors(), Vec::<String>::new(), "no errors on the live page");
    } else {
        assert!(io.wait().unwrap().success());
    }
    wait_for("the live row gone once the run is saved", || live_runs(&server).is_empty().then_some(()));
    let (_, runs) = server.page("/");
    assert!(runs.contains("<a href=\"/run/6\">6</a>"), "the finished run is stored");
    // The run's live address now leads to its saved run.
    let (status, head, _) = server.get(&format!("/live/{id}"), "");
    assert_eq!(status, 303, "{head}");
    assert!(head.lines().any(|l| l.eq_ignore_ascii_case("location: /run/6")), "{head}");
    let (_, _, body) = server.get(&format!("/api/live/{id}"), "");
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).unwrap()["saved_run"], 6);
}

#[test]
fn serve_shows_a_run_that_died_as_stopped_not_running() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let mut io = io_running(&store, dir.path(), "60s");
    wait_for("a live run", || live_runs(&server).first().filter(|r| r["points"].as_u64() > Some(0)).cloned());
    io.kill().unwrap();
    io.wait().unwrap();
    let run = wait_for("the run shown as stopped", || live_runs(&server).into_iter().find(|r| r["stopped"] == true));
    assert!(run["state"].as_str().unwrap().starts_with("stopped without finishing"), "{run}");
    let (_, runs) = server.page("/");
    assert!(runs.contains("stopped without finishing"));
}

#[cfg(feature = "postgres")]
#[test]
fn serve_reads_a_store_on_postgres_as_it_reads_a_file() {
    let Some(db) = crate::server_db::TestDb::create(&crate::hammer_postgres::POSTGRES, "serve") else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    let out = crate::common::spindle()
        .args(["io", "--engine", "null", "--duration", "200ms", "--label", "raid=10", "--store", &url, "--target"])
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let server = Server::start(Path::new(&url), &["--listen", "127.0.0.1:0"]);
    assert!(server.banner.contains("the store postgres://"), "{}", server.banner);
    let (status, runs) = server.page("/");
    assert_eq!(status, 200, "{runs}");
    assert!(runs.contains("<a href=\"/run/1\">1</a>"), "{runs}");
    let (status, run) = server.page("/run/1");
    assert_eq!(status, 200);
    assert!(run.contains("<svg"), "{run}");
}

/// The ids in the runs table of a page.
fn run_links(page: &str) -> usize {
    page.matches("<a href=\"/run/").count()
}

#[test]
fn serve_reads_a_store_file_replaced_under_it_and_says_when_it_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let (_, before) = server.page("/");
    let shown = run_links(&before);
    // Another store, with one run, copied over this one as `cp` + `mv` would.
    let other = dir.path().join("other.db");
    let out = spindle_with_store(&other)
        .args(["io", "--engine", "null", "--duration", "200ms", "--quiet", "--target"])
        .arg(dir.path().join("y.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::rename(&other, &store).unwrap();
    let (status, after) = server.page("/");
    assert_eq!(status, 200, "{after}");
    assert!(run_links(&after) < shown, "still the old store's {shown} runs: {after}");
    assert!(after.contains("<a href=\"/run/1\">1</a>"), "{after}");
    // Moved away: said so, not served stale; back: served again.
    let aside = dir.path().join("aside.db");
    std::fs::rename(&store, &aside).unwrap();
    let (status, gone) = server.page("/");
    assert_eq!(status, 503, "{gone}");
    assert!(gone.contains("not where serve opened it"), "{gone}");
    std::fs::rename(&aside, &store).unwrap();
    assert_eq!(server.page("/").0, 200);
}

#[cfg(feature = "postgres")]
#[test]
fn serve_connects_again_when_the_postgres_server_ends_its_sessions() {
    let server_db = &crate::hammer_postgres::POSTGRES;
    let Some(db) = crate::server_db::TestDb::create(server_db, "serve_again") else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = db.url();
    let out = crate::common::spindle()
        .args(["io", "--engine", "null", "--duration", "200ms", "--store", &url, "--target"])
        .arg(dir.path().join("x.dat"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let server = Server::start(Path::new(&url), &["--listen", "127.0.0.1:0"]);
    assert_eq!(server.page("/").0, 200);
    // What a server restart does to serve's connections: ended from the server's side.
    let end = format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{}'", db.name);
    (server_db.admin)(&[end]).unwrap();
    // Enough requests to reach every one of serve's connections.
    for _ in 0..2 * spindle_serve::WORKERS {
        let (status, page) = server.page("/");
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("<a href=\"/run/1\">1</a>"), "{page}");
    }
}

/// Connects to `addr` and sends the start of a request head, then a byte every 2 s (on a
/// thread of its own) until `stop`: a head that never ends.
fn dribbling(
    addr: &str,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> (TcpStream, std::thread::JoinHandle<()>) {
    let stream = TcpStream::connect(addr).unwrap();
    let mut sender = stream.try_clone().unwrap();
    sender.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes()).unwrap();
    let stop = std::sync::Arc::clone(stop);
    let drip = std::thread::spawn(move || {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_secs(2));
            // The server may have closed it; the test says whether it should have.
            let _ = sender.write_all(b"a");
        }
    });
    (stream, drip)
}

#[test]
fn serve_answers_while_32_clients_dribble_their_requests() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let opened = std::time::Instant::now();
    let drips: Vec<_> = (0..32).map(|_| dribbling(&server.addr, &stop)).collect();
    // A server that gave each connection a thread of its few would never get to this one: the
    // dribblers keep theirs as long as they send (a byte every 2 s), and the test stops them
    // only after it. 20 s is a slow machine, not a figure.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20))).unwrap();
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes()).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).expect("GET / answered while 32 clients dribbled their requests");
    assert!(answer.starts_with(b"HTTP/1.1 200 "), "{}", String::from_utf8_lossy(&answer));
    // Before their head deadline (counted from after `opened`), the server has closed none.
    if opened.elapsed() < spindle_serve::HEAD_DEADLINE {
        for (stream, _) in &drips {
            stream.set_nonblocking(true).unwrap();
            let open = stream.peek(&mut [0u8; 1]).is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock);
            assert!(open, "a dribbling client is still connected, unanswered");
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for (_, drip) in drips {
        drip.join().unwrap();
    }
}

#[test]
fn serve_drops_a_client_whose_request_head_outlasts_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_with_runs(dir.path());
    let server = Server::start(&store, &["--listen", "127.0.0.1:0"]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (mut stream, drip) = dribbling(&server.addr, &stop);
    // It sends a byte every 2 s throughout, so a timeout per read would never drop it; the
    // deadline for the whole head must, long before this timeout.
    stream.set_read_timeout(Some(spindle_serve::HEAD_DEADLINE + std::time::Duration::from_secs(30))).unwrap();
    let mut answer = Vec::new();
    let ended = stream.read_to_end(&mut answer);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    drip.join().unwrap();
    match ended {
        Ok(_) => {
            assert!(answer.is_empty() || answer.starts_with(b"HTTP/1.1 408 "), "{}", String::from_utf8_lossy(&answer))
        }
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "closed, not still waiting: {e}"),
    }
}
