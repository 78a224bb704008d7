#!/usr/bin/env bash
# `spindle import` of a ~200 MB fio JSON: peak RSS, wall time and the store's size, each
# build's import measured the same moment (A B B A). Two files, both made of real fio output
# (crates/formats/testdata): "plain", the jobs of the four real fio JSON files (fio 3.1, 3.33)
# in turn, ~7 KB each; "json+", the two jobs of the real fio-3.33 json+ file with their latency
# bins, ~10 KB each. Each job renamed job-N, as many as make the file ~MB megabytes: every job
# is a run, so the store's size is a figure per run.
# FAILS (exit 1) when NEW's peak RSS reaches 100 MB on either file: the import is to read a
# file of any size in bounded memory.
#
#   bench/fio-import-memory.sh NEW_BINARY [OLD_BINARY] [MB]     (MB default 200)
#   e.g. git worktree add /tmp/old fb791f4 && (cd /tmp/old && CARGO_TARGET_DIR=/tmp/oldt cargo build --release --bin spindle)
#        cargo build --release --bin spindle
#        bench/fio-import-memory.sh target/release/spindle /tmp/oldt/release/spindle
set -euo pipefail
cd "$(dirname "$0")/.."
new=$(realpath "$1")
old=${2:+$(realpath "$2")}
mb=${3:-200}
limit_kb=$((100 * 1000))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$mb" <<'PY'
import json, sys
work, mb = sys.argv[1], int(sys.argv[2])
data = "crates/formats/testdata/"
def jobs_of(name):
    # fio's own messages may come before its JSON (`fio: terminating on signal 2`).
    text = open(data + name).read()
    doc = json.JSONDecoder().raw_decode(text[text.index("\n{") + 1 if not text.startswith("{") else 0:])[0]
    return doc, doc["jobs"]
plain_files = ["fio-plot_HPDL380G8-MX200_randread-1-1.json", "fio-plot_HPDL380G8-MX200_randwrite-8-64.json",
               "bensonjohnson_fio.json"]
# The fio-3.33 document (global options and all) holds every job: each job's own options say
# what it ran; the fio 2.18 file is left out, its latencies being in another unit.
head, _ = jobs_of("bensonjohnson_fio.json")
plain = [j for f in plain_files for j in jobs_of(f)[1]]
plus_head, plus = jobs_of("fio-3.33-plus.json")
for name, doc, jobs in [("plain", head, plain), ("jsonplus", plus_head, plus)]:
    with open(f"{work}/{name}.json", "w") as out:
        top = {k: v for k, v in doc.items() if k != "jobs"}
        text = json.dumps(top, indent=2, separators=(",", " : "))
        out.write(text[: text.rindex("}")].rstrip() + ',\n  "jobs" : [\n')
        written, i = 0, 0
        while written < mb * 1_000_000:
            job = dict(jobs[i % len(jobs)])
            job["jobname"] = f"job-{i}"
            part = ("" if i == 0 else ",\n") + json.dumps(job, indent=2, separators=(",", " : "))
            out.write(part)
            written += len(part)
            i += 1
        out.write("\n  ]\n}\n")
    print(f"{name}.json: {i} jobs, {written / 1e6:.0f} MB", file=sys.stderr)
PY

# One import into a fresh store: "peak_rss_kb wall_s store_bytes".
one() {
    local bin=$1 file=$2 store=$work/store.db
    rm -f "$store" "$store"-*
    if ! /usr/bin/time -v -o "$work/time" "$bin" import "$file" --store "$store" > "$work/out" 2> "$work/err"; then
        echo "import failed: $bin $file" >&2
        cat "$work/err" "$work/time" >&2
        echo "0 0 0"
        return
    fi
    local rss wall size
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    size=$(du -cb "$store" "$store"-* 2> /dev/null | awk 'END {print $1}')
    echo "$rss $wall $size"
}

failed=0
printf '%-9s %-4s %12s %8s %12s %12s\n' file side peak_rss_MB wall_s store_MB store_KB/run
for name in plain jsonplus; do
    file=$work/$name.json
    runs=$(grep -c '"jobname" : "job-' "$file")
    if [ -n "$old" ]; then order="old new new old"; else order="new"; fi
    : > "$work/rows"
    for side in $order; do
        [ "$side" = old ] && bin=$old || bin=$new
        read -r rss wall size <<< "$(one "$bin" "$file")"
        echo "$side $rss $wall $size" >> "$work/rows"
        printf '%-9s %-4s %12.1f %8.2f %12.1f %12.2f\n' "$name" "$side" "$(echo "$rss / 1000" | bc -l)" "$wall" \
            "$(echo "$size / 1000000" | bc -l)" "$(echo "$size / 1000 / $runs" | bc -l)"
        if [ "$side" = new ] && { [ "$rss" -ge "$limit_kb" ] || [ "$rss" -eq 0 ]; }; then
            echo "FAIL: $name: the new build's peak RSS is $((rss / 1000)) MB, not under 100 MB" >&2
            failed=1
        fi
    done
    if [ -n "$old" ]; then
        python3 - "$work/rows" "$name" "$runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {side: [statistics.median(float(r[i]) for r in rows if r[0] == side) for i in (1, 2, 3)] for side in ("old", "new")}
o, n = med["old"], med["new"]
print(f"{sys.argv[2]} ({sys.argv[3]} runs), new/old (medians): peak RSS {n[0] / o[0]:.3f}x, wall {n[1] / o[1]:.3f}x, store {n[2] / o[2]:.3f}x")
PY
    fi
done
exit $failed
