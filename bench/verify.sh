#!/usr/bin/env bash
# What `--verify` costs: spindle with and without it on the same file, alternating, in one run,
# with fio (plain: fio's verify runs as a separate phase, not the same work) beside them. Also
# counts the verified I/Os and faults of every --verify round: clean storage must show none.
#
#   bench/verify.sh [DIR] [SECONDS] [ROUNDS] [AB_ROUNDS] [AB_DEPTHS]
#   (defaults: ./bench-work 10 3 16 "32 4")
#
# Cases: (m) a file in memory (/dev/shm, tmpfs: no device time, so the cost is all CPU),
# io_uring, buffered, 4K random, half reads, depth 32; (d) a file on DIR's disk, io_uring,
# direct, 4K random, half reads, depth 32. The null engine moves no data, so nothing read
# back could be checked: --verify refuses it, and (m) is the floor instead. Then (p): the disk
# case again as `spindle ab` (plain A, verified B, AB_ROUNDS balanced rounds, paired t-test) at
# each of AB_DEPTHS, so the disk's drift cancels and its verdict says whether the cost is
# measurable at all: at depth 32 one thread's CPU may be the limit, at depth 4 the device is.
# Then (t): depth 32 again with the device made the limit, as real storage usually is: the
# kernel's block throttle (cgroup v1 blkio or v2 io.max, as root) caps the runs' reads and
# writes on DIR's disk at THROTTLE_IOPS each (default 25000), so one thread's CPU has room.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-./bench-work}
secs=${2:-10}
rounds=${3:-3}
ab_rounds=${4:-16}
ab_depths=${5:-32 4}

command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio >/dev/null; }
cargo build --release --quiet
spindle=./target/release/spindle
mkdir -p "$dir"
shm=$(mktemp -d /dev/shm/spindle-verify.XXXXXX)
out=$(mktemp -d)
cgroup=""
trap 'rm -rf "$shm" "$out"; [ -z "$cgroup" ] || rmdir "$cgroup" 2>/dev/null || true' EXIT
export SPINDLE_STORE=$dir/bench-results.db

run_case() { # name, file, size, spindle args, fio args
    local name=$1 file=$2 size=$3 sargs=$4 fargs=$5
    $spindle io --target "$file" --size "$size" --duration 1s --keep-file --quiet $sargs
    # A B B A over the three sides: plain, verify, fio in odd rounds, the reverse in even ones.
    for r in $(seq 1 "$rounds"); do
        local order="plain verify fio"
        ((r % 2)) || order="fio verify plain"
        for mode in $order; do
            if [ "$mode" = fio ]; then
                fio --name="$name" --filename="$file" --size="$size" --runtime="$secs" --time_based \
                    --output-format=json $fargs >"$out/$name.fio.$r.json"
                continue
            fi
            local extra=""
            [ "$mode" = verify ] && extra=--verify
            $spindle io --target "$file" --size "$size" --duration "${secs}s" --keep-file --json --quiet $sargs $extra \
                >"$out/$name.$mode.$r.json" || [ $? -eq 1 ]
        done
    done
}

common="--block 4K --read 50 --random 100 --depth 32 --engine uring"
fio_common="--ioengine=io_uring --rw=randrw --rwmixread=50 --bs=4k --iodepth=32 --randrepeat=0"
run_case m-tmpfs-4k-qd32 "$shm/v.dat" 1G "$common --buffered" "$fio_common --registerfiles=1 --fixedbufs=1"
run_case d-disk-4k-qd32 "$dir/spindle-verify.dat" 1G "$common" "$fio_common --direct=1 --registerfiles=1 --fixedbufs=1"

# (p) written as workload files, the same settings as (d) but for the verify switch and depth.
for depth in $ab_depths; do
    for side in plain verify; do
        {
            echo 'engine = "uring"'
            [ "$side" = verify ] && echo 'verify = true'
            echo '[[target]]'
            echo "path = \"$(realpath "$dir")/spindle-verify.dat\""
            echo 'size = "1G"'
            echo 'block = "4K"'
            echo 'read = 50'
            echo 'random = 100'
            echo "depth = $depth"
        } >"$out/$side.toml"
    done
    $spindle ab "$out/plain.toml" "$out/verify.toml" --rounds "$ab_rounds" --duration "${secs}s" --keep-file \
        >"$out/ab.qd$depth.txt" || [ $? -eq 1 ]
done

