#!/usr/bin/env bash
# Does the sampler see what the engine did? Direct-I/O runs of several shapes, each printing
# the disk's Disk Reads/sec + Disk Writes/sec (from /proc/diskstats) against spindle's own
# IOPS. Other I/O on the same disk shows up as a ratio above 100%. Not a test.
#
#   bench/counters-agree.sh [DIR] [SECONDS]     (defaults: ./bench-work 10)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-./bench-work}
secs=${2:-10}
cargo build --release --quiet
spindle=./target/release/spindle
mkdir -p "$dir"
export SPINDLE_STORE=$dir/bench-results.db
file="$dir/spindle-counters.dat"
$spindle io --target "$file" --size 1G --duration 1s --keep-file --quiet

for args in "--engine uring --block 4K --depth 32" "--engine uring --block 64K --depth 8" \
    "--engine sync --block 8K" "--engine uring --block 8K --read 0 --depth 8" \
    "--engine sync --block 8K --read 0 --random 0 --fsync-every 1"; do
    $spindle io --target "$file" --size 1G --duration "${secs}s" --keep-file --json --quiet $args |
        python3 -c '
import json, sys
args = sys.argv[1]
r = json.load(sys.stdin)
log = r["counters"]["counters"]
disk = r["environment"]["devices"][0]["device"]
get = lambda name: next(c["avg"] for c in log if c["path"] == "\\PhysicalDisk(%s)\\%s" % (disk, name))
device = get("Disk Reads/sec") + get("Disk Writes/sec")
engine = r["summary"]["iops"]
print(f"{args:58} spindle {engine:10.0f}  {disk} {device:10.0f}  device/spindle {100 * device / engine:6.1f}%")
' "$args"
done
rm -f "$file"
