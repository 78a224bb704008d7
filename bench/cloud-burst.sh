#!/usr/bin/env bash
# A burst allowance that runs out: an ext4 loop device (direct I/O to its backing file) whose
# reads and writes the kernel's block throttle (cgroup v1 blkio, as root) holds at BURST IOPS
# each, checked by `spindle check --quick --sustain HOLD` inside the throttled group; AFTER
# seconds into the sustained step (it starts as the verified pass, the step before it, is
# saved) the throttle drops to KEPT. Prints the sustained step's finding, its level shift as
# the record keeps it, and fails unless the burst is said within 3 s of AFTER, its rate within
# 15% of BURST and the rate kept within 15% of KEPT. Not a test: it needs root, a loop device
# and cgroup v1 blkio.
#
#   bench/cloud-burst.sh [HOLD] [AFTER] [BURST] [KEPT] [SPINDLE]
#   (defaults: 60s 20 6000 1500, target/release/spindle built here)
set -euo pipefail
cd "$(dirname "$0")/.."
hold=${1:-60s} after=${2:-20} burst=${3:-6000} kept=${4:-1500} spindle=${5:-}
if [ -z "$spindle" ]; then
    cargo build --release --quiet
    spindle=$PWD/target/release/spindle
fi
. bench/throttled-volume.sh
throttled_volume cloud-burst "$burst"
export SPINDLE_STORE=$work/results.db NO_COLOR=1
# The check's stderr says each run it saves; the one with a verify summary is the step before
# the sustained one.
in_group "$spindle" check --quick --sustain "$hold" "$mnt" >"$work/check.txt" 2>"$work/check.err" &
check=$!
dropped="" seen=0
while kill -0 "$check" 2>/dev/null && [ -z "$dropped" ]; do
    # Each run once, as it is saved: looking again at the ones before would delay the drop.
    for id in $(sed -n 's/.*saved as run \([0-9]*\).*/\1/p' "$work/check.err" 2>/dev/null | awk -v seen="$seen" '$1 > seen'); do
        seen=$id
        if "$spindle" runs show "$id" --json 2>/dev/null | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["details"].get("verify") else 1)'; then
            sleep "$after"
            throttle "$kept"
            dropped=yes
            break
        fi
    done
    sleep 0.2
done
wait "$check"
grep -E "IOPS sustained|level|IOPS expected" "$work/check.txt" || true
last=$(sed -n 's/.*saved as run \([0-9]*\).*/\1/p' "$work/check.err" | tail -1)
python3 - "$spindle" "$after" "$burst" "$kept" <<'PY'
import json, subprocess, sys
spindle, after, burst, kept = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
runs = json.loads(subprocess.run([spindle, "runs", "list", "--json"], capture_output=True, check=True).stdout)
ids = [r["id"] for r in runs]
records = [json.loads(subprocess.run([spindle, "runs", "show", str(i), "--json"], capture_output=True, check=True).stdout) for i in ids]
held = [r for r in records if r.get("details", {}).get("spec", {}).get("duration_ns", 0) >= 10e9]
shift = held[-1].get("level_shift") if held else None
print("sustained step's level shift:", shift)
ok = bool(shift) and abs(shift["at_seconds"] - after) <= 3 and abs(shift["before"] / burst - 1) <= 0.15 \
    and abs(shift["after"] / kept - 1) <= 0.15
print(f"burst said at {after:.0f} ± 3 s, {burst:.0f} -> {kept:.0f} IOPS within 15%: {'yes' if ok else 'NO'}")
sys.exit(0 if ok else 1)
PY