# (t) the block throttle limits a whole disk: the one under DIR, or the disk of its partition.
throttle=${THROTTLE_IOPS:-25000}
disk=$(findmnt -no MAJ:MIN -T "$dir" | tr -d ' ')
parent=$(lsblk -no PKNAME "/dev/block/$disk" 2>/dev/null | head -1 || true)
[ -z "$parent" ] || disk=$(cat "/sys/class/block/$parent/dev")
throttled_group() { # prints the cgroup made, or fails
    local group
    if [ -d /sys/fs/cgroup/blkio ]; then
        group=/sys/fs/cgroup/blkio/spindle-verify-bench.$$
        mkdir "$group" && echo "$group" &&
            echo "$disk $throttle" >"$group/blkio.throttle.read_iops_device" &&
            echo "$disk $throttle" >"$group/blkio.throttle.write_iops_device"
    elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        echo +io >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
        group=/sys/fs/cgroup/spindle-verify-bench.$$
        mkdir "$group" && echo "$group" && echo "$disk riops=$throttle wiops=$throttle" >"$group/io.max"
    else
        return 1
    fi
}
if [ "$(id -u)" -eq 0 ] && [ -n "$disk" ]; then
    cgroup=$(throttled_group) || { echo "bench/verify.sh: could not throttle $disk; (t) skipped" >&2; rmdir "$cgroup" 2>/dev/null || true; cgroup=""; }
fi
if [ -n "$cgroup" ]; then
    sed -i "s/^depth = .*/depth = 32/" "$out/plain.toml" "$out/verify.toml"
    sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cgroup" \
        $spindle ab "$out/plain.toml" "$out/verify.toml" --rounds "$ab_rounds" --duration "${secs}s" --keep-file \
        >"$out/ab.throttled.txt" || [ $? -eq 1 ]
fi
rm -f "$dir/spindle-verify.dat"

python3 - "$out" "$rounds" <<'PY'
import json, sys, glob, statistics as st
out, rounds = sys.argv[1], int(sys.argv[2])
cases = sorted({p.split("/")[-1].split(".")[0] for p in glob.glob(out + "/*.json")})
print(f"{'case':18} {'tool':16} {'IOPS':>10} {'CPU us/IO':>10} {'verified I/Os':>14} {'sectors':>13} {'faults':>7}")
total_ios = total_faults = 0
for case in cases:
    rows = {}
    for mode in ("plain", "verify"):
        docs = [json.load(open(f"{out}/{case}.{mode}.{r}.json")) for r in range(1, rounds + 1)]
        ios = sum(d["summary"]["ios"] for d in docs) if mode == "verify" else 0
        sectors = sum(d["details"]["verify"]["sectors_checked"] for d in docs) if mode == "verify" else 0
        faults = sum(sum(d["details"]["verify"]["faults"].values()) for d in docs) if mode == "verify" else 0
        total_ios += ios; total_faults += faults
        rows[mode] = (st.median(d["summary"]["iops"] for d in docs), st.median(d["summary"]["cpu"]["us_per_io"] for d in docs))
        print(f"{case:18} {'spindle ' + mode:16} {rows[mode][0]:10.0f} {rows[mode][1]:10.3f} "
              f"{ios if mode == 'verify' else '':>14} {sectors if mode == 'verify' else '':>13} {faults if mode == 'verify' else '':>7}")
    fio = []
    for r in range(1, rounds + 1):
        text = open(f"{out}/{case}.fio.{r}.json").read()
        job = json.loads(text[text.index("{"):])["jobs"][0]
        ios = job["read"]["total_ios"] + job["write"]["total_ios"]
        fio.append((job["read"]["iops"] + job["write"]["iops"],
                    (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1000 / max(ios, 1)))
    f = (st.median(x[0] for x in fio), st.median(x[1] for x in fio))
    print(f"{case:18} {'fio':16} {f[0]:10.0f} {f[1]:10.3f}")
    print(f"{case:18} {'verify/plain':16} {rows['verify'][0] / rows['plain'][0]:10.3f} {rows['verify'][1] / rows['plain'][1]:10.3f}")
    print(f"{case:18} {'verify/fio':16} {rows['verify'][0] / f[0]:10.3f} {rows['verify'][1] / f[1]:10.3f}")
print(f"(medians of {rounds} alternating rounds; over all --verify rounds: {total_ios:,} verified I/Os, {total_faults} faulty sectors)")
PY
show_ab() { # title, spindle ab output: its table and verdict
    echo
    echo "$1"
    sed -n '/^metric/,/^$/p' "$2"
    grep -E '^(A outperforms|B outperforms|Inconclusive|A and B are equivalent)' "$2" || true
}
for depth in $ab_depths; do
    show_ab "(p) disk, 4K random, half reads, depth $depth, as spindle ab, A plain, B --verify, $ab_rounds rounds:" \
        "$out/ab.qd$depth.txt"
done
if [ -n "$cgroup" ]; then
    show_ab "(t) disk, 4K random, half reads, depth 32, reads and writes each throttled to $throttle IOPS on $disk, as spindle ab, $ab_rounds rounds:" \
        "$out/ab.throttled.txt"
else
    echo
    echo "(t) skipped: the block throttle needs root and cgroup v1 blkio or v2 io"
fi
