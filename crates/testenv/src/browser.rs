//! Headless Chromium driven over the DevTools protocol (CDP), for tests that check what a
//! person sees after a page's script ran: the DOM as it is then, a screenshot, and every error
//! the page met (exceptions, console errors, failed loads).
//!
//! The protocol runs over `--remote-debugging-pipe`: Chromium reads commands on its fd 3 and
//! writes answers and events on its fd 4, each a JSON message ended by a NUL byte. No port,
//! no WebSocket, nothing else to install.

use serde_json::{Value, json};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The longest a command or a page load may take before the test fails (a slow machine
/// under a full test run, not a figure the test asserts).
const WAIT: Duration = Duration::from_secs(60);

pub struct Browser {
    child: Child,
    commands: File,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    /// What went wrong on the pages so far, in words.
    errors: Vec<String>,
}

/// Headless Chromium as it runs on this closed network (without the background-networking
/// flags it hangs reaching for the network); `--user-data-dir` is the caller's.
pub const CHROMIUM_FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Whether Chromium is installed; when not, a skip (counted; a failure under
/// SPINDLE_REQUIRE_SERVERS=1).
pub fn chromium_installed() -> bool {
    let found = Command::new("chromium").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        crate::unavailable("chromium", "not installed (Debian package chromium)");
    }
    found
}

/// The browser, or `None` when Chromium is not installed. `profile` is a fresh directory of
/// the test's own.
pub fn chromium(profile: &Path) -> Option<Browser> {
    chromium_installed().then_some(())?;
    let log = profile.join("chromium.log");
    Some(Browser::launch(profile).unwrap_or_else(|e| {
        panic!("cannot start chromium: {e}; it said: {}", std::fs::read_to_string(&log).unwrap_or_default())
    }))
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is two ints for pipe2 to fill; each is then owned exactly once.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors owned by no one else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

impl Browser {
    fn launch(profile: &Path) -> std::io::Result<Browser> {
        std::fs::create_dir_all(profile)?;
        let log = profile.join("chromium.log");
        let (their_in, our_out) = pipe()?;
        let (our_in, their_out) = pipe()?;
        let (child_in, child_out) = (their_in.as_raw_fd(), their_out.as_raw_fd());
        let mut cmd = Command::new("chromium");
        cmd.args(CHROMIUM_FLAGS)
            .args(["--hide-scrollbars", "--remote-debugging-pipe"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            // What Chromium says, for a test that fails to read.
            .stderr(File::create(log)?);
        // SAFETY: between fork and exec only fcntl and dup2, which are async-signal-safe; the
        // descriptors are open in the parent until spawn returns. Both ends are first moved
        // above 4, so putting one on 3 cannot close the other before it reaches 4.
        unsafe {
            cmd.pre_exec(move || {
                let high_in = libc::fcntl(child_in, libc::F_DUPFD, 10);
                let high_out = libc::fcntl(child_out, libc::F_DUPFD, 10);
                if high_in < 0 || high_out < 0 || libc::dup2(high_in, 3) < 0 || libc::dup2(high_out, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn()?;
        drop((their_in, their_out));
        let (send, messages) = channel();
        let reader = BufReader::new(File::from(our_in));
        std::thread::spawn(move || {
            for message in reader.split(0) {
                let Ok(bytes) = message else { return };
                let Ok(v) = serde_json::from_slice::<Value>(&bytes) else { continue };
                if send.send(v).is_err() {
                    return;
                }
            }
        });
        let mut b = Browser {
            child,
            commands: File::from(our_out),
            messages,
            next_id: 0,
            session: String::new(),
            errors: Vec::new(),
        };
        let target = b.call(None, "Target.createTarget", json!({"url": "about:blank"}))?;
        let target = target["targetId"].as_str().unwrap_or_default().to_string();
        let attached = b.call(None, "Target.attachToTarget", json!({"targetId": target, "flatten": true}))?;
        b.session = attached["sessionId"].as_str().unwrap_or_default().to_string();
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            b.command(domain, json!({}))?;
        }
        b.command(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        )?;
        Ok(b)
    }

    /// A command to the page's session; its result.
    pub fn command(&mut self, method: &str, params: Value) -> std::io::Result<Value> {
        let session = self.session.clone();
        self.call(Some(&session), method, params)
    }

    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> std::io::Result<Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message)?;
        bytes.push(0);
        self.commands.write_all(&bytes)?;
        let answer = self.wait_for(|m| m["id"].as_u64() == Some(id))?;
        match answer.get("error") {
            Some(e) => Err(std::io::Error::other(format!("{method}: {e}"))),
            None => Ok(answer["result"].clone()),
        }
    }

    /// Reads messages until one matches, noting every error event on the way.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> std::io::Result<Value> {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = match self.messages.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => return Err(std::io::Error::other("chromium did not answer in time")),
                Err(RecvTimeoutError::Disconnected) => return Err(std::io::Error::other("chromium exited")),
            };
            self.note_error(&m);
            if wanted(&m) {
                return Ok(m);
            }
        }
    }

    fn note_error(&mut self, m: &Value) {
        let p = &m["params"];
        match m["method"].as_str() {
            Some("Runtime.exceptionThrown") => {
                let d = &p["exceptionDetails"];
                let text = d["exception"]["description"].as_str().or(d["text"].as_str()).unwrap_or("an exception");
                self.errors.push(format!("exception: {text}"));
            }
            Some("Runtime.consoleAPICalled") if p["type"] == "error" || p["type"] == "assert" => {
                self.errors.push(format!("console.{}: {}", p["type"], p["args"]));
            }
            Some("Log.entryAdded") if p["entry"]["level"] == "error" => {
                self.errors.push(format!("{}: {} {}", p["entry"]["source"], p["entry"]["text"], p["entry"]["url"]));
            }
            _ => {}
        }
    }

    /// Opens `url` and waits until the page has loaded (its deferred script ran).
    pub fn open(&mut self, url: &str) -> std::io::Result<()> {
        let nav = self.command("Page.navigate", json!({"url": url}))?;
        if let Some(e) = nav["errorText"].as_str() {
            return Err(std::io::Error::other(format!("{url}: {e}")));
        }
        self.wait_for(|m| m["method"] == "Page.loadEventFired")?;
        Ok(())
    }

    /// The value of a JavaScript expression on the page (promises awaited).
    pub fn eval(&mut self, expression: &str) -> std::io::Result<Value> {
        let r = self.command(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(std::io::Error::other(format!("{expression}: {e}")));
        }
        Ok(r["result"]["value"].clone())
    }

    /// A PNG of the whole page as drawn.
    pub fn screenshot(&mut self, path: &Path) -> std::io::Result<()> {
        self.capture(path, json!({"format": "png", "captureBeyondViewport": true}))
    }

    /// A PNG of the page's top, at most `height` px of it: where a page puts its answer, and
    /// what a picture in the docs shows (a check's whole report is 48,000 px tall).
    pub fn screenshot_top(&mut self, path: &Path, height: u32) -> std::io::Result<()> {
        let size = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")?;
        let dim = |i: usize| size[i].as_f64().unwrap_or(f64::from(height));
        let clip = json!({"x": 0, "y": 0, "width": dim(0), "height": dim(1).min(f64::from(height)), "scale": 1});
        self.capture(path, json!({"format": "png", "captureBeyondViewport": true, "clip": clip}))
    }

    fn capture(&mut self, path: &Path, params: Value) -> std::io::Result<()> {
        let r = self.command("Page.captureScreenshot", params)?;
        let data = r["data"].as_str().ok_or_else(|| std::io::Error::other("no screenshot data"))?;
        use base64::Engine;
        let png = base64::engine::general_purpose::STANDARD.decode(data).map_err(std::io::Error::other)?;
        std::fs::write(path, png)
    }

    /// Every error the pages met so far (exceptions, console errors, failed loads).
    pub fn errors(&mut self) -> Vec<String> {
        while let Ok(m) = self.messages.try_recv() {
            self.note_error(&m);
        }
        self.errors.clone()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
