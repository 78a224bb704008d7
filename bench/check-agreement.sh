#!/usr/bin/env bash
# Do `spindle check`'s step figures agree with the standalone commands? In one run, alternating
# (A B B A ...): a check (--quick or the default battery) in DIR, and the same two measurements
# made on their own in DIR: `io --profile postgres.wal-write` (the commits step) and
# `io --sweep depth=...` of 8 KiB random direct reads from one thread (the page-reads step), with
# the check's own step time and warm-up. Prints per round the check's commit latency and knee
# against the standalone ones, the ratio of the commit latencies, and the standalone commit run
# once more (the disk's own spread between two runs of one command); at the end the mean and
# median ratio, the spread, and whether every knee matched. The goals (issue 32): commit latency within 10%, the knee at
# the same depth. Not a test.
#
#   bench/check-agreement.sh [DIR] [ROUNDS] [BATTERY]     (defaults: ./bench-work 4 quick)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-./bench-work}
rounds=${2:-4}
battery=${3:-quick}
cargo build --release --quiet
spindle=$PWD/target/release/spindle
mkdir -p "$dir"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SPINDLE_STORE=$out/results.db
case $battery in
  quick) step=2s warm=500ms depths=1,2,4,8,16,32 size=256M flag=--quick ;;
  default) step=15s warm=2s depths=1,2,4,8,16,32,64 size=1G flag= ;;
  *) echo "BATTERY is quick or default" >&2; exit 2 ;;
esac

check() { # round
  "$spindle" check $flag --json -q -o "$out/check-$1.html" "$dir" > "$out/check-$1.json"
  python3 - "$out/check-$1.json" > "$out/check-$1.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["dirs"][0]
curve = d["page_reads"]
knee = curve["points"][curve["knee"]]["value"] if curve["knee"] is not None else "none"
print(d["commits"]["mean_ns"], knee)
PY
}

alone() { # round
  "$spindle" io --profile postgres.wal-write -t "$dir/agree.dat" --size "$size" --duration "$step" \
    --warmup "$warm" --json -q > "$out/commit-$1.json"
  # The same command again: how far two runs of it differ is the disk's own spread, against
  # which the check's difference is judged.
  "$spindle" io --profile postgres.wal-write -t "$dir/agree.dat" --size "$size" --duration "$step" \
    --warmup "$warm" --json -q > "$out/again-$1.json"
  "$spindle" io -t "$dir/agree.dat" --size "$size" --block 8K --read 100 --random 100 --threads 1 \
    --duration "$step" --warmup "$warm" --sweep "depth=$depths" --json -q > "$out/sweep-$1.json"
  python3 - "$out/commit-$1.json" "$out/sweep-$1.json" "$out/again-$1.json" > "$out/alone-$1.txt" <<'PY'
import json, sys
def commit(path):
    r = json.load(open(path))
    r = r[0] if isinstance(r, list) else r
    return r["summary"]["commit"]["latency_ns"]["mean"]
s = json.load(open(sys.argv[2]))
print(commit(sys.argv[1]), s["knee"] if s["knee"] is not None else "none", commit(sys.argv[3]))
PY
}

echo "round  order  check_commit_us  alone_commit_us  ratio  check_knee  alone_knee  again_ratio"
for ((r = 1; r <= rounds; r++)); do
  # A B B A: the check first in odd rounds, second in even ones.
  if ((r % 2 == 1)); then order="check,alone"; check "$r"; alone "$r"; else order="alone,check"; alone "$r"; check "$r"; fi
  python3 - "$r" "$order" "$out/check-$r.txt" "$out/alone-$r.txt" <<'PY'
import sys
r, order = sys.argv[1], sys.argv[2]
c_commit, c_knee = open(sys.argv[3]).read().split()
a_commit, a_knee, again = open(sys.argv[4]).read().split()
c, a = float(c_commit) / 1e3, float(a_commit) / 1e3
print(f"{r:>5}  {order:<11}  {c:15.1f}  {a:15.1f}  {c / a:5.3f}  {c_knee:>10}  {a_knee:>10}  {float(again) / 1e3 / a:11.3f}")
PY
done | tee "$out/table.txt"
python3 - "$out/table.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l.split()[0].isdigit()]
import statistics
ratios = [float(r[4]) for r in rows]
again = [float(r[7]) for r in rows]
knees = sum(r[5] == r[6] for r in rows)
print(f"mean commit latency ratio (check / alone): {sum(ratios) / len(ratios):.3f} over {len(rows)} rounds "
      f"(min {min(ratios):.3f}, max {max(ratios):.3f}, median {statistics.median(ratios):.3f}); "
      f"knees equal in {knees} of {len(rows)} rounds")
print(f"the same standalone command run twice (again / alone): median {statistics.median(again):.3f} "
      f"(min {min(again):.3f}, max {max(again):.3f}): the disk's own spread, against which the check's "
      f"difference is judged")
PY
