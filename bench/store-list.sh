#!/usr/bin/env bash
# How fast the results store answers with many runs: fills a scratch store with N copies of
# one real run (varied labels and times; default 10000), then times `runs list` (newest 50),
# `runs list --all`, a label-filtered list and `runs show`, best of 5 each. Not a test.
# With a PostgreSQL URL, the store is that database (empty, made by you; needs psql), and the
# same figures are of a store a team shares.
#
#   bench/store-list.sh [RUNS] [postgres://user@host/EMPTY_DB]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000}
server=${2:-}
command -v python3 >/dev/null || { echo "bench needs python3 (sqlite3 module)" >&2; exit 2; }
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SPINDLE_STORE=${server:-$work/results.db}

bench/many-runs.sh "$spindle" "$SPINDLE_STORE" "$runs" "$work"

best_of_5() { # label, command...
    local label=$1; shift
    python3 - "$label" "$@" <<'PY'
import subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
times = []
for _ in range(5):
    t = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout
    times.append(time.perf_counter() - t)
lines = out.count(b"\n")
print(f"{label:50} best {min(times)*1000:8.1f} ms   median {sorted(times)[2]*1000:8.1f} ms   {lines} lines")
PY
}
best_of_5 "runs list (newest 50)" $spindle runs list
best_of_5 "runs list --all" $spindle runs list --all
best_of_5 "runs list --all --json" $spindle runs list --all --json
best_of_5 "runs list --label raid=10 --label host=db3 --all" $spindle runs list --label raid=10 --label host=db3 --all
best_of_5 "runs list --since 2026-10-20 --all" $spindle runs list --since 2026-10-20 --all
best_of_5 "runs show $((runs / 2))" $spindle runs show $((runs / 2))
best_of_5 "compare --a 1-3 --b 4-6" $spindle compare --a 1-3 --b 4-6
