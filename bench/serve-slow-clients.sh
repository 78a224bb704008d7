#!/usr/bin/env bash
# Whether clients that send their requests slowly hold up `spindle serve`: over a scratch store
# (bench/many-runs.sh, RUNS runs, default 100), starts the server, opens 32 connections that
# each send a byte of a request head every 2 s and never finish it, then times GET / five
# times with curl (its total time, connect included) while they are all still open. Prints
# each time, whether the dribblers were all still connected after the last one, and fails
# (exit 1) unless every GET answered 200 in under 1 s. Not a test.
#
#   bench/serve-slow-clients.sh [RUNS]
#   SPINDLE=path  a built binary to measure instead of building this tree's release one
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
command -v curl >/dev/null || { echo "bench needs curl" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench needs python3" >&2; exit 2; }
if [ -z "${SPINDLE:-}" ]; then
    cargo build --release --quiet
fi
spindle=${SPINDLE:-${CARGO_TARGET_DIR:-$PWD/target}/release/spindle}
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export XDG_DATA_HOME=$work/xdg SPINDLE_STORE=$work/results.db
bench/many-runs.sh "$spindle" "$work/results.db" "$runs" "$work"

$spindle serve --store "$work/results.db" --listen 127.0.0.1:0 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^serving' "$work/serve.log" && break; sleep 0.1; done
base=$(sed -n 's/^serving \(http:[^ ]*\)\/ .*/\1/p' "$work/serve.log")
[ -n "$base" ] || { cat "$work/serve.log" >&2; exit 1; }

# The dribblers and the timed requests in one process, so it knows when they started and
# can look at them after the last request.
python3 - "${base#http://}" <<'PY'
import socket, subprocess, sys, threading, time

addr = sys.argv[1]
host, port = addr.rsplit(":", 1)
stop = threading.Event()
drips = []
for _ in range(32):
    s = socket.create_connection((host, int(port)))
    s.sendall(f"GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ".encode())
    drips.append(s)

def drip():
    while not stop.wait(2):
        for s in drips:
            try:
                s.send(b"a")
            except OSError:
                pass

threading.Thread(target=drip, daemon=True).start()
time.sleep(0.5)
ok = True
for i in range(5):
    out = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "-m", "20", "-w", "%{http_code} %{time_total}", f"http://{addr}/"],
        capture_output=True, text=True,
    ).stdout.split()
    status, seconds = (out + ["000", "20"])[:2]
    ok &= status == "200" and float(seconds) < 1
    print(f"GET / {i + 1}: status {status}, {float(seconds) * 1000:.1f} ms")
stop.set()

def waiting(s):
    """Connected, and answered nothing: the head deadline has not closed it yet."""
    try:
        s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False

still = sum(waiting(s) for s in drips)
print(f"dribbling clients still connected, unanswered, after the last GET: {still} of 32")
print("all five under 1 s: " + ("yes" if ok else "NO"))
sys.exit(0 if ok else 1)
PY
