//! `spindle durability write|listen|verify`: does the storage keep every write it acknowledged
//! with a flush, through a crash or a power cut? (After Brad Fitzpatrick's diskchecker.) The
//! log of what was acknowledged lives where the crash does not reach: a listener on another
//! machine, or a file on another volume.

mod listen;
mod verify;
mod write;

use crate::Outcome;
use crate::args::{DurabilityAction, DurabilityArgs};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

pub fn run(args: &DurabilityArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        DurabilityAction::Write(a) => write::run(a),
        DurabilityAction::Listen(a) => listen::run(a),
        DurabilityAction::Verify(a) => verify::run(a),
    }
}

/// Where a durability log is kept, as `--log` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LogPlace {
    /// `durability listen` at HOST:PORT.
    Listener(String),
    File(PathBuf),
}

impl LogPlace {
    /// HOST:PORT when the text has no `/` and ends in `:` and digits (`[::1]:5400` too);
    /// anything else is a file (write `./name:1` for a file named like an address).
    fn of(text: &str) -> LogPlace {
        let address = !text.contains('/')
            && text.rsplit_once(':').is_some_and(|(host, port)| {
                !host.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
            });
        if address { LogPlace::Listener(text.to_string()) } else { LogPlace::File(PathBuf::from(text)) }
    }
}

/// How long a connection to a listener may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Connects to a listener at `address`, trying each address it resolves to.
fn connect(address: &str) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "the name resolves to no address");
    for addr in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(stream) => {
                // Each event goes out as it is said, not when a buffer fills.
                stream.set_nodelay(true)?;
                return Ok(stream);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_host_colon_port_and_anything_else_a_file() {
        for address in ["otherhost:5400", "10.0.0.2:5400", "[::1]:5400"] {
            assert_eq!(LogPlace::of(address), LogPlace::Listener(address.into()));
        }
        for file in ["d.log", "/mnt/other/d.log", "./host:5400", "host:", ":5400", "c:log"] {
            assert_eq!(LogPlace::of(file), LogPlace::File(file.into()), "{file}");
        }
    }
}
