#!/usr/bin/env bash
# How late a live run's points reach `spindle serve`'s page. Over a scratch store (never the
# user's: --store, SPINDLE_STORE and XDG_DATA_HOME all point into a temporary directory), starts
# the server on a free loopback port, then RUNS runs of `spindle io` of SECONDS each, for the
# null engine and for io_uring on a 256 MiB file (4K random reads, depth 32). While each runs,
# two pollers read `/api/live/ID`, the address the live page's script polls:
#   - every 50 ms: the publishing path's own latency (the row's write plus at most 50 ms);
#   - as the page does: the next request 1 s after each answer (serve.js, POLL_MS), so what a
#     browser on /live/ID sees.
# For every point, when it was first seen less when the run measured it (the step's time zero,
# `started_at`, plus the point's time in seconds), and when its row was written (`updated_ms`)
# less the same. Prints median, p95 and max over the points of all runs. Builds nothing.
# Not a test.
#
#   SPINDLE=target/release/spindle bench/serve-live.sh [RUNS] [SECONDS]
#   LIVE_DIR=/mnt/disk  where the io_uring file goes (default: the scratch directory)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
secs=${2:-20}
spindle=${SPINDLE:-${CARGO_TARGET_DIR:-$PWD/target}/release/spindle}
[ -x "$spindle" ] || { echo "no spindle at $spindle: set SPINDLE=path to a built binary" >&2; exit 2; }
command -v curl >/dev/null || { echo "bench needs curl" >&2; exit 2; }
work=$(mktemp -d)
filedir=${LIVE_DIR:-$work}
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work" "$filedir/serve-live.dat"; }
trap cleanup EXIT
export XDG_DATA_HOME=$work/xdg SPINDLE_STORE=$work/results.db
store=$work/results.db

# serve needs a store to exist: one short run makes it.
"$spindle" io --engine null --duration 1s --quiet --store "$store" --target "$work/first.dat" >/dev/null
"$spindle" serve --store "$store" --listen 127.0.0.1:0 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^serving' "$work/serve.log" && break; sleep 0.1; done
base=$(sed -n 's/^serving \(http:[^ ]*\)\/ .*/\1/p' "$work/serve.log")
[ -n "$base" ] || { cat "$work/serve.log" >&2; exit 1; }

# One run watched: prints a line per point per poller: poller, point's time, seen - measured
# (ms), written - measured (ms).
watch() { # engine label, io arguments...
    local name=$1
    shift
    "$spindle" io "$@" --duration "${secs}s" --quiet --store "$store" >/dev/null &
    local io=$!
    python3 - "$base" "$io" <<'PY' >>"$work/$name.points"
import json, os, sys, threading, time, urllib.request
from datetime import datetime
base, io = sys.argv[1], int(sys.argv[2])

def get(path):
    with urllib.request.urlopen(base + path, timeout=5) as r:
        return json.load(r)

def alive():
    try:
        os.kill(io, 0)
        return not open(f"/proc/{io}/stat").read().split(") ")[1].startswith("Z")
    except (OSError, IndexError):
        return False

# The run's live id: the runs page's list, polled until it appears.
live = None
while live is None and alive():
    runs = get("/api/live")["runs"]
    live = runs[-1]["id"] if runs else None
    if live is None:
        time.sleep(0.05)
if live is None:
    sys.exit("the run ended before it was listed on /api/live")

lines, lock = [], threading.Lock()

def poll(name, gap_ms, after_answer):
    seen = 0
    while True:
        asked = time.time()
        run = get(f"/api/live/{live}")["run"]
        now = time.time()
        if run is None:
            return
        zero = datetime.fromisoformat(run["started_at"].replace("Z", "+00:00")).timestamp()
        for p in run["points"][seen:]:
            measured = zero + p[0]
            with lock:
                lines.append(f"{name} {p[0]:.3f} {(now - measured) * 1000:.1f} {run['updated_ms'] - measured * 1000:.1f}")
        seen = len(run["points"])
        # The page waits POLL_MS after each answer (setTimeout in serve.js); the fast poller
        # keeps its 50 ms cadence from each request's start.
        time.sleep(gap_ms / 1000 if after_answer else max(0, asked + gap_ms / 1000 - time.time()))

threads = [threading.Thread(target=poll, args=a) for a in (("api50", 50, False), ("page", 1000, True))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\n".join(lines))
PY
    wait "$io"
}

for r in $(seq "$runs"); do
    watch null --engine null --target "$work/null.dat" --block 4K --depth 32
    watch uring --engine uring --target "$filedir/serve-live.dat" --size 256M --block 4K --depth 32
    echo "round $r of $runs done" >&2
done

python3 - "$work" "$runs" "$secs" <<'PY'
import sys
work, runs, secs = sys.argv[1], sys.argv[2], sys.argv[3]

def stats(v):
    v = sorted(v)
    med = (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
    p95 = v[min(len(v) - 1, int(0.95 * len(v) + 0.5) - 1)]
    return f"{len(v):6d} {med:9.0f} {p95:9.0f} {v[-1]:9.0f}"

print(f"{runs} runs of {secs} s each; ms from when the run measured a point")
print(f"{'engine':7} {'what':42} {'points':>6} {'median':>9} {'p95':>9} {'max':>9}")
for engine in ("null", "uring"):
    rows = [l.split() for l in open(f"{work}/{engine}.points") if l.strip()]
    fast = [r for r in rows if r[0] == "api50"]
    page = [r for r in rows if r[0] == "page"]
    print(f"{engine:7} {'row written (updated_ms)':42} {stats([float(r[3]) for r in fast])}")
    print(f"{engine:7} {'seen on /api/live/ID, polled every 50 ms':42} {stats([float(r[2]) for r in fast])}")
    print(f"{engine:7} {'seen by the page (1 s after each answer)':42} {stats([float(r[2]) for r in page])}")
PY
