#!/usr/bin/env bash
# spindle hammer against PostgreSQL's own tools on this machine's server, doing the same work,
# alternating spindle and the peer in each round, with ratios. Not a test.
#
# (1) Load: 10M Hammer rows (spindle: binary COPY from two connections, then the primary key)
#     against the same table built inside the server (INSERT ... SELECT generate_series, then
#     the same primary key, with the same maintenance_work_mem), each timed from its client
#     process's start to its end. `pgbench -i -s 100 -I dtgp` (10M rows of another shape, one
#     text COPY) is timed beside as a reference.
# (2) Read-only: 8 sessions calling getaccount on random loaded keys for SECONDS each, spindle
#     (--read-ratio 100) against pgbench running the very query spindle prepares
#     (`SELECT * FROM getaccount($1)`, -M prepared, -c 8, -j = spindle's worker threads, one
#     per CPU), on spindle's loaded table; calls/s, mean latency and client CPU per call (the
#     whole client process's user+sys over the calls it made, from /usr/bin/time).
#
#   bench/vs-pgbench.sh [SECONDS] [ROUNDS]     (defaults: 20 3; PGHOST etc. as for psql)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
rounds=${2:-3}
rows=10000000
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-root} PGOPTIONS="--client-min-messages=warning"
command -v pgbench >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql-client >/dev/null; }
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
export SPINDLE_STORE=$work/results.db
dbs="spindle_bench_sp spindle_bench_ref spindle_bench_pgb"
drop_all() { for db in $dbs; do psql -qd postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"; done; }
trap 'drop_all || true; rm -rf "$work"' EXIT
drop_all
for db in $dbs; do psql -qd postgres -c "CREATE DATABASE $db"; done
sp_url="postgres://$PGUSER@$PGHOST/spindle_bench_sp"

# Wall seconds, user and system CPU seconds of a command, from /usr/bin/time.
timed() { /usr/bin/time -f "%e %U %S" -o "$work/time" "$@"; }
# Each load starts from a checkpoint, so none pays for another's dirty pages.
checkpoint() { psql -qd postgres -c CHECKPOINT; }

# spindle's table (crates/db/src/postgres/mod.rs), rows as spindle's load writes them
# (crates/db/src/postgres/load.rs, keys from crates/db/src/keys.rs), key as it builds it.
cat >"$work/build.sql" <<SQL
DROP TABLE IF EXISTS testtransaction;
CREATE TABLE testtransaction (
    cardno char(15) COLLATE "C" NOT NULL,
    chargedate timestamp NOT NULL,
    amount bigint NOT NULL
);
INSERT INTO testtransaction
    SELECT lpad(i::text, 15, '0'), '2026-01-01', (i::bigint * 7919) % 1000000
    FROM generate_series(0, $rows - 1) AS i;
SET maintenance_work_mem = '512MB';
ALTER TABLE testtransaction ADD PRIMARY KEY (cardno);
SQL

echo "== load $rows rows, $rounds rounds"
load_spindle() { checkpoint; timed "$spindle" hammer load --db "$sp_url" --rows "$rows" --fresh --quiet; read -r sw _ _ <"$work/time"; }
load_in_server() { checkpoint; timed psql -q -v ON_ERROR_STOP=1 -d spindle_bench_ref -f "$work/build.sql"; read -r iw _ _ <"$work/time"; }
load_pgbench() { checkpoint; timed pgbench -q -i -s 100 -I dtgp spindle_bench_pgb >/dev/null 2>&1; read -r pw _ _ <"$work/time"; }
for r in $(seq 1 "$rounds"); do
    # A B B A: spindle first in odd rounds, last in even ones.
    if ((r % 2)); then load_spindle; load_in_server; load_pgbench; else load_pgbench; load_in_server; load_spindle; fi
    python3 -c "import sys; s, i, p = map(float, sys.argv[1:]); print(f'round $r: spindle {s:6.2f} s  in-server {i:6.2f} s  spindle/in-server {s / i:.2f}  (pgbench -i -I dtgp {p:6.2f} s)')" "$sw" "$iw" "$pw"
    echo "$sw $iw" >>"$work/load.ratios"
done
median() { python3 -c "import statistics, sys; r = [float(a) / float(b) for a, b in (l.split() for l in open(sys.argv[1]))]; print(f'{statistics.median(r):.2f} (range {min(r):.2f}-{max(r):.2f})')" "$1"; }
echo "load time, spindle/in-server: median $(median "$work/load.ratios")"

# pgbench has no string formatting, so the server pads the random row number into a CardNo;
# the statement is otherwise the one spindle prepares.
cat >"$work/getaccount.sql" <<SQL
\set row random(0, $rows - 1)
SELECT * FROM getaccount(lpad(:row::text, 15, '0'));
SQL
threads=$(nproc)
echo "== read-only, 8 sessions, ${secs}s, pgbench -j $threads (spindle's worker threads), $rounds rounds"
# Both read the same table: one untimed run first, so the first round finds it as warm as the last.
"$spindle" hammer run --db "$sp_url" --sessions 8 --read-ratio 100 --duration 5s --warmup 0s --quiet
read_spindle() {
    timed "$spindle" hammer run --db "$sp_url" --sessions 8 --read-ratio 100 --duration "${secs}s" --warmup 0s \
        --quiet --json >"$work/sp.json"
    read -r _ su ss <"$work/time"
}
read_pgbench() {
    timed pgbench -n -M prepared -c 8 -j "$threads" -T "$secs" -f "$work/getaccount.sql" spindle_bench_sp \
        >"$work/pgb.out" 2>/dev/null
    read -r _ pu ps <"$work/time"
}
for r in $(seq 1 "$rounds"); do
    if ((r % 2)); then read_spindle; read_pgbench; else read_pgbench; read_spindle; fi
    python3 - "$work/sp.json" "$work/pgb.out" "$su" "$ss" "$pu" "$ps" "$r" "$work/calls.ratios" "$work/cpu.ratios" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
pgb = open(sys.argv[2]).read()
su, ss, pu, ps = map(float, sys.argv[3:7])
s_calls, s_tps = r["summary"]["ios"], r["summary"]["iops"]
s_lat = r["summary"]["latency_ns"]["mean"] / 1e6
p_calls = int(re.search(r"number of transactions actually processed: (\d+)", pgb).group(1))
p_tps = float(re.search(r"^tps = ([0-9.]+)", pgb, re.M).group(1))
p_lat = float(re.search(r"^latency average = ([0-9.]+) ms", pgb, re.M).group(1))
s_cpu, p_cpu = (su + ss) * 1e6 / s_calls, (pu + ps) * 1e6 / p_calls
print(f"round {sys.argv[7]}: spindle {s_tps:8.0f} calls/s {s_lat:6.3f} ms {s_cpu:5.1f} us CPU/call | "
      f"pgbench {p_tps:8.0f} calls/s {p_lat:6.3f} ms {p_cpu:5.1f} us CPU/call | "
      f"calls/s ratio {s_tps / p_tps:.2f}, CPU/call ratio {s_cpu / p_cpu:.2f}")
with open(sys.argv[8], "a") as calls, open(sys.argv[9], "a") as cpu:
    print(s_tps, p_tps, file=calls)
    print(s_cpu, p_cpu, file=cpu)
PY
done
echo "read-only calls/s, spindle/pgbench: median $(median "$work/calls.ratios")"
echo "client CPU per call, spindle/pgbench: median $(median "$work/cpu.ratios")"
