#!/usr/bin/env bash
# How honest the verdicts are on this host's real disk (not a test: it takes minutes and
# depends on the disk). Three experiments, each printed with its verdict counts:
#   1. A/A: `spindle ab` on two identical workload files, TRIALS times: any better/worse
#      verdict is a false alarm (the target: at most one trial of four with one).
#   2. Power, at ab's default rounds: 1 thread against 4, and 1 against 2 (sync, one I/O at a
#      time each), TRIALS times each: real differences whose size the disk decides (it varies
#      round to round, unlike two rate caps that both hold exactly). IOPS must come out
#      `better` for B in every trial; each trial prints the change it measured.
#   3. Sequential groups: two `--repeat 3` groups of one configuration run back to back,
#      compared with `spindle compare`, TRIALS times (each trial's groups join the store's
#      history, so later trials know this host's drift): any better/worse is a false alarm.
# Usage: bench/verdicts.sh [DIR] [TRIALS] [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/tmp/spindle-verdicts}
TRIALS=${2:-4}
DURATION=${3:-5s}
mkdir -p "$DIR"
export SPINDLE_STORE="$DIR/store.db"
rm -f "$SPINDLE_STORE" "$SPINDLE_STORE"-wal "$SPINDLE_STORE"-shm
cargo build --release --quiet
S=target/release/spindle

# 8K random direct reads, one at a time: the configuration the drift was measured on.
workload() { # FILE [THREADS]
    {
        echo 'engine = "sync"'
        echo "duration = \"$DURATION\""
        echo 'keep_file = true'
        echo '[[target]]'
        echo "path = \"$DIR/t.dat\""
        echo 'size = "1G"'
        echo 'block = "8K"'
        if [ -n "${2:-}" ]; then echo "threads = $2"; fi
    } > "$1"
}
workload "$DIR/a.toml"
workload "$DIR/a-again.toml"
workload "$DIR/t1.toml" 1
workload "$DIR/t2.toml" 2
workload "$DIR/t4.toml" 4

# Prints "metric=verdict ..." from a comparison's JSON on stdin.
verdicts() {
    python3 -c 'import json,sys; c=json.load(sys.stdin); print(" ".join(m["metric"]+"="+m["verdict"]+("(drift)" if m["within_drift"] else "(drift unknown)" if m["drift_unknown"] else "") for m in c["metrics"]))'
}
alarms() { grep -cE '=(better|worse)' || true; }

echo "1. A/A: ab on identical files, 3 rounds, $TRIALS trials"
aa=""
for i in $(seq "$TRIALS"); do
    line=$($S ab "$DIR/a.toml" "$DIR/a-again.toml" --rounds 3 --json --quiet | verdicts)
    echo "   trial $i: $line"
    aa+="$line"$'\n'
done
echo "   trials with a better/worse verdict: $(printf '%s' "$aa" | alarms) of $TRIALS"

# "change verdict" of IOPS from a comparison's JSON on stdin.
iops_change() {
    python3 -c 'import json,sys; m=[m for m in json.load(sys.stdin)["metrics"] if m["metric"]=="iops"][0]; print("%+.1f%% %s" % (m["change_pct"], m["verdict"]))'
}
for threads in 4 2; do
    echo "2. power: ab 1 thread vs $threads threads, default rounds, $TRIALS trials"
    found=0
    for i in $(seq "$TRIALS"); do
        line=$($S ab "$DIR/t1.toml" "$DIR/t$threads.toml" --json --quiet | iops_change)
        echo "   trial $i: IOPS $line"
        case "$line" in *better) found=$((found + 1)) ;; esac
    done
    echo "   trials with IOPS better for B: $found of $TRIALS"
done

echo "3. sequential --repeat 3 groups of one configuration, $TRIALS trials"
seq_lines=""
for i in $(seq "$TRIALS"); do
    $S io --spec "$DIR/a.toml" --repeat 3 --label "trial=$i" --label side=a --quiet
    $S io --spec "$DIR/a.toml" --repeat 3 --label "trial=$i" --label side=b --quiet
    line=$($S compare --a "trial=$i" --a side=a --b "trial=$i" --b side=b --json | verdicts)
    echo "   trial $i: $line"
    seq_lines+="$line"$'\n'
done
echo "   trials with a better/worse verdict: $(printf '%s' "$seq_lines" | alarms) of $TRIALS"
rm -f "$DIR/t.dat"
