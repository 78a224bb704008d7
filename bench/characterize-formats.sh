#!/usr/bin/env bash
# The same day of one-second disk counters as a perfmon CSV, `iostat -x -t` text and `sadf -d`
# records, characterized by two builds of spindle in A B B A order: wall time and CPU time of
# each, with the new build's ratio to the old. User CPU above wall time says the parsing ran on
# both cores. Not a test. It fails when a build's summary (or error: sar counts transfers, not
# reads and writes apart, so characterize reads a sadf log whole and then says which counters
# it lacks) differs from the other's.
#
#   bench/characterize-formats.sh OLD_BINARY NEW_BINARY [SECONDS]   (default 86400: a day)
set -euo pipefail
old=$1 new=$2 seconds=${3:-86400}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$seconds" <<'PY'
import datetime, random, sys
work, seconds = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)
devs = ["sda", "sdb", "nvme0n1"]
t0 = datetime.datetime(2026, 11, 1)
names = ["Disk Reads/sec", "Disk Writes/sec", "Disk Read Bytes/sec", "Disk Write Bytes/sec",
         "Avg. Disk Bytes/Read", "Avg. Disk Bytes/Write", "Avg. Disk sec/Read", "Avg. Disk sec/Write",
         "Avg. Disk Queue Length"]
with open(f"{work}/day.csv", "w", newline="") as csv, open(f"{work}/day.iostat", "w") as io, \
        open(f"{work}/day.sadf", "w") as sa:
    csv.write('"(PDH-CSV 4.0) (UTC)(0)",' + ",".join(f'"\\\\db01\\PhysicalDisk({d})\\{n}"' for d in devs for n in names) + "\r\n")
    io.write("Linux 6.1.0 (db01) \t11/01/2026 \t_x86_64_\t(8 CPU)\n\n")
    sa.write("# hostname;interval;timestamp;DEV;tps;rkB/s;wkB/s;dkB/s;areq-sz;aqu-sz;await;%util\n")
    for i in range(seconds):
        t = t0 + datetime.timedelta(seconds=i)
        io.write(t.strftime("%m/%d/%Y %H:%M:%S") + "\navg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
                 f"           {rnd.uniform(0, 50):.2f}    0.00    {rnd.uniform(0, 9):.2f}    {rnd.uniform(0, 9):.2f}    0.00   {rnd.uniform(40, 90):.2f}\n\n"
                 "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz aqu-sz  %util\n")
        row = []
        for d in devs:
            r, w = rnd.uniform(0, 800), rnd.uniform(0, 1500)
            rs, ws = rnd.choice([8, 64, 512]), rnd.choice([4, 8, 60, 64])
            ra, wa, q = rnd.uniform(0, 20), rnd.uniform(0, 10), rnd.uniform(0, 8)
            row += [r, w, r * rs * 1024, w * ws * 1024, rs * 1024, ws * 1024, ra / 1000, wa / 1000, q]
            io.write(f"{d:<14} {r:8.2f} {r * rs:9.2f}    0.00   0.00 {ra:7.2f} {rs:8.2f} {w:7.2f} {w * ws:9.2f}"
                     f"     0.00   0.00 {wa:7.2f} {ws:8.2f} {q:6.2f}  {rnd.uniform(0, 100):5.2f}\n")
            sa.write(f"db01;1;{t.strftime('%Y-%m-%d %H:%M:%S')} UTC;{d};{r + w:.2f};{r * rs:.2f};{w * ws:.2f};0.00;"
                     f"{(r * rs + w * ws) / max(r + w, 1e-9):.2f};{q:.2f};{(ra + wa) / 2:.2f};{rnd.uniform(0, 100):.2f}\n")
        io.write("\n")
        csv.write(t.strftime('"%m/%d/%Y %H:%M:%S.000"') + "," + ",".join(f'"{v}"' for v in row) + "\r\n")
PY
# One run: "wall user sys" in seconds, the summary (or error) kept to compare the builds.
one() { # binary log tag
    python3 - "$1" "$2" "$work/$3.out" <<'PY'
import os, subprocess, sys, time
binary, log, out = sys.argv[1:]
before = os.times()
t = time.perf_counter()
with open(out, "wb") as f:
    code = subprocess.run([binary, "characterize", log], stdout=f, stderr=subprocess.STDOUT).returncode
    f.write(f"exit {code}\n".encode())
wall = time.perf_counter() - t
after = os.times()
print(f"{wall:.3f} {after.children_user - before.children_user:.3f} {after.children_system - before.children_system:.3f}")
PY
}
printf '%-8s %5s %8s %8s %8s %8s\n' format round old_wall old_user new_wall new_user
for format in csv iostat sadf; do
    log=$work/day.$format
    : > "$work/$format.rounds"
    for round in 1 2; do
        if [ "$round" -eq 1 ]; then
            o=$(one "$old" "$log" old) n=$(one "$new" "$log" new)
        else
            n=$(one "$new" "$log" new) o=$(one "$old" "$log" old)
        fi
        cmp -s "$work/old.out" "$work/new.out" || {
            echo "the builds' summaries of $format differ:" >&2
            diff "$work/old.out" "$work/new.out" >&2
            exit 1
        }
        read -r ow ou _ <<<"$o"
        read -r nw nu _ <<<"$n"
        printf '%-8s %5s %8s %8s %8s %8s\n' "$format" "$round" "$ow" "$ou" "$nw" "$nu" | tee -a "$work/$format.rounds"
    done
done
echo
echo "size of the logs: $(du -h "$work"/day.* | awk '{printf "%s %s  ", $2, $1}' | sed "s|$work/||g")"
for format in csv iostat sadf; do
    awk -v f="$format" '{ow += $3; ou += $4; nw += $5; nu += $6}
        END { printf "%-7s old %.2f s (user %.2f), new %.2f s (user %.2f): new/old wall %.2fx\n", f, ow/NR, ou/NR, nw/NR, nu/NR, nw/ow }' \
        "$work/$format.rounds"
done
