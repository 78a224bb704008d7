#!/usr/bin/env bash
# How fast, and in how little memory, `spindle serve` answers over a large store: fills a
# scratch store with RUNS runs (bench/many-runs.sh, default 10000; an SQLite file, or the
# PostgreSQL database at STORE_URL, which must be empty), starts the server, downloads 2,000
# runs in every format (csv, json, md, html, xlsx), asks for the runs page sorted by p99 four
# times at once, then requests the runs page's first screen and a run's page 20 times each and
# prints the median server time (curl's time to the first byte less its connect time, on
# loopback) and the server's resident memory (now, and its peak: VmHWM). Exits 1 when the peak
# is over 60 MiB, the first screen over 150 ms or a run's page over 100 ms. Last, a download of
# every run (CSV) must be whole. Not a test.
#
#   bench/serve-pages.sh [RUNS] [STORE_URL]
#   SPINDLE=target/release/spindle bench/serve-pages.sh ...   (a binary already built)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000}
url=${2:-}
command -v curl >/dev/null || { echo "bench needs curl" >&2; exit 2; }
spindle=${SPINDLE:-}
if [ -z "$spindle" ]; then
    cargo build --release --quiet
    spindle=${CARGO_TARGET_DIR:-$PWD/target}/release/spindle
fi
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
store=${url:-$work/results.db}
bench/many-runs.sh "$spindle" "$store" "$runs" "$work"

$spindle serve --store "$store" --listen 127.0.0.1:0 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^serving' "$work/serve.log" && break; sleep 0.1; done
base=$(sed -n 's/^serving \(http:[^ ]*\)\/ .*/\1/p' "$work/serve.log")
[ -n "$base" ] || { cat "$work/serve.log" >&2; exit 1; }

peak_mib() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$server/status"; }
fetch() { # path file: the status must be 200
    local code
    code=$(curl -s -o "$2" -w '%{http_code}' "$base$1")
    [ "$code" = 200 ] || { echo "$1: status $code" >&2; exit 1; }
}

last=$((runs < 2000 ? runs : 2000))
for format in csv json md html xlsx; do
    start=$(date +%s.%N)
    fetch "/download?runs=1-$last&format=$format" "$work/download.$format"
    printf '%-4s download of %s runs: %6.1f MiB in %5.1f s, server peak %s MiB\n' "$format" "$last" \
        "$(stat -c %s "$work/download.$format" | awk '{ print $1 / 1048576 }')" \
        "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$(peak_mib)"
    rm -f "$work/download.$format"
done
sorts=()
for i in 1 2 3 4; do
    fetch "/?sort=p99" "$work/sorted.$i" &
    sorts+=($!)
done
for pid in "${sorts[@]}"; do wait "$pid"; done
echo "four parallel /?sort=p99: server peak $(peak_mib) MiB"

median_ms() { # path
    for _ in $(seq 20); do
        curl -s -o /dev/null -w '%{http_code} %{time_connect} %{time_starttransfer}\n' "$base$1"
    done | awk '$1 != 200 { print "status " $1 > "/dev/stderr"; exit 1 } { print ($3 - $2) * 1000 }' |
        sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", (v[10] + v[11]) / 2 }'
}
first=$(median_ms /)
run=$(median_ms "/run/$((runs / 2))")
echo "runs page, first screen (/)         median $first ms of 20"
echo "a run's page (/run/$((runs / 2)))            median $run ms of 20"
echo "runs page sorted by p99, page 50     median $(median_ms "/?sort=p99&page=50") ms of 20"
peak=$(peak_mib)
echo "server RSS now $(awk '/VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$server/status"), peak $peak MiB"

fetch "/download?runs=1-$runs&format=csv" "$work/all.csv"
rows=$(awk -F, '$5 == "total"' "$work/all.csv" | wc -l)
echo "csv download of all $runs runs: $rows runs in it, server peak $(peak_mib) MiB"
[ "$rows" = "$runs" ] || { echo "the download of every run is not whole" >&2; exit 1; }

over=$(awk -v p="$peak" -v f="$first" -v r="$run" \
    'BEGIN { if (p > 60) print "peak " p " MiB > 60"; if (f > 150) print "first screen " f " ms > 150"; if (r > 100) print "run page " r " ms > 100" }')
[ -z "$over" ] || { echo "over the targets: $over" >&2; exit 1; }
