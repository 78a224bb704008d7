#!/usr/bin/env bash
# The level-shift test's figures (docs/benchmarks.md, "Level shifts"), on a loop device over a
# sparse file (reads of holes: no disk under it, so the throttle alone sets the rate):
#
#   quiet:     QUIET runs of SECONDS, 4 KiB random reads at depth 8, unthrottled: each must
#              keep no `level_shift`; their swings (p5-p95) are printed beside.
#   held:      one run of SECONDS inside a cgroup v1 blkio group holding the device at 1,500
#              reads a second: no shift, and its swing.
#   throttled: one run of SECONDS inside a cgroup v1 blkio group whose read limit on the device
#              drops from 6,000 to 1,500 a second DROP seconds after the run's reads begin: the
#              record's `level_shift` must be at DROP ± 3 s, before and after within 15% of
#              6,000 and 1,500.
#
#   bench/level-shift.sh [QUIET] [SECONDS] [DROP]   (defaults: 10 30 10; as root)
#
# The drop's moment is taken when the device's read count (/sys/block/loopN/stat) has risen by
# more than 1,000 since spindle started, with --warmup 0s: the measured window's start, to
# within the 10 ms the count is polled at (spindle's few reads of the device while it checks
# the target come before and are far fewer).
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=${1:-10}
secs=${2:-30}
drop=${3:-10}
[ "$(id -u)" = 0 ] || { echo "level-shift.sh needs root (a loop device, a blkio cgroup)" >&2; exit 2; }
[ -w /sys/fs/cgroup/blkio ] || { echo "level-shift.sh needs cgroup v1 blkio at /sys/fs/cgroup/blkio" >&2; exit 2; }
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
device=""
cgroup=""
cleanup() {
    [ -z "$cgroup" ] || rmdir "$cgroup" 2>/dev/null || true
    [ -z "$device" ] || losetup -d "$device"
    rm -rf "$work"
}
trap cleanup EXIT
truncate -s 1G "$work/disk.img"
device=$(losetup --find --show --direct-io=on "$work/disk.img")
name=${device#/dev/}
numbers=$(cat "/sys/block/$name/dev")
export SPINDLE_STORE=$work/results.db NO_COLOR=1
args=(io --target "$device" --read 100 --random 100 --block 4K --depth 8 --duration "${secs}s" --warmup 0s --json --quiet)

# One record's level shift and swing in a line.
said() {
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s, w = r.get("level_shift"), r.get("swing")
shift = "shift at %.0f s: %.0f -> %.0f" % (s["at_seconds"], s["before"], s["after"]) if s else "no shift"
swing = "swing p5-p95 %.0f-%.0f IOPS (%.0f%% below p95)" % (w["p5"], w["p95"], 100 * (w["p95"] - w["p5"]) / w["p95"]) if w else "no swing"
print("%s, %s, %.0f IOPS over %.1f s" % (shift, swing, r["summary"]["iops"], r["measured_seconds"]))
' "$1"
}

echo "$(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $device over a sparse file"
shifted=0
for i in $(seq 1 "$quiet"); do
    "$spindle" "${args[@]}" >"$work/quiet.$i.json"
    line=$(said "$work/quiet.$i.json")
    echo "quiet $i: $line"
    [[ $line == "no shift"* ]] || shifted=$((shifted + 1))
done
echo "quiet runs with a level shift: $shifted of $quiet"

cgroup=/sys/fs/cgroup/blkio/spindle-level-shift-$$
mkdir "$cgroup"
limit() { echo "$numbers $1" >"$cgroup/blkio.throttle.read_iops_device"; }
reads() { awk '{print $1}' "/sys/block/$name/stat"; }
limit 1500
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cgroup" "$spindle" "${args[@]}" >"$work/held.json"
echo "held: 1500 reads/s the whole run: $(said "$work/held.json")"
limit 6000
before=$(reads)
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cgroup" "$spindle" "${args[@]}" >"$work/throttled.json" &
pid=$!
while [ $(($(reads) - before)) -le 1000 ]; do sleep 0.01; done
start=$(date +%s.%N)
sleep "$drop"
limit 1500
dropped=$(echo "$(date +%s.%N) - $start" | bc)
wait "$pid"
echo "throttled: 6000 -> 1500 reads/s at $(printf %.2f "$dropped") s: $(said "$work/throttled.json")"
python3 -c '
import json, sys
r, dropped = json.load(open(sys.argv[1])), float(sys.argv[2])
s = r.get("level_shift")
ok = bool(s) and abs(s["at_seconds"] - dropped) <= 3 and abs(s["before"] / 6000 - 1) <= 0.15 and abs(s["after"] / 1500 - 1) <= 0.15
if s:
    print("  at %+.1f s from the drop; before %+.1f%% of 6,000, after %+.1f%% of 1,500: %s" % (
        s["at_seconds"] - dropped, 100 * (s["before"] / 6000 - 1), 100 * (s["after"] / 1500 - 1), "within" if ok else "OUTSIDE"))
else:
    print("  no level shift: OUTSIDE")
' "$work/throttled.json" "$dropped"
