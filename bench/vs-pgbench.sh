#!/usr/bin/env bash
# spindle hammer against pgbench on this machine's PostgreSQL, in one run, each in a scratch
# database of its own: (1) loading 10M rows (pgbench -i -s 100 -I dtgp: create, client-side
# COPY, primary key) and (2) read-only calls from 8 clients (pgbench -S -M prepared vs
# spindle --read-ratio 100), with TPS, mean latency and client CPU per call, and ratios.
# Not a test.
#
#   bench/vs-pgbench.sh [SECONDS] [ROUNDS]     (defaults: 20 3; PGHOST etc. as for psql)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
rounds=${2:-3}
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-root}
command -v pgbench >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql-client >/dev/null; }
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
export SPINDLE_STORE=$work/results.db
cleanup() { psql -qd postgres -c "DROP DATABASE IF EXISTS spindle_bench_pgb WITH (FORCE)" -c "DROP DATABASE IF EXISTS spindle_bench_sp WITH (FORCE)" || true; rm -rf "$work"; }
trap cleanup EXIT
for db in spindle_bench_pgb spindle_bench_sp; do
    psql -qd postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
done

# CPU seconds (user+sys) of a command, and its wall time, from /usr/bin/time.
timed() { /usr/bin/time -f "%e %U %S" -o "$work/time" "$@"; }

echo "== load 10M rows"
for r in $(seq 1 "$rounds"); do
    timed pgbench -q -i -s 100 -I dtgp spindle_bench_pgb >/dev/null 2>&1
    read -r pw _ _ <"$work/time"
    timed "$spindle" hammer load --db "postgres://$PGUSER@$PGHOST/spindle_bench_sp" --rows 10M --fresh --quiet
    read -r sw _ _ <"$work/time"
    python3 -c "import sys; p, s = map(float, sys.argv[1:]); print(f'round $r: pgbench {p:6.2f} s  spindle {s:6.2f} s  spindle/pgbench {s / p:.2f}')" "$pw" "$sw"
done

echo "== read-only, 8 clients, ${secs}s"
for r in $(seq 1 "$rounds"); do
    timed pgbench -S -M prepared -c 8 -j 2 -T "$secs" spindle_bench_pgb >"$work/pgb.out" 2>/dev/null
    read -r _ pu ps <"$work/time"
    ptps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgb.out" | head -1)
    plat=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$work/pgb.out")
    timed "$spindle" hammer run --db "postgres://$PGUSER@$PGHOST/spindle_bench_sp" --sessions 8 --read-ratio 100 \
        --duration "${secs}s" --warmup 2s --quiet --json >"$work/sp.json"
    read -r _ su ss <"$work/time"
    python3 - "$work/sp.json" "$ptps" "$plat" "$pu" "$ps" "$su" "$ss" "$secs" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ptps, plat, pu, ps, su, ss, secs = map(float, sys.argv[2:])
stps = r["summary"]["iops"]
slat = r["summary"]["latency_ns"]["mean"] / 1e6
# Client CPU per call: the whole process's user+sys over the calls it made.
pcpu = (pu + ps) * 1e6 / (ptps * secs)
scpu = (su + ss) * 1e6 / (stps * (secs + 2))
print(f"pgbench {ptps:9.0f} TPS {plat:6.3f} ms {pcpu:5.1f} us CPU/call | spindle {stps:9.0f} TPS {slat:6.3f} ms "
      f"{scpu:5.1f} us CPU/call | TPS ratio {stps / ptps:.2f}, CPU ratio {scpu / pcpu:.2f}")
PY
done
