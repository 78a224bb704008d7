#!/usr/bin/env bash
# A thousand Hammer sessions from one spindle against pgbench's thousand clients, on one
# managed PostgreSQL instance (spindle db up, 2,000 connections), in alternating order (spindle
# first in odd rounds, pgbench first in even ones: A B, B A, ...): client peak RSS
# (/usr/bin/time's maximum resident set) and calls a second, with ratios.
# pgbench runs its read-only script (-S: one primary-key SELECT a transaction) with -j 2, as
# spindle runs 50% GetAccount / 50% UpdateAccount; the memory figure is the client's either
# way. Not a test.
#
#   bench/hammer-sessions.sh [SESSIONS] [SECONDS] [ROUNDS]     (defaults: 1000 20 3)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-1000}
secs=${2:-20}
rounds=${3:-3}
command -v pgbench >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql-client >/dev/null; }
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
source bench/managed-postgres.sh --memory 512M
"$spindle" hammer load --db "$url" --rows 1M -q
PGOPTIONS="--client-min-messages=warning" pgbench -q -i -s 10 "$url" >/dev/null 2>&1

# A thousand backends take seconds to exit after their client does: each run waits until the
# last one's are gone, so neither side connects while the server is still busy with the other.
settle() {
  for _ in $(seq 120); do
    busy=$(psql "$url" -Atc "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
    ((busy <= 1)) && return
    sleep 0.5
  done
}
run_spindle() {
  settle
  /usr/bin/time -f "%M" -o "$work/sp.mem" "$spindle" hammer run --db "$url" --sessions "$sessions" \
    --duration "${secs}s" --warmup 2s --json -q > "$work/sp.json"
}
run_pgbench() {
  settle
  /usr/bin/time -f "%M" -o "$work/pg.mem" pgbench -n -S -c "$sessions" -j 2 -T "$secs" "$url" > "$work/pg.out" 2>&1
}

echo "round  order  spindle_MB  pgbench_MB  ratio  spindle_calls/s  pgbench_tps  spindle_failed"
for ((r = 1; r <= rounds; r++)); do
  # Alternating (A B, then B A): whichever runs second finds the server's caches warmer and
  # its memory freed later, so neither side always has the first or the second turn.
  if ((r % 2)); then order="sp,pg"; run_spindle; run_pgbench; else order="pg,sp"; run_pgbench; run_spindle; fi
  read -r calls failed < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r=r[0] if isinstance(r, list) else r; print(r["summary"]["iops"], sum(r["errors"].values()))' "$work/sp.json")
  # No tps line: pgbench made no transaction in its window. Its -T counts its connections
  # (spindle's ramp-up is not measured), and a thousand of them can take the whole window on a
  # busy machine; its resident figure is still that of a thousand connected clients.
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$work/pg.out")
  [ -n "$tps" ] || { cat "$work/pg.out" >&2; tps=0; }
  python3 -c "
sp=int(open('$work/sp.mem').read().split()[-1])/1024; pg=int(open('$work/pg.mem').read().split()[-1])/1024
print(f'{$r:5d}  {\"$order\":5s}  {sp:10.1f}  {pg:10.1f}  {sp/pg:5.2f}  {$calls:15.0f}  {float(\"$tps\"):11.0f}  {$failed:14d}')"
done
