#!/usr/bin/env bash
# Database Hammer from several agents on a PostgreSQL of its own (spindle db up, 2,000
# connections): SESSIONS sessions split among AGENTS agents started on this host, the results
# store a second database of the same instance. Prints, per round, the sessions the server had
# at the window's start (the agents' own counter connections, one each, set apart), the
# server's transactions over the window (pg_stat_database xact_commit + xact_rollback) against
# the agents' summed calls, the start spread and the calls a second. Not a test.
#
#   bench/agents-hammer.sh [SESSIONS] [AGENTS] [SECONDS] [ROUNDS]    (defaults: 1000 4 120 2)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-1000}
agents=${2:-4}
secs=${3:-120}
rounds=${4:-2}
source bench/managed-instance.sh --memory 1G
psql "$url" -qc "CREATE DATABASE results"
SPINDLE_STORE=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/results")))' "$url")
export SPINDLE_STORE
"$spindle" hammer load --db "$url" --rows 1M -q

echo "round  sessions_at_start  counter_conns  server_tx  agents_calls  server/agents  start_spread_us  calls/s"
for ((r = 1; r <= rounds; r++)); do
    "$spindle" hammer run --db "$url" --sessions "$sessions" --agents "$agents" --duration "${secs}s" --warmup 10s \
        --json -q > "$work/run.json"
    python3 - "$work/run.json" "$r" "$agents" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r = r[0] if isinstance(r, list) else r
a = r["agents"]
s = a["server"]
print(f"{sys.argv[2]:>5}  {s['sessions_at_start']:17d}  {int(sys.argv[3]):13d}  {s['server']:9d}  {s['agents']:12d}  "
      f"{s['server'] / s['agents']:13.4f}  {a['start_skew_us']:15.0f}  {r['summary']['iops']:7.0f}")
PY
    # The thousand backends take seconds to go: the next round connects once they have.
    for _ in $(seq 120); do
        busy=$(psql "$url" -Atc "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
        ((busy <= 1)) && break
        sleep 0.5
    done
done
