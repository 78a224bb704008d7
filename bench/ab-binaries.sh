#!/usr/bin/env bash
# Two builds of spindle on the same `spindle io` run, alternating, so a change to the measured
# code is measured against the build before it at the same moment (this VM's speed drifts
# ±30% within an hour). Prints each round and the medians of IOPS and CPU per I/O, with ratios.
#
#   bench/ab-binaries.sh OLD_BINARY NEW_BINARY ROUNDS -- IO_ARGS...
#   (AB_TARGET, AB_SIZE: the file and its size, default a 64M scratch file; the order alternates
#   old new | new old, and the paired per-round ratios' median is printed beside the medians')
#   e.g. git worktree add /tmp/old <commit> && (cd /tmp/old && CARGO_TARGET_DIR=/tmp/oldt cargo build --release)
#        bench/ab-binaries.sh /tmp/oldt/release/spindle target/release/spindle 5 -- \
#            --engine null --block 4K --depth 32 --duration 5s
set -euo pipefail
old=$1 new=$2 rounds=$3
shift 3
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
one() { # binary io-args... -> "iops cpu_us_per_io"
    local bin=$1
    shift
    # A store per build: the newer one may have moved the store's schema on, which the older
    # then refuses.
    [ "$bin" = "$old" ] && export SPINDLE_STORE=$work/old.db || export SPINDLE_STORE=$work/new.db
    "$bin" io --target "${AB_TARGET:-$work/ab.dat}" --size "${AB_SIZE:-64M}" --keep-file --quiet --json "$@" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
s = r["summary"]
cpu = s.get("cpu", {})
print(s["iops"], cpu.get("us_per_io", float("nan")))'
}
printf '%-6s %14s %10s %14s %10s\n' round old_iops old_us new_iops new_us
for i in $(seq 1 "$rounds"); do
    if [ $((i % 2)) -eq 1 ]; then
        o=$(one "$old" "$@")
        n=$(one "$new" "$@")
    else
        n=$(one "$new" "$@")
        o=$(one "$old" "$@")
    fi
    echo "$i $o $n" >> "$work/rounds"
    printf '%-6s %14.0f %10.3f %14.0f %10.3f\n' "$i" $o $n
done
python3 - "$work/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
med = [statistics.median(c) for c in zip(*rows)]
print(f"median  {med[0]:14.0f} {med[1]:10.3f} {med[2]:14.0f} {med[3]:10.3f}")
print(f"new/old IOPS {med[2]/med[0]:.3f}x, CPU per I/O {med[3]/med[1]:.3f}x (medians)")
paired = [statistics.median(r[2] / r[0] for r in rows), statistics.median(r[3] / r[1] for r in rows)]
print(f"new/old IOPS {paired[0]:.3f}x, CPU per I/O {paired[1]:.3f}x (median of the rounds' ratios)")
PY
