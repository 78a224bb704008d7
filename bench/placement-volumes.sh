#!/usr/bin/env bash
# spindle placement (Database Hammer on managed PostgreSQL) on two loop devices of their own:
# the layout "same" on the first, "split" with its data on the first and its WAL on the second.
# Each layout's volume counters as placement prints them (the mean over its rounds: Disk
# Writes/sec, Avg. Disk Bytes/Write, Disk Flushes/sec) against what each volume did over that
# layout's measured spans, from two sources of this script's own: /proc/diskstats read every
# 5 ms, and the block layer's trace of every request, which tells the writes that carried data
# from the writes of no bytes a kernel counts for flushes (bench/volume_truth.py). A span runs
# from spindle's line saying it hammers, plus the sessions' connecting and the warm-up, to its
# line saving the run. Needs root (losetup, mount, tracefs). Not a test.
#
#   bench/placement-volumes.sh [ROUNDS [DURATION]]   (default: 3 rounds of 20s; SPINDLE_BIN=path
#                                                      skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
duration=${2:-20s}
warmup=2
volume_size=$((4 << 30))
source bench/loop-volumes.sh a b
echo "placement --rounds $rounds --duration $duration: same on ${devs[0]}; split: data on ${devs[0]}, WAL on ${devs[1]} ($(date -u +%F))"

PYTHONPATH=bench python3 - "$spindle" "$work" "$rounds" "$duration" "$warmup" "${devs[0]#/dev/}" "${devs[1]#/dev/}" <<'PY'
import re, subprocess, sys, time
from volume_truth import Watch

spindle, work, rounds, duration, warmup, a, b = sys.argv[1:]
watch = Watch([a, b])
watch.start()
cmd = [spindle, "placement", "--engine", "postgres", "--same", f"{work}/a", "--split", f"{work}/a,{work}/b",
       "--rows", "200000", "--sessions", "8", "--duration", duration, "--warmup", f"{warmup}s", "--rounds", rounds]
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
# A run begins when spindle says it is hammering; its sessions connect (in the time it says
# once the run is over), warm up, and the measured span ends as the run is saved.
spans = {"a": [], "b": []}
hammering, ramp, said = None, 0.0, []
for raw in proc.stderr:
    t, line = time.monotonic(), raw.decode().strip()
    said.append(line)
    if line.startswith("spindle: hammering "):
        hammering = t
    elif m := re.search(r"sessions connected in ([\d.]+) s", line):
        ramp = float(m.group(1))
    elif (m := re.match(r"spindle: run \d+ of \d+ \(([ab])", line)) and hammering is not None:
        spans[m.group(1)].append((hammering + ramp + float(warmup), t))
        hammering = None
text = proc.stdout.read().decode()
if proc.wait() != 0:
    sys.exit("spindle placement failed")
watch.stop()
if not (spans["a"] and spans["b"]):
    sys.exit("placement-volumes.sh: no measured run found in what spindle said:\n" + "\n".join(said))

# What placement printed: per layout, the rounds' line for each volume.
shown, layout, rounds_block = {}, None, False
for line in text.splitlines():
    if m := re.match(r"  layout=(\w+):", line):
        layout, rounds_block = m.group(1), False
    elif line.startswith("    ") and not line.startswith("      "):
        rounds_block = line.strip() != "load:"
    elif rounds_block and (m := re.match(r"      (loop\d+) \([a-z ]+\): (.*)", line)):
        figures = dict(re.match(r"(.*) ([\d.]+)(?: ms)?$", f).groups() for f in m.group(2).split(", "))
        shown[(layout, m.group(1))] = {k: float(v) for k, v in figures.items()}

print(f"{'layout':<6} {'volume':<6} {'writes/s':>9} {'traced':>9} {'bytes/write':>11} {'traced':>9} {'vol':>9}"
      f" {'vol-fl':>9} {'flushes/s':>9} {'vol':>9}  difference (writes/s, bytes/write, flushes/s)")
worst = 0.0
for side, layout in (("a", "same"), ("b", "split")):
    volumes = [a] if layout == "same" else [a, b]
    for dev in volumes:
        total = {k: 0 for k in ("writes", "bytes_written", "flushes", "data_writes", "data_bytes")}
        seconds = 0.0
        for t0, t1 in spans[side]:
            w = watch.window(t0, t1)[dev]
            for k in total:
                total[k] += w[k]
            seconds += t1 - t0
        s = shown[(layout, dev)]
        per = lambda x, n: x / n if n else None
        # placement's figure, the independent one, how far apart (where both are there)
        rows = [
            (s.get("Disk Writes/sec"), per(total["data_writes"], seconds)),
            (s.get("Avg. Disk Bytes/Write"), per(total["data_bytes"], total["data_writes"])),
            (s.get("Disk Flushes/sec"), per(total["flushes"], seconds)),
        ]
        diffs = [abs(m - v) / v * 100 if m is not None and v else None for m, v in rows]
        if diffs[1] is not None:
            worst = max(worst, diffs[1])
        f = lambda v, w: "-".rjust(w) if v is None else f"{v:>{w}.1f}"
        print(f"{layout:<6} {dev:<6} {f(rows[0][0], 9)} {f(rows[0][1], 9)} {f(rows[1][0], 11)} {f(rows[1][1], 9)}"
              f" {f(per(total['bytes_written'], total['writes']), 9)}"
              f" {f(per(total['bytes_written'], total['writes'] - total['flushes']), 9)}"
              f" {f(rows[2][0], 9)} {f(rows[2][1], 9)}  "
              + ", ".join("-" if d is None else f"{d:.2f}%" for d in diffs))
print("placement's figures (the mean over each layout's rounds) against the volume's own over the same spans:")
print("traced: the writes that carried data (the block layer's trace); vol: /proc/diskstats' bytes over its writes as")
print("counted; vol-fl: over its writes less its flushes")
print(f"largest difference in bytes a write between placement's figure and the trace's: {worst:.2f}%")
PY
