#!/usr/bin/env bash
# What a page watching a run costs it: spindle io runs (every run publishes its progress to
# the store) alternate with and without a client polling `spindle serve` for the run's live
# points once a second, as the live page does, labelled watched=yes/no; then `spindle compare`
# gives the verdict on IOPS, and the time from a point measured to the page having it is
# printed from the live rows (their last update against the time the page read them). Not a
# test.
#
#   bench/serve-live.sh [ROUNDS] [SECONDS] [-- io flags]   (default 5 rounds of 5 s, null engine)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} secs=${2:-5}
shift $(( $# > 2 ? 2 : $# )); [ "${1:-}" = "--" ] && shift
io_flags=("$@"); [ ${#io_flags[@]} -gt 0 ] || io_flags=(--engine null --depth 8)
command -v curl >/dev/null || { echo "bench needs curl" >&2; exit 2; }
cargo build --release --quiet
spindle=${CARGO_TARGET_DIR:-$PWD/target}/release/spindle
work=$(mktemp -d)
server= watcher=
cleanup() { for p in $watcher $server; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
store=$work/results.db
$spindle io --engine null --duration 1s --target "$work/x.dat" --quiet --store "$store"
$spindle serve --store "$store" --listen 127.0.0.1:0 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^serving' "$work/serve.log" && break; sleep 0.1; done
base=$(sed -n 's/^serving \(http:[^ ]*\)\/ .*/\1/p' "$work/serve.log")

watch() { # polls as the live page does, and notes how old the newest point was when read
    while true; do
        now=$(date +%s%3N)
        curl -s "$base/api/live" | python3 -c '
import json, sys
now = int(sys.argv[1])
for r in json.load(sys.stdin)["runs"]:
    print(now - r["updated_ms"])' "$now" >> "$work/ages"
        sleep 1
    done
}
for i in $(seq "$rounds"); do
    for side in no yes; do
        if [ "$side" = yes ]; then watch & watcher=$!; fi
        $spindle io "${io_flags[@]}" --duration "${secs}s" --target "$work/x.dat" --quiet --store "$store" \
            --label watched=$side --label round="$i"
        if [ "$side" = yes ]; then kill "$watcher"; wait "$watcher" 2>/dev/null || true; watcher=; fi
    done
done
$spindle compare --store "$store" --a watched=no --b watched=yes
sort -n "$work/ages" | awk '{ v[NR] = $1 } END { if (NR) printf "a live point read by the page %d ms after it was published (median of %d reads, max %d ms)\n", v[int((NR + 1) / 2)], NR, v[NR] }'
