#!/usr/bin/env bash
# spindle against fio on the same file, alternating, in one run: IOPS, mean and p99 latency
# and CPU per I/O side by side, with spindle/fio ratios. Not a test: machines are noisy, so
# read the ratios, and run it more than once before believing a small difference.
#
#   bench/vs-fio.sh [DIR] [SECONDS] [ROUNDS]     (defaults: ./bench-work 10 3)
#   CASES="c d" bench/vs-fio.sh ...               (only these cases, by letter)
#
# Cases: (a) null engine, 4K random read, depth 32, 1 thread, against fio's null
# engine at its defaults (a random map, a clock read per I/O) and (a2) at its cheapest
# (--norandommap --gtod_reduce=1: no map, no per-I/O clock, so fio reports no latency);
# (b) io_uring, direct, 4K random read, depth 32, 1 thread; (c) sync, direct, 8K random read,
# depth 1; (d) 8K sequential writes with fdatasync after each, depth 1.
# Cases (io timing): (e) sync, direct, 8K random read, depth 1, capped at 400 IOPS (fio psync
# rate_iops=400); (f) the same on io_uring. Latency under a rate is the device's only if
# spindle wakes on time, so (e) and (f) read the mean and p99 ratios; (b) reads p50 and p99
# against fio's completion latency (clat: from the hand-off to the kernel), which is what
# spindle stamps. Every row also shows the disk's own mean time per I/O over that run (from
# /proc/diskstats: the block layer's await), the floor both tools' latencies stand on.
# Both io_uring rings are set up alike: fio since 3.33 asks for COOP_TASKRUN, SINGLE_ISSUER and
# DEFER_TASKRUN itself (engines/io_uring.c), as spindle does, and is given registered files and
# fixed buffers here, its best settings for this work. spindle stamps I/Os once per hand-off
# batch and once per reap, fio once per I/O (at its defaults).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-./bench-work}
secs=${2:-10}
rounds=${3:-3}
size=${BENCH_SIZE:-1G}

command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio >/dev/null; }
command -v python3 >/dev/null || { echo "bench needs python3 to read JSON" >&2; exit 2; }
cargo build --release --quiet
spindle=./target/release/spindle
mkdir -p "$dir"
file="$dir/spindle-bench.dat"
out="$dir/results"
rm -rf "$out" && mkdir -p "$out"

# spindle creates (and marks) the test file once; both tools then use it as it is.
# Results of the bench are not worth keeping in the user's store.
export SPINDLE_STORE=$dir/bench-results.db
$spindle io --target "$file" --size "$size" --duration 1s --keep-file --quiet

# The whole disk under the file (a partition's parent), for its own I/O counts and times.
source=$(findmnt -no SOURCE -T "$dir" || true)
disk=$(lsblk -no PKNAME "$source" 2>/dev/null | head -1 || true)
disk=${disk:-$(basename "$source")}
disk_stats() { # reads, read ms, writes, write ms
    awk -v d="$disk" '$3 == d { print $4, $7, $8, $11 }' /proc/diskstats
}

run_case() { # name, spindle args, fio args
    local name=$1 sargs=$2 fargs=$3
    [[ -z "${CASES:-}" || " $CASES " == *" ${name:0:1} "* ]] || return 0
    run_spindle() {
        disk_stats >"$out/$name.spindle.$r.disk"
        $spindle io --target "$file" --size "$size" --duration "${secs}s" --keep-file --json --quiet $sargs \
            >"$out/$name.spindle.$r.json"
        disk_stats >>"$out/$name.spindle.$r.disk"
    }
    run_fio() {
        disk_stats >"$out/$name.fio.$r.disk"
        fio --name="$name" --filename="$file" --size="$size" --runtime="$secs" --time_based \
            --lat_percentiles=1 --percentile_list=50:99 --output-format=json $fargs \
            >"$out/$name.fio.$r.json"
        disk_stats >>"$out/$name.fio.$r.disk"
    }
    # A B B A: spindle first in odd rounds, fio first in even ones, so neither always finds
    # the disk (and its cache, its writeback) as the other left it.
    for r in $(seq 1 "$rounds"); do
        if ((r % 2)); then run_spindle; run_fio; else run_fio; run_spindle; fi
    done
}

run_case a-null-4k-qd32 "--engine null --block 4K --depth 32" \
    "--ioengine=null --rw=randread --bs=4k --iodepth=32"
run_case a2-null-4k-qd32-cheap "--engine null --block 4K --depth 32" \
    "--ioengine=null --rw=randread --bs=4k --iodepth=32 --norandommap --gtod_reduce=1"
run_case b-uring-4k-qd32 "--engine uring --block 4K --depth 32" \
    "--ioengine=io_uring --direct=1 --rw=randread --bs=4k --iodepth=32 --registerfiles=1 --fixedbufs=1"
run_case c-sync-8k-qd1 "--engine sync --block 8K --depth 1" \
    "--ioengine=psync --direct=1 --rw=randread --bs=8k --iodepth=1"
run_case d-seqwrite-8k-fdatasync "--engine sync --block 8K --read 0 --random 0 --fsync-every 1" \
    "--ioengine=psync --direct=1 --rw=write --bs=8k --iodepth=1 --fdatasync=1"
run_case e-sync-8k-rate400 "--engine sync --block 8K --depth 1 --rate 400" \
    "--ioengine=psync --direct=1 --rw=randread --bs=8k --iodepth=1 --rate_iops=400"
