//! `spindle durability listen`: keeps the logs writers send, one file per run in `--dir`, and
//! hands a run's log to `durability verify` when asked (spindle-io's durability keeper, a
//! thread a connection). It runs on a machine the power cut does not reach, until Ctrl-C.

use crate::args::DurabilityListenArgs;
use crate::usage::UsageError;
use crate::{Outcome, interrupt};
use spindle_io::durability::keeper;
use std::io::Write;
use std::net::TcpListener;
use std::sync::atomic::Ordering;
use std::time::Duration;

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
                    if let Err(e) = keeper::answer(stream, &dir, &say) {
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

/// A line for the user, as soon as it is said.
fn say(line: String) {
    println!("{line}");
    let _ = std::io::stdout().flush();
}
