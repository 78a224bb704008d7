#!/usr/bin/env bash
# How fast reports and imports are: a store of 200 runs (spindle io --repeat 200 on the null
# engine, each with its per-second series and counters) written as HTML and XLSX, and an
# IOMeter results CSV of 64 tests (the real 1.1.0 file in testdata, its test repeated)
# imported. Prints times and the HTML's size. Not a test.
#
#   bench/report-import.sh [RUNS]     (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SPINDLE_STORE=$work/store.db
(cd "$work" && "$spindle" io --engine null --target a.dat --size 1M --duration 2s --warmup 0s \
    --repeat "$runs" --quiet)
python3 - "$spindle" "$work" "$runs" <<'PY'
import os, subprocess, sys, time
spindle, work, runs = sys.argv[1:]
def timed(args):
    best = None
    for _ in range(3):
        for f in ("r.html", "r.xlsx"):
            if os.path.exists(os.path.join(work, f)):
                os.remove(os.path.join(work, f))
        t = time.perf_counter()
        subprocess.run([spindle] + args, cwd=work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        took = time.perf_counter() - t
        best = took if best is None else min(best, took)
    return best
html = timed(["report", "-o", "r.html"])
size = os.path.getsize(os.path.join(work, "r.html"))
xlsx = timed(["report", "-o", "r.xlsx"])
print(f"report of {runs} runs: HTML {html:.2f} s ({size / 1e6:.2f} MB), XLSX {xlsx:.2f} s (best of 3)")
src = open("crates/formats/testdata/quarch_insttestfile.csv").read()
test = "".join(l + "\n" for l in src.splitlines() if ",WORKER," not in l)
csv = os.path.join(work, "iometer-64.csv")
times = []
for i in range(3):
    with open(csv, "w") as f:
        f.write(test * 64 + f"'Test Type,Test Description\n{i},pass {i}\n")  # new bytes each pass
    t = time.perf_counter()
    subprocess.run([spindle, "import", csv, "--label", f"pass={i}"], check=True, stdout=subprocess.DEVNULL)
    times.append(time.perf_counter() - t)
print(f"import of an IOMeter CSV of 64 runs: best {min(times):.3f} s, median {sorted(times)[1]:.3f} s")
PY
