#!/usr/bin/env bash
# spindle largeops on a managed PostgreSQL whose data and WAL are on two loop devices of their
# own (ext4 on sparse files in a scratch directory), checking each operation's data and log
# rows against each volume's own counters: /proc/diskstats read every 5 ms by this script,
# over the span from spindle's line naming the operation to its line saving it. Needs root
# (losetup, mount). Not a test.
#
#   bench/largeops-volumes.sh [ROWS]     (default: 2000000; SPINDLE_BIN=path skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-2000000}
batch=$(( rows < 50000 ? rows : 50000 ))
[ "$(id -u)" = 0 ] || { echo "largeops-volumes.sh: needs root (losetup, mount)" >&2; exit 1; }
if [ -n "${SPINDLE_BIN:-}" ]; then spindle=$SPINDLE_BIN; else  # a build of your own, or this tree's
  cargo build --release --quiet
  spindle=${CARGO_TARGET_DIR:-$PWD/target}/release/spindle
fi
work=$(mktemp -d)
chmod 755 "$work"  # the server runs as postgres, which must reach its directories
export XDG_DATA_HOME=$work/xdg SPINDLE_STORE=$work/results.db
devs=() mnts=()
cleanup() {
  "$spindle" db down --all --remove >/dev/null 2>&1 || true
  for m in "${mnts[@]}"; do umount "$m" 2>/dev/null || true; done
  for d in "${devs[@]}"; do losetup -d "$d" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
size=$(( rows * 4096 + (2 << 30) ))  # sparse: room for the table twice over and its WAL
for v in data log; do
  truncate -s "$size" "$work/$v.img"
  d=$(losetup --find --show "$work/$v.img")
  devs+=("$d")
  # Initialised at once, so no background zeroing lands on the counters.
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$d"
  mkdir -p "$work/$v"
  mount "$d" "$work/$v"
  mnts+=("$work/$v")
done
url=$("$spindle" db up --engine postgres --data "$work/data/pg" --wal "$work/log/wal" --memory 512M 2>/dev/null)
echo "largeops --rows $rows: data on ${devs[0]}, WAL on ${devs[1]} ($(date -u +%F))"

python3 - "$spindle" "$url" "$rows" "$batch" "${devs[0]#/dev/}" "${devs[1]#/dev/}" <<'PY'
import json, subprocess, sys, threading, time

spindle, url, rows, batch, data, log = sys.argv[1:]
devices = {"data": data, "log": log}
samples, stop = [], threading.Event()

def diskstats():
    out = {}
    with open("/proc/diskstats") as f:
        for line in f:
            p = line.split()
            if p[2] in (data, log):
                # reads, bytes read, writes, bytes written
                out[p[2]] = (int(p[3]), int(p[5]) * 512, int(p[7]), int(p[9]) * 512)
    return out

def sample():
    while not stop.is_set():
        samples.append((time.time(), diskstats()))
        time.sleep(0.005)

sampler = threading.Thread(target=sample)
sampler.start()
cmd = [spindle, "largeops", "--db", url, "--rows", rows, "--batch", batch, "--settle", "2s", "--json"]
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
stamps = {}
for raw in proc.stderr:
    t, line = time.time(), raw.decode().strip()
    for op in ("load", "scan", "update", "checkpoint"):
        if line == f"spindle: {op}" or line.startswith(f"spindle: {op} ("):
            stamps[op] = [t, None]
        elif line.startswith(f"spindle: {op}: saved"):
            stamps[op][1] = t
ops = json.loads(proc.stdout.read())
if proc.wait() != 0:
    sys.exit("spindle largeops failed")
time.sleep(0.02)
stop.set()
sampler.join()

def around(start, end):
    before = [s for s in samples if s[0] <= start][-1][1]
    after = next(s for s in samples if s[0] >= end)[1]
    return before, after

print(f"{'operation':<11} {'role':<5} {'volume':<7} {'reads':>8} {'vol reads':>9} {'writes':>8} {'vol writes':>10}"
      f" {'MB written':>11} {'vol MB':>9} {'KB/write':>9} {'MB/s':>8} {'queue':>6}  largest difference")
worst = 0.0
for op in ops:
    name = op["operation"]
    before, after = around(*stamps[name])
    for r in op["roles"]:
        dev = r["devices"][0]
        vol = [a - b for a, b in zip(after[dev], before[dev])]
        mine = [r["reads"], r["bytes_read"], r["writes"], r["bytes_written"]]
        # Differences on counts large enough to speak for a volume (1,000 I/Os, 10 MB).
        diffs = [abs(m - v) / v * 100 for m, v, floor in zip(mine, vol, [1000, 10e6, 1000, 10e6]) if v >= floor]
        worst = max([worst] + diffs)
        kb = "-" if r["kb_per_write"] is None else f"{r['kb_per_write']:.1f}"
        queue = "-" if r["queue"] is None else f"{r['queue']:.2f}"
        mbs = r["read_mb_per_sec"] + r["write_mb_per_sec"]
        print(f"{name:<11} {r['role']:<5} {dev:<7} {mine[0]:>8} {vol[0]:>9} {mine[2]:>8} {vol[2]:>10}"
              f" {mine[3] / 1e6:>11.1f} {vol[3] / 1e6:>9.1f} {kb:>9} {mbs:>8.1f} {queue:>6}  "
              + (f"{max(diffs):.2f}%" if diffs else "(too few to judge)"))
print(f"largest difference between spindle's rows and the volumes' own counters: {worst:.2f}%")
PY
