#!/usr/bin/env bash
# `spindle orders load` of WAREHOUSES (default 10) on this machine's PostgreSQL against the same
# rows built inside the server (bench/orders-inserver.sql: INSERT ... SELECT from
# generate_series with the same value rules, then the same keys and indexes), in the order
# A B B A, each into a fresh database from a checkpoint, timed from its client process's start
# to its end. Prints each time and the ratio spindle / in-server, and exits 1 if spindle takes
# more than 0.6x the in-server time. spindle's load of the same warehouses on SQLite and
# MariaDB is timed beside (no peer). Not a test.
#
#   bench/orders-load.sh [WAREHOUSES]     (PGHOST, PGUSER as for psql; MariaDB root on 127.0.0.1)
set -euo pipefail
cd "$(dirname "$0")/.."
warehouses=${1:-10}
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres} PGOPTIONS="--client-min-messages=warning"
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
db=bench_orders
drop_all() {
    psql -qd postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
    mysql -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $db" 2>/dev/null || true
}
trap 'drop_all || true; rm -rf "$work"' EXIT

# Wall seconds of a command, from /usr/bin/time.
timed() { /usr/bin/time -f "%e" -o "$work/time" "$@" >/dev/null; cat "$work/time"; }
fresh_pg() { psql -qd postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" -c CHECKPOINT; }
load_spindle() { fresh_pg; timed "$spindle" orders load --warehouses "$warehouses" --db "postgres://$PGUSER@$PGHOST/$db"; }
load_in_server() { fresh_pg; timed psql -q -v ON_ERROR_STOP=1 -v w="$warehouses" -d "$db" -f bench/orders-inserver.sql; }

echo "== $warehouses warehouses on PostgreSQL, A B B A"
a1=$(load_spindle); echo "spindle    $a1 s"
b1=$(load_in_server); echo "in-server  $b1 s"
b2=$(load_in_server); echo "in-server  $b2 s"
a2=$(load_spindle); echo "spindle    $a2 s"
ratio=$(awk -v a="$a1 + $a2" -v b="$b1 + $b2" 'BEGIN { split(a, x, " + "); split(b, y, " + "); printf "%.2f", (x[1] + x[2]) / (y[1] + y[2]) }')
echo "spindle / in-server: ${ratio}x (the goal: at most 0.6x)"

echo "== beside: spindle on SQLite and MariaDB, $warehouses warehouses"
echo "SQLite     $(timed "$spindle" orders load --warehouses "$warehouses" --db "sqlite://$work/orders.db") s"
if mysql -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db" 2>/dev/null; then
    echo "MariaDB    $(timed "$spindle" orders load --warehouses "$warehouses" --db "mysql://root@127.0.0.1/$db") s"
else
    echo "MariaDB    (no server at 127.0.0.1:3306)"
fi
awk -v r="$ratio" 'BEGIN { exit !(r <= 0.6) }'
