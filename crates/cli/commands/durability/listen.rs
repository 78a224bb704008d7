//! `spindle durability listen`: keeps the logs writers send, one file per run in `--dir`,
//! written as the events arrive, and hands a run's log to `durability verify` when asked. It
//! runs on a machine the power cut does not reach, until Ctrl-C.
//!
//! A connection opens with one line: a log's header (a writer; the rest of the stream is its
//! events) or `fetch <run id>` (a verifier; the log is sent back whole, or nothing when there
//! is none).

use crate::args::DurabilityListenArgs;
use crate::usage::UsageError;
use crate::{Outcome, interrupt};
use spindle_io::durability::log;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The longest first line a connection may send (a header names a path).
const MAX_FIRST_LINE: u64 = 8192;

pub fn run(args: &DurabilityListenArgs) -> anyhow::Result<Outcome> {
    if !args.dir.is_dir() {
        return Err(UsageError::flag("--dir", args.dir.display().to_string(), "not a directory").into());
    }
    let listener = TcpListener::bind(&args.listen)
        .map_err(|e| UsageError::flag("--listen", &args.listen, format_args!("cannot listen there: {e}")))?;
    let address = listener.local_addr()?;
    // Polled, so Ctrl-C ends the wait for the next writer.
    listener.set_nonblocking(true)?;
    let stop = interrupt::stop_flag();
    println!("listening on {address}; logs go to {}", args.dir.display());
    std::io::stdout().flush()?;
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, peer)) => {
                let dir = args.dir.clone();
                std::thread::spawn(move || {
                    if let Err(e) = serve(stream, &dir) {
                        eprintln!("spindle: {peer}: {e}");
                    }
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => eprintln!("spindle: warning: accepting a connection failed: {e}"),
        }
    }
    Ok(Outcome::Success)
}

/// The file a run's log is kept in.
fn log_path(dir: &Path, run: u64) -> PathBuf {
    dir.join(format!("{run:016x}.log"))
}

fn serve(stream: TcpStream, dir: &Path) -> anyhow::Result<()> {
    stream.set_nonblocking(false)?;
    let peer = stream.peer_addr()?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut first = Vec::new();
    (&mut reader).take(MAX_FIRST_LINE).read_until(b'\n', &mut first)?;
    if let Some(id) = first.strip_prefix(b"fetch ") {
        let id = std::str::from_utf8(id).ok().and_then(|t| u64::from_str_radix(t.trim(), 16).ok());
        let Some(id) = id else { anyhow::bail!("asked for a log by an id that is not one") };
        return send(stream, &log_path(dir, id), id);
    }
    // A writer: its header names the run, and the file is new (a run's log is never replaced).
    let header = log::parse(&first).map_err(|e| anyhow::anyhow!("not a durability log: {e}"))?.header;
    let path = log_path(dir, header.run);
    let mut file = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| anyhow::anyhow!("{}: cannot keep run {:016x}'s log there: {e}", path.display(), header.run))?;
    println!("run {:016x} from {peer} (target {}): logging to {}", header.run, header.target, path.display());
    let _ = std::io::stdout().flush();
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
    println!("run {:016x}: connection closed; {bytes} bytes of log kept in {}", header.run, path.display());
    let _ = std::io::stdout().flush();
    Ok(())
}

/// Sends the log of run `id`, or closes the connection with nothing when there is none.
fn send(mut stream: TcpStream, path: &Path, id: u64) -> anyhow::Result<()> {
    match std::fs::File::open(path) {
        Ok(mut file) => {
            std::io::copy(&mut file, &mut stream)?;
            println!("run {id:016x}: log sent to {}", stream.peer_addr()?);
        }
        Err(_) => println!("run {id:016x}: asked for by {}, but no log of it is kept here", stream.peer_addr()?),
    }
    let _ = std::io::stdout().flush();
    Ok(())
}
