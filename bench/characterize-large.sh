#!/usr/bin/env bash
# A week of one-second perfmon samples (about 600,000 rows) with 30 counters, characterized:
# how long spindle takes to read and characterize it, and its peak resident memory. Not a test.
#
#   bench/characterize-large.sh [ROWS]     (default 604800: 7 days x 86400 s)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-604800}
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/week.csv
python3 - "$log" "$rows" <<'PY'
import random, sys, datetime
path, rows = sys.argv[1], int(sys.argv[2])
rnd = random.Random(2)
disks = ["0 C:", "1 D:", "2 L:"]
names = ["Disk Reads/sec", "Disk Writes/sec", "Avg. Disk Bytes/Read", "Avg. Disk Bytes/Write",
         "Avg. Disk Queue Length", "Avg. Disk sec/Read", "Avg. Disk sec/Write", "% Disk Time"]
cols = [f"\\\\DB01\\PhysicalDisk({d})\\{n}" for d in disks for n in names]
cols += ["\\\\DB01\\Processor(_Total)\\% Processor Time", "\\\\DB01\\Memory\\Pages/sec",
         "\\\\DB01\\Memory\\Available MBytes", "\\\\DB01\\SQLServer:Buffer Manager\\Page life expectancy",
         "\\\\DB01\\SQLServer:Latches\\Average Latch Wait Time (ms)", "\\\\DB01\\System\\Processor Queue Length"]
t = datetime.datetime(2026, 11, 1)
with open(path, "w", newline="") as f:
    f.write('"(PDH-CSV 4.0) (Eastern Standard Time)(300)",' + ",".join(f'"{c}"' for c in cols) + "\r\n")
    for i in range(rows):
        vals = []
        for d in disks:
            r, w = rnd.uniform(0, 800), rnd.uniform(0, 1500)
            vals += [r, w, rnd.choice([8192, 65536, 524288]), rnd.choice([512, 8192, 61440, 65536]),
                     rnd.uniform(0, 8), rnd.uniform(0, 0.02), rnd.uniform(0, 0.01), rnd.uniform(0, 100)]
        vals += [rnd.uniform(0, 100), rnd.uniform(0, 50), 20000, 3000, rnd.uniform(0, 5), rnd.uniform(0, 4)]
        stamp = (t + datetime.timedelta(seconds=i)).strftime("%m/%d/%Y %H:%M:%S.000")
        f.write(f'"{stamp}",' + ",".join(f'"{v}"' for v in vals) + "\r\n")
PY
size=$(du -h "$log" | cut -f1)
# The binary cargo just built, wherever CARGO_TARGET_DIR puts it.
python3 - "${CARGO_TARGET_DIR:-$PWD/target}/release/spindle" "$log" "$size" "$rows" <<'PY'
import resource, subprocess, sys, time
spindle, log, size, rows = sys.argv[1:]
times = []
for _ in range(3):
    t = time.perf_counter()
    out = subprocess.run([spindle, "characterize", log], stdout=subprocess.PIPE, check=True).stdout
    times.append(time.perf_counter() - t)
print(out.decode().rstrip())
# The largest resident set of the three runs (the only children), in KiB on Linux, and their
# CPU time: with the parsing on two threads, user time above wall time says both cores worked.
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak_mb = usage.ru_maxrss / 1024
print(f"characterize: {rows} rows x 30 counters ({size}): best {min(times):.2f} s, median {sorted(times)[1]:.2f} s, "
      f"user CPU {usage.ru_utime / 3:.2f} s a run, peak RSS {peak_mb:.0f} MB")
PY
