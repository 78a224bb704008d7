#!/usr/bin/env bash
# spindle against fio on the same file, alternating, in one run: IOPS, mean and p99 latency
# and CPU per I/O side by side, with spindle/fio ratios. Not a test: machines are noisy, so
# read the ratios, and run it more than once before believing a small difference.
#
#   bench/vs-fio.sh [DIR] [SECONDS] [ROUNDS]     (defaults: ./bench-work 10 3)
#   CASES="c d" bench/vs-fio.sh ...               (only these cases, by letter)
#
# Cases (issue 2): (a) null engine, 4K random read, depth 32, 1 thread;
# (b) io_uring, direct, 4K random read, depth 32, 1 thread; (c) sync, direct, 8K random read,
# depth 1; (d) 8K sequential writes with fdatasync after each, depth 1.
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

run_case() { # name, spindle args, fio args
    local name=$1 sargs=$2 fargs=$3
    [[ -z "${CASES:-}" || " $CASES " == *" ${name:0:1} "* ]] || return 0
    for r in $(seq 1 "$rounds"); do
        $spindle io --target "$file" --size "$size" --duration "${secs}s" --keep-file --json --quiet $sargs \
            >"$out/$name.spindle.$r.json"
        fio --name="$name" --filename="$file" --size="$size" --runtime="$secs" --time_based \
            --lat_percentiles=1 --percentile_list=50:99 --output-format=json $fargs \
            >"$out/$name.fio.$r.json"
    done
}

run_case a-null-4k-qd32 "--engine null --block 4K --depth 32" \
    "--ioengine=null --rw=randread --bs=4k --iodepth=32"
run_case b-uring-4k-qd32 "--engine uring --block 4K --depth 32" \
    "--ioengine=io_uring --direct=1 --rw=randread --bs=4k --iodepth=32 --registerfiles=1 --fixedbufs=1"
run_case c-sync-8k-qd1 "--engine sync --block 8K --depth 1" \
    "--ioengine=psync --direct=1 --rw=randread --bs=8k --iodepth=1"
run_case d-seqwrite-8k-fdatasync "--engine sync --block 8K --read 0 --random 0 --fsync-every 1" \
    "--ioengine=psync --direct=1 --rw=write --bs=8k --iodepth=1 --fdatasync=1"

python3 - "$out" "$rounds" <<'PY'
import json, sys, glob, statistics as st
out, rounds = sys.argv[1], int(sys.argv[2])

def fio_doc(path):
    text = open(path).read()
    return json.loads(text[text.index("{"):])

def spindle_row(path):
    s = json.load(open(path))["summary"]
    lat = s["latency_ns"]
    return dict(iops=s["iops"], mean=lat["mean"] / 1e3, p99=lat["p99"] / 1e3, cpu=s["cpu"]["us_per_io"])

def fio_row(path):
    job = fio_doc(path)["jobs"][0]
    d = job["read"] if job["read"]["total_ios"] > 0 else job["write"]
    ios = d["total_ios"]
    lat = d["lat_ns"]
    p99 = lat.get("percentile", {}).get("99.000000", 0)
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1000 / max(ios, 1)
    return dict(iops=d["iops"], mean=lat["mean"] / 1e3, p99=p99 / 1e3, cpu=cpu)

cases = sorted({p.split("/")[-1].split(".")[0] for p in glob.glob(out + "/*.json")})
print(f"{'case':28} {'tool':8} {'IOPS':>12} {'mean us':>10} {'p99 us':>10} {'CPU us/IO':>10}")
for case in cases:
    rows = {}
    for tool, reader in (("spindle", spindle_row), ("fio", fio_row)):
        runs = [reader(f"{out}/{case}.{tool}.{r}.json") for r in range(1, rounds + 1)]
        rows[tool] = {k: st.median(r[k] for r in runs) for k in runs[0]}
        r = rows[tool]
        print(f"{case:28} {tool:8} {r['iops']:12.0f} {r['mean']:10.2f} {r['p99']:10.2f} {r['cpu']:10.3f}")
    s, f = rows["spindle"], rows["fio"]
    ratio = lambda a, b: a / b if b else float("nan")
    print(f"{case:28} {'ratio':8} {ratio(s['iops'], f['iops']):12.2f} {ratio(s['mean'], f['mean']):10.2f} "
          f"{ratio(s['p99'], f['p99']):10.2f} {ratio(s['cpu'], f['cpu']):10.2f}")
print(f"(medians of {rounds} alternating rounds; ratio = spindle / fio)")
PY
