#!/usr/bin/env bash
# How long `spindle compare` takes, and how much memory, on two label groups of thousands of
# runs: a scratch store of RUNS runs (bench/many-runs.sh, default 10000: half raid=5, half
# raid=10, each a full record with histograms and a series), then `spindle compare --a raid=5
# --b raid=10` under /usr/bin/time -v, on SQLite and, when psql reaches the server, on a
# scratch PostgreSQL database (made and dropped here); and serve's compare page on the SQLite
# store. Prints wall time and peak RSS; exits 1 when either store's compare takes over 10 s or
# 100 MB, or the page is not answered (200) within 100 MB. Not a test.
#
#   bench/compare-large.sh [RUNS] [postgres://postgres@127.0.0.1]
#
# SPINDLE=path/to/spindle measures that binary instead of building this tree's (an older
# build, for the figures before a change).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000}
server=${2:-postgres://postgres@127.0.0.1}
db=bench_compare
[ -x /usr/bin/time ] || { echo "bench needs /usr/bin/time (GNU time)" >&2; exit 2; }
command -v curl >/dev/null || { echo "bench needs curl" >&2; exit 2; }
spindle=${SPINDLE:-}
if [ -z "$spindle" ]; then
    cargo build --release --quiet
    spindle=${CARGO_TARGET_DIR:-$PWD/target}/release/spindle
fi
work=$(mktemp -d)
pg=
cleanup() {
    [ -n "$pg" ] && psql -q "$server/postgres" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
over=0

measure() { # store name
    local store=$1 name=$2
    /usr/bin/time -v "$spindle" compare --store "$store" --a raid=5 --b raid=10 >"$work/out.txt" 2>"$work/time.txt" || {
        cat "$work/time.txt" >&2
        exit 1
    }
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time.txt")
    printf '%-11s compare --a raid=5 --b raid=10 (%s runs): %6.2f s wall, %6.1f MiB peak RSS\n' "$name" "$runs" "$wall" "$rss"
    sed -n '1,2s/^\(.\{0,100\}\).*/    \1/p' "$work/out.txt"
    sed -n '/^A and B are the geometric means/{n;n;s/^/    /;p;q}' "$work/out.txt"
    if awk -v w="$wall" -v r="$rss" 'BEGIN { exit !(w > 10 || r > 100) }'; then over=1; fi
}

bench/many-runs.sh "$spindle" "$work/results.db" "$runs" "$work" >/dev/null
measure "$work/results.db" SQLite

# serve's compare page on the same store: its status, time and the server's peak RSS.
"$spindle" serve --store "$work/results.db" --listen 127.0.0.1:0 2>"$work/serve.log" &
served=$!
for _ in $(seq 100); do grep -q '^serving' "$work/serve.log" && break; sleep 0.1; done
base=$(sed -n 's/^serving \(http:[^ ]*\)\/ .*/\1/p' "$work/serve.log")
page=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$base/compare?a=raid%3D5&b=raid%3D10")
peak=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' /proc/$served/status)
kill "$served"
wait "$served" 2>/dev/null || true
printf '%-11s /compare?a=raid%%3D5&b=raid%%3D10: status %s, %6.2f s, server %s MiB peak RSS\n' serve ${page% *} ${page#* } "$peak"
[ "${page% *}" = 200 ] && awk -v p="$peak" 'BEGIN { exit !(p <= 100) }' || over=1

if psql -q "$server/postgres" -c "CREATE DATABASE $db" >/dev/null 2>&1; then
    pg=1
    bench/many-runs.sh "$spindle" "$server/$db" "$runs" "$work" >/dev/null
    measure "$server/$db" PostgreSQL
else
    echo "PostgreSQL: not measured ($server unreachable with psql, or $db exists)" >&2
fi
[ "$over" = 0 ] || { echo "over the bound: 10 s and 100 MB" >&2; exit 1; }
