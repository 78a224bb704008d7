#!/usr/bin/env bash
# A volume capped above its device, as a provisioned or throttled cloud volume is: an ext4 loop
# device (direct I/O to its backing file) whose reads and writes the kernel's block throttle
# (cgroup v1 blkio, as root) holds at IOPS each, checked by `spindle check --quick` run inside
# the throttled group, told to expect 1.5 times IOPS (`--expect`). Prints the cap, knee and
# expected-rates findings and the exit code, and fails when the cap is not named within 10% of
# IOPS, the knee is called the device's, or the volume is not said to deliver less than
# expected. Not a test: it needs root, a loop device and cgroup v1 blkio.
#
#   bench/cloud-cap.sh [IOPS] [SPINDLE]   (defaults: 2000, target/release/spindle built here)
set -euo pipefail
cd "$(dirname "$0")/.."
iops=${1:-2000}
spindle=${2:-}
if [ -z "$spindle" ]; then
    cargo build --release --quiet
    spindle=$PWD/target/release/spindle
fi
. bench/throttled-volume.sh
throttled_volume cloud-cap "$iops"
SPINDLE_STORE=$work/results.db NO_COLOR=1 in_group "$spindle" check --quick --json --expect "$((iops * 3 / 2))iops" "$mnt" >"$work/check.json" && code=0 || code=$?
python3 - "$work/check.json" "$iops" "$code" <<'PY'
import json, sys
doc, iops, code = json.load(open(sys.argv[1])), float(sys.argv[2]), sys.argv[3]
by_rule = {f["rule"]: f for f in doc["findings"]}
points = doc["dirs"][0]["page_reads"]["points"]
print("page reads:", ", ".join(f'{p["value"]}: {p["iops"]:.0f} IOPS {p["latency_mean_ns"] / 1e6:.2f} ms' for p in points))
for step in ("large_reads", "large_writes"):
    t = doc["dirs"][0].get(step)
    if t:
        print(f'{step}: {t["block"] >> 10} KiB, {t["iops"]:.0f} IOPS, {t["mb_per_sec"]:.0f} MB/s')
knee = by_rule["page-read-knee"]["text"]
print("page-read-knee:", knee)
cap = by_rule.get("volume-cap")
print("volume-cap:", cap["text"] if cap else "(none)")
named = cap and abs(float(cap["figure"].split()[0].replace(",", "")) / iops - 1) <= 0.10
expected = by_rule.get("expected-rates")
print("expected-rates:", f'{expected["level"]}: {expected["text"]}' if expected else "(none)", f"(exit {code})")
short = expected and expected["level"] == "problem" and code == "0"
ok = named and "stop scaling" not in knee and short
print(f"throttle {iops:.0f} IOPS: cap named within 10%: {'yes' if named else 'NO'}; knee called the device's: "
      f"{'yes' if 'stop scaling' in knee else 'no'}; said to deliver less than expected, exit 0: {'yes' if short else 'NO'}")
sys.exit(0 if ok else 1)
PY