run_case f-uring-8k-rate400 "--engine uring --block 8K --depth 1 --rate 400" \
    "--ioengine=io_uring --direct=1 --rw=randread --bs=8k --iodepth=1 --rate_iops=400 --registerfiles=1 --fixedbufs=1"

python3 - "$out" "$rounds" <<'PY'
import json, sys, glob, statistics as st
out, rounds = sys.argv[1], int(sys.argv[2])

def fio_doc(path):
    text = open(path).read()
    return json.loads(text[text.index("{"):])

def spindle_row(path):
    doc = json.load(open(path))
    # A uring case measured on the sync engine (io_uring unavailable: spindle falls back with a
    # warning) would compare different work; refuse to print it.
    case = path.split("/")[-1].split(".")[0]
    wanted = "uring" if "uring" in case else "null" if "null" in case else "sync"
    if doc["details"]["spec"]["engine"] != wanted:
        sys.exit(f"{path}: spindle ran the {doc['details']['spec']['engine']} engine, not {wanted}: {doc['warnings']}")
    s = doc["summary"]
    lat = s["latency_ns"]
    return dict(iops=s["iops"], mean=lat["mean"] / 1e3, p50=lat["p50"] / 1e3, p99=lat["p99"] / 1e3,
                cpu=s["cpu"]["us_per_io"], behind=doc.get("behind_schedule_ios", 0), ios=s["ios"] + s["flush"]["count"])

def fio_rows(path):
    """fio's total latency (lat: from its own queueing of the I/O) and completion latency (clat:
    from the hand-off to the kernel), with the same IOPS and CPU."""
    job = fio_doc(path)["jobs"][0]
    d = job["read"] if job["read"]["total_ios"] > 0 else job["write"]
    ios = d["total_ios"]
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1000 / max(ios, 1)
    def row(lat):
        pct = lat.get("percentile", {})
        return dict(iops=d["iops"], mean=lat["mean"] / 1e3, p50=pct.get("50.000000", 0) / 1e3,
                    p99=pct.get("99.000000", 0) / 1e3, cpu=cpu, behind=0, ios=ios + job.get("sync", {}).get("total_ios", 0))
    return row(d["lat_ns"]), row(d["clat_ns"])

def with_disk(row, path):
    """`row` with the disk's mean time per read (or per write, if it did no reads) over the run,
    us, and the I/Os the disk did besides the tool's, as a share of the tool's: other processes
    (or writeback) sharing the disk disturb a round, most of all under a rate, where spindle
    counts a stalled I/O's successors from their intended starts and fio does not."""
    try:
        before, after = [list(map(int, line.split())) for line in open(path).read().split("\n")[:2]]
    except (OSError, ValueError):
        return dict(row, disk=0, other=0)
    reads, read_ms, writes, write_ms = (a - b for a, b in zip(after, before))
    ios, ms = (reads, read_ms) if reads else (writes, write_ms)
    other = max(reads + writes - row["ios"], 0) / max(row["ios"], 1)
    return dict(row, disk=ms * 1000 / ios if ios else 0, other=100 * other)

def median_row(runs):
    return {k: st.median(r[k] for r in runs) for k in runs[0]}

cases = sorted({p.split("/")[-1].split(".")[0] for p in glob.glob(out + "/*.json")})
head = f"{'case':24} {'tool':12} {'IOPS':>10} {'mean us':>9} {'p50 us':>9} {'p99 us':>9} {'CPU us/IO':>10} {'disk us':>10} {'other %':>8}"
print(head)
for case in cases:
    spindle = median_row([with_disk(spindle_row(f"{out}/{case}.spindle.{r}.json"), f"{out}/{case}.spindle.{r}.disk")
                          for r in range(1, rounds + 1)])
    fio = [[with_disk(row, f"{out}/{case}.fio.{r}.disk") for row in fio_rows(f"{out}/{case}.fio.{r}.json")]
           for r in range(1, rounds + 1)]
    lat, clat = median_row([f[0] for f in fio]), median_row([f[1] for f in fio])
    for tool, r in (("spindle", spindle), ("fio lat", lat), ("fio clat", clat)):
        print(f"{case:24} {tool:12} {r['iops']:10.1f} {r['mean']:9.2f} {r['p50']:9.2f} {r['p99']:9.2f} {r['cpu']:10.3f}"
              f" {r['disk']:10.2f} {r['other']:8.1f}")
    ratio = lambda a, b: a / b if b else float("nan")
    for name, f in (("ratio/lat", lat), ("ratio/clat", clat)):
        print(f"{case:24} {name:12} {ratio(spindle['iops'], f['iops']):10.3f} {ratio(spindle['mean'], f['mean']):9.3f} "
              f"{ratio(spindle['p50'], f['p50']):9.3f} {ratio(spindle['p99'], f['p99']):9.3f} "
              f"{ratio(spindle['cpu'], f['cpu']):10.3f} {ratio(spindle['disk'], f['disk']):10.3f}")
    if spindle["behind"]:
        print(f"{case:24} spindle was behind schedule by {spindle['behind']:.0f} I/Os (median)")
print(f"(medians of {rounds} alternating rounds; ratio = spindle / fio; lat counts from fio's own queueing,")
print(" clat from the hand-off to the kernel; spindle counts from the hand-off, or the intended start under --rate;")
print(" disk us: the disk's own mean time per I/O during that tool's rounds, from /proc/diskstats;")
print(" other %: I/Os the disk did besides the tool's, a share of the tool's: above a few %, rounds were disturbed)")
PY
