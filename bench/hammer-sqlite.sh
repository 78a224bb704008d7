#!/usr/bin/env bash
# Database Hammer on SQLite: load 10M rows (issue 5's figure: under 30 s here), then run
# 1 and 8 sessions at 50% and 100% GetAccount, printing calls/s, mean and p99 per operation
# and spindle's CPU per call. Not a test.
#
#   bench/hammer-sqlite.sh [DIR] [ROWS] [SECONDS]     (defaults: ./bench-work 10M 20)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-./bench-work}
rows=${2:-10M}
secs=${3:-20}
cargo build --release --quiet
spindle=$PWD/target/release/spindle
mkdir -p "$dir"
export SPINDLE_STORE=$dir/bench-results.db
db="sqlite://$(cd "$dir" && pwd)/hammer-bench.db"
$spindle hammer load --db "$db" --rows "$rows" --fresh --quiet --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
s = r["summary"]
print("load: %d rows in %.2f s = %.0f rows/s" % (s["ios"], r["measured_seconds"], s["iops"]))'
for ratio in 50 100; do
    $spindle hammer run --db "$db" --sessions 1,8 --read-ratio $ratio --duration "${secs}s" --warmup 5s --quiet --json |
        python3 -c '
import json, sys
for r in json.load(sys.stdin):
    s, spec = r["summary"], r["details"]["spec"]
    line = "run: %3d sessions, %3d%% GetAccount: %9.0f calls/s" % (spec["sessions"], spec["read_pct"], s["iops"])
    for name, d in (("GetAccount", s["read"]), ("UpdateAccount", s["write"])):
        if d["ios"]:
            lat = d["latency_ns"]
            line += "  %s mean %7.1f us p99 %8.1f us" % (name, lat["mean"] / 1e3, lat["p99"] / 1e3)
    print(line + "  CPU %.1f us/call, errors %d" % (s["cpu"]["us_per_io"], sum(r["errors"].values())))'
done
rm -f "$dir"/hammer-bench.db*
