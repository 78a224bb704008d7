#!/usr/bin/env bash
# Replay as recorded: fio drives a 70/30 read/write mix of 8K random direct I/O at a fixed rate
# on a loop device of its own, `spindle record` logs that device's counters meanwhile, then
# `characterize` turns the log into a spec and `spindle io --spec` replays it on the same
# device. Prints the recorded rate and read share (fio's own figures and the log's) beside the
# replay's, in rounds. Not a test; needs root (losetup).
#
#   bench/characterize-replay.sh [DIR] [SECONDS] [RATE] [ROUNDS]     (defaults: ./bench-work 20 500 2)
#   SPINDLE=target/debug/spindle bench/characterize-replay.sh ...       (that build, no release build)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-./bench-work}
secs=${2:-20}
rate=${3:-500}
rounds=${4:-2}
command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio >/dev/null; }
# SPINDLE=path runs that build instead (the work is paced, so a debug build measures alike).
spindle=${SPINDLE:-}
if [ -z "$spindle" ]; then cargo build --release --quiet; spindle=$PWD/target/release/spindle; fi
mkdir -p "$dir"
work=$(mktemp -d "$dir/replay.XXXXXX")
backing="$work/disk.img"
truncate -s 2G "$backing"
dev=$(losetup --find --show --direct-io=on "$backing")
trap 'losetup -d "$dev"; rm -rf "$work"' EXIT
name=$(basename "$dev")
export SPINDLE_STORE=$work/results.db
reads=$((rate * 7 / 10))
writes=$((rate - reads))

echo "round  fio_iops  fio_read%  log_iops  log_read%  replay_iops  replay_read%  replay/recorded"
for r in $(seq 1 "$rounds"); do
    "$spindle" record --device "$name" --interval 1s --duration "$((secs + 4))s" --quiet -o "$work/rec-$r.csv" &
    recorder=$!
    sleep 2
    fio --name=recorded --filename="$dev" --direct=1 --ioengine=psync --rw=randrw --rwmixread=70 --bs=8k \
        --size=1G --runtime="$secs" --time_based --rate_iops="$reads,$writes" --output-format=json \
        >"$work/fio-$r.json"
    wait "$recorder"
    "$spindle" characterize "$work/rec-$r.csv" --device "$name" --json -o "$work/spec-$r.toml" >"$work/profile-$r.json"
    # The replay goes to the same device, as the recorded work did.
    sed -i "s|^path = .*|path = \"$dev\"|" "$work/spec-$r.toml"
    "$spindle" io --spec "$work/spec-$r.toml" --allow-destroy --duration "${secs}s" --json --quiet >"$work/replay-$r.json"
    python3 - "$work/fio-$r.json" "$work/profile-$r.json" "$work/replay-$r.json" "$r" <<'PY'
import json, sys
fio = json.load(open(sys.argv[1]))["jobs"][0]
f_iops = fio["read"]["iops"] + fio["write"]["iops"]
f_read = 100 * fio["read"]["iops"] / f_iops
log = json.load(open(sys.argv[2]))[0]["all"]
run = json.load(open(sys.argv[3]))
s = run["summary"]
r_iops = s["iops"]
r_read = 100 * s["read"]["ios"] / max(1, s["read"]["ios"] + s["write"]["ios"])
print(f"{sys.argv[4]:>5}  {f_iops:8.1f}  {f_read:9.1f}  {log['iops']:8.1f}  {log['read_pct']:9.1f}  "
      f"{r_iops:11.1f}  {r_read:12.1f}  {r_iops / f_iops:15.3f}")
PY
done
