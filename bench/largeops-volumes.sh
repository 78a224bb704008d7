#!/usr/bin/env bash
# spindle largeops on a managed PostgreSQL whose data and WAL are on two loop devices of their
# own (ext4 on sparse files in a scratch directory), checking each operation's data and log
# rows against each volume's own counters: /proc/diskstats read every 5 ms by this script,
# and the block layer's trace of every request (which tells the writes that carried data from
# the writes of no bytes a kernel counts for flushes; bench/volume_truth.py), over the span
# from spindle's line naming the operation to its line saving it. Needs root (losetup, mount,
# tracefs). Not a test.
#
#   bench/largeops-volumes.sh [ROWS]     (default: 2000000; SPINDLE_BIN=path skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-2000000}
batch=$(( rows < 50000 ? rows : 50000 ))
volume_size=$(( rows * 4096 + (2 << 30) ))  # sparse: room for the table twice over and its WAL
source bench/loop-volumes.sh data log
url=$("$spindle" db up --engine postgres --data "$work/data/pg" --wal "$work/log/wal" --memory 512M 2>/dev/null)
echo "largeops --rows $rows: data on ${devs[0]}, WAL on ${devs[1]} ($(date -u +%F))"

PYTHONPATH=bench python3 - "$spindle" "$url" "$rows" "$batch" "${devs[0]#/dev/}" "${devs[1]#/dev/}" <<'PY'
import json, subprocess, sys, time
from volume_truth import Watch

spindle, url, rows, batch, data, log = sys.argv[1:]
watch = Watch([data, log])
watch.start()
cmd = [spindle, "largeops", "--db", url, "--rows", rows, "--batch", batch, "--settle", "2s", "--json"]
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
stamps = {}
for raw in proc.stderr:
    t, line = time.monotonic(), raw.decode().strip()
    for op in ("load", "scan", "update", "checkpoint"):
        if line == f"spindle: {op}" or line.startswith(f"spindle: {op} ("):
            stamps[op] = [t, None]
        elif line.startswith(f"spindle: {op}: saved"):
            stamps[op][1] = t
ops = json.loads(proc.stdout.read())
if proc.wait() != 0:
    sys.exit("spindle largeops failed")
watch.stop()

print(f"{'operation':<11} {'role':<5} {'volume':<7} {'reads':>7} {'vol':>7} {'writes':>7} {'vol':>7} {'traced':>7}"
      f" {'flushes':>7} {'vol':>7} {'MB written':>10} {'vol':>9} {'KB/write':>9} {'traced':>9}  largest difference")
worst = 0.0
for op in ops:
    name = op["operation"]
    for r in op["roles"]:
        dev = r["devices"][0]
        vol = watch.window(*stamps[name])[dev]
        traced_kb = vol["data_bytes"] / vol["data_writes"] / 1024 if vol["data_writes"] else None
        # spindle's figure against the independent one: reads and bytes against the volume's
        # counters, writes against the trace's writes of data, flushes against the counters.
        pairs = [(r["reads"], vol["reads"], 1000), (r["bytes_read"], vol["bytes_read"], 10e6),
                 (r["writes"], vol["data_writes"], 1000), (r["bytes_written"], vol["bytes_written"], 10e6),
                 (r["flushes"] or 0, vol["flushes"], 1000)]
        # Differences on counts large enough to speak for a volume (1,000 I/Os, 10 MB).
        diffs = [abs(m - v) / v * 100 for m, v, floor in pairs if v >= floor]
        worst = max([worst] + diffs)
        kb = "-" if r["kb_per_write"] is None else f"{r['kb_per_write']:.1f}"
        tkb = "-" if traced_kb is None else f"{traced_kb:.1f}"
        print(f"{name:<11} {r['role']:<5} {dev:<7} {r['reads']:>7} {vol['reads']:>7} {r['writes']:>7} {vol['writes']:>7}"
              f" {vol['data_writes']:>7} {r['flushes'] if r['flushes'] is not None else '-':>7} {vol['flushes']:>7}"
              f" {r['bytes_written'] / 1e6:>10.1f} {vol['bytes_written'] / 1e6:>9.1f} {kb:>9} {tkb:>9}  "
              + (f"{max(diffs):.2f}%" if diffs else "(too few to judge)"))
print("vol: the volume's /proc/diskstats (writes as counted, flushes among them); traced: the writes that carried data")
print(f"largest difference between spindle's rows and the volumes' own counts: {worst:.2f}%")
PY
