#!/usr/bin/env bash
# How fast `spindle serve` answers over a large store: fills a scratch store with RUNS runs
# (bench/many-runs.sh, default 10000), starts the server, then requests the runs page's first
# screen and a run's page 20 times each and prints the median server time (curl's time to the
# first byte less its connect time, on loopback), then the server's resident memory (now and
# its peak). Not a test.
#
#   bench/serve-pages.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000}
command -v curl >/dev/null || { echo "bench needs curl" >&2; exit 2; }
cargo build --release --quiet
spindle=${CARGO_TARGET_DIR:-$PWD/target}/release/spindle
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
bench/many-runs.sh "$spindle" "$work/results.db" "$runs" "$work"

$spindle serve --store "$work/results.db" --listen 127.0.0.1:0 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^serving' "$work/serve.log" && break; sleep 0.1; done
base=$(sed -n 's/^serving \(http:[^ ]*\)\/ .*/\1/p' "$work/serve.log")
[ -n "$base" ] || { cat "$work/serve.log" >&2; exit 1; }

median_ms() { # path
    for _ in $(seq 20); do
        curl -s -o /dev/null -w '%{http_code} %{time_connect} %{time_starttransfer}\n' "$base$1"
    done | awk '$1 != 200 { print "status " $1 > "/dev/stderr"; exit 1 } { print ($3 - $2) * 1000 }' |
        sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", (v[10] + v[11]) / 2 }'
}
echo "runs page, first screen (/)         median $(median_ms /) ms of 20"
echo "a run's page (/run/$((runs / 2)))            median $(median_ms "/run/$((runs / 2))") ms of 20"
echo "runs page sorted by p99, page 50     median $(median_ms "/?sort=p99&page=50") ms of 20"
echo "server RSS now $(awk '/VmRSS/ { printf "%.1f MiB", $2 / 1024 }' /proc/$server/status), peak $(awk '/VmHWM/ { printf "%.1f MiB", $2 / 1024 }' /proc/$server/status)"
