#!/usr/bin/env bash
# What a run of many agents (`spindle io --agents N`) costs and how well it holds together, on
# one host, against a scratch database on this machine's PostgreSQL (127.0.0.1:5432, trust
# auth; dropped at the end). Not a test; prints three tables:
#   1. start spread: the agents' actual starts (latest minus earliest, server clock), median
#      of ROUNDS runs at each agent count (null engine, 1 s), paced and flat out;
#   2. loss: one of 4 agents SIGKILLed mid-run: time from the kill until the run is marked
#      partial, and until every other agent has stopped (polled every 5 ms);
#   3. overhead: null-engine IOPS of 4 agents merged against 4 standalone `spindle io`
#      processes started together (the same job each), alternating A B B A, median ratio.
#
#   bench/agents.sh [ROUNDS] [AGENT_COUNTS]      (default 10 "8 32"; SPINDLE=binary)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
counts=${2:-8 32}
bin=${SPINDLE:-target/release/spindle}
db=spindle_bench_agents_$$
psql() { command psql -h 127.0.0.1 -U root -XAtq "$@"; }
psql -d postgres -c "CREATE DATABASE $db"
work=$(mktemp -d)
trap 'psql -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"; rm -rf "$work"' EXIT
export SPINDLE_STORE=postgres://root@127.0.0.1/$db
q() { psql -d "$db" -c "$1"; }
now_ms() { date +%s%3N; }

# Paced, the agents sleep between I/Os after the start, as agents idle at the barrier do (the
# spread is the start's own); flat out, N busy agents share this host's cores from their first
# instant, and one that wakes late waits for a core.
for mode in paced flat-out; do
    extra=()
    [ "$mode" = paced ] && extra=(--rate 1000)
    echo "start spread, $mode (median of $rounds runs, null engine, 1 s)"
    printf '%-8s %12s %12s %12s\n' agents median_us min_us max_us
    for n in $counts; do
        : > "$work/skew.$n"
        for _ in $(seq 1 "$rounds"); do
            "$bin" io --engine null --duration 1s --size 1M --target "$work/s.dat" --agents "$n" "${extra[@]}" --quiet >/dev/null 2>"$work/err" ||
                { cat "$work/err"; exit 1; }
            q "SELECT json::json->'agents'->>'start_skew_us' FROM records WHERE run_id = (SELECT max(id) FROM runs WHERE point = 'all agents')" >> "$work/skew.$n"
        done
        python3 - "$n" "$work/skew.$n" <<'PY'
import statistics, sys
v = [float(l) for l in open(sys.argv[2]) if l.strip()]
print(f"{sys.argv[1]:<8} {statistics.median(v):12.0f} {min(v):12.0f} {max(v):12.0f}")
PY
    done
done

echo
echo "loss of one of 4 agents (SIGKILL mid-run)"
printf '%-6s %16s %20s\n' trial to_partial_ms others_stopped_ms
for t in 1 2 3; do
    "$bin" io --engine null --duration 60s --size 1M --target "$work/k.dat" --agents 4 --quiet >/dev/null 2>&1 &
    coord=$!
    run=""
    until [ -n "$run" ] && [ "$(q "SELECT count(*) FROM agents WHERE run_id = $run AND state = 'running'")" = 4 ]; do
        sleep 0.05
        run=$(q "SELECT max(id) FROM agent_runs WHERE state = 'started'")
    done
    pid=$(q "SELECT pid FROM agents WHERE run_id = $run AND idx = 2")
    kill -9 "$pid"
    killed=$(now_ms)
    partial=""
    stopped=""
    while [ -z "$stopped" ]; do
        [ -z "$partial" ] && [ "$(q "SELECT state FROM agent_runs WHERE id = $run")" = partial ] && partial=$(now_ms)
        [ "$(q "SELECT count(*) FROM agents WHERE run_id = $run AND idx <> 2 AND state IN ('done', 'failed')")" = 3 ] && stopped=$(now_ms)
        sleep 0.005
    done
    [ -z "$partial" ] && partial=$stopped
    wait "$coord" || true
    printf '%-6s %16d %20d\n' "$t" $((partial - killed)) $((stopped - killed))
done

echo
echo "overhead: 4 agents against 4 standalone processes at once (null engine, 5 s each)"
standalone() {
    for i in 0 1 2 3; do
        SPINDLE_STORE=$work/alone.db "$bin" io --engine null --duration 5s --size 1M --target "$work/a$i.dat" --quiet --json >"$work/alone.$i" 2>/dev/null &
    done
    wait
    python3 -c '
import json, sys
print(sum(json.load(open(f"'"$work"'/alone.{i}"))["summary"]["iops"] for i in range(4)))'
}
agents() {
    "$bin" io --engine null --duration 5s --size 1M --target "$work/g.dat" --agents 4 --quiet --json 2>/dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["iops"])'
}
printf '%-6s %16s %16s %8s\n' round standalone agents ratio
for i in 1 2 3 4; do
    if [ $((i % 4)) -eq 1 ] || [ $((i % 4)) -eq 0 ]; then a=$(standalone); b=$(agents); else b=$(agents); a=$(standalone); fi
    echo "$a $b" >> "$work/over"
    python3 -c "print(f'{$i:<6} {$a:16.0f} {$b:16.0f} {$b/$a:8.3f}')"
done
python3 - "$work/over" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
print(f"median ratio agents/standalone {statistics.median(b / a for a, b in rows):.3f}x")
PY
