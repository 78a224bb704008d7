//! What `spindle durability listen` does with each connection, on a machine the power cut does
//! not reach: a writer's log kept, one file per run, written as the events arrive; or a kept
//! log handed back whole to `durability verify`.
//!
//! A connection opens with one line: a log's header (a writer; the rest of the stream is its
//! events) or `fetch <run id>` (a verifier; the log is sent back whole, or nothing when there
//! is none).

use super::log;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

/// The longest first line a connection may send (a header names a path).
const MAX_FIRST_LINE: u64 = 8192;

/// The file a run's log is kept in.
fn log_path(dir: &Path, run: u64) -> PathBuf {
    dir.join(format!("{run:016x}.log"))
}

/// One connection, its log kept in `dir` or sent from it; `say` is told each thing done, as a
/// line for the listener's user.
pub fn answer(stream: TcpStream, dir: &Path, say: &dyn Fn(String)) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    let peer = stream.peer_addr()?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut first = Vec::new();
    (&mut reader).take(MAX_FIRST_LINE).read_until(b'\n', &mut first)?;
    if let Some(id) = first.strip_prefix(b"fetch ") {
        let id = std::str::from_utf8(id).ok().and_then(|t| u64::from_str_radix(t.trim(), 16).ok());
        let Some(id) = id else { return Err(std::io::Error::other("asked for a log by an id that is not one")) };
        return send(stream, &log_path(dir, id), id, say);
    }
    // A writer: its header names the run, and the file is new (a run's log is never replaced).
    let header = log::parse(&first).map_err(|e| std::io::Error::other(format!("not a durability log: {e}")))?.header;
    let path = log_path(dir, header.run);
    let mut file = std::fs::File::options().write(true).create_new(true).open(&path).map_err(|e| {
        std::io::Error::other(format!("{}: cannot keep run {:016x}'s log there: {e}", path.display(), header.run))
    })?;
    say(format!("run {:016x} from {peer} (target {}): logging to {}", header.run, header.target, path.display()));
    file.write_all(&first)?;
    // Events are written as they arrive: what reached this machine is kept.
    let mut buf = [0u8; 64 << 10];
    let mut bytes = first.len() as u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // A writer whose machine lost power resets or times out; what came is kept.
            Err(_) => break,
        };
        file.write_all(&buf[..n])?;
        bytes += n as u64;
    }
    file.sync_data()?;
    say(format!("run {:016x}: connection closed; {bytes} bytes of log kept in {}", header.run, path.display()));
    Ok(())
}

/// Sends the log of run `id`, or closes the connection with nothing when there is none.
fn send(mut stream: TcpStream, path: &Path, id: u64, say: &dyn Fn(String)) -> std::io::Result<()> {
    match std::fs::File::open(path) {
        Ok(mut file) => {
            std::io::copy(&mut file, &mut stream)?;
            say(format!("run {id:016x}: log sent to {}", stream.peer_addr()?));
        }
        Err(_) => say(format!("run {id:016x}: asked for by {}, but no log of it is kept here", stream.peer_addr()?)),
    }
    Ok(())
}
