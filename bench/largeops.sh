#!/usr/bin/env bash
# spindle largeops on a managed PostgreSQL instance (spindle db up --defer-checkpoints), and
# its load against the same rows built inside the server, alternating in each round, with
# ratios. Not a test.
#
# spindle's load: TPC-C customer rows generated in spindle and sent with COPY in batches of
# 50,000 (each one transaction), into spindle_customer with its two indexes made first, as in
# "Performance impact of controller cache: SQL Server large operations". The reference: the
# same table and indexes, filled inside the server by INSERT ... SELECT from generate_series,
# with rows of the same shape and width (random text from md5, c_data of 300-500 characters),
# in batches of 50,000 rows, each its own transaction. Both start from a checkpoint.
#
#   bench/largeops.sh [ROWS] [ROUNDS]     (defaults: 3000000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-3000000}
rounds=${2:-3}
batch=$(( rows < 50000 ? rows : 50000 ))
source bench/managed-instance.sh --memory 512M --defer-checkpoints
psql_() { PGOPTIONS="--client-min-messages=warning" psql -X -q "$url" -v ON_ERROR_STOP=1 "$@"; }

reference() {
  psql_ -c "DROP TABLE IF EXISTS ref_customer" -c "CHECKPOINT"
  psql_ -c "CREATE TABLE ref_customer (LIKE spindle_customer INCLUDING ALL)" 2>/dev/null || psql_ <<'SQL'
CREATE TABLE ref_customer (
  c_id int NOT NULL, c_d_id smallint NOT NULL, c_w_id int NOT NULL, c_first char(16), c_middle char(2),
  c_last char(16), c_street_1 char(20), c_street_2 char(20), c_city char(20), c_state char(2), c_zip char(9),
  c_phone char(16), c_since timestamp, c_credit char(2), c_credit_lim numeric(12,2), c_discount numeric(4,4),
  c_balance numeric(12,2), c_ytd_payment numeric(12,2), c_payment_cnt smallint, c_delivery_cnt smallint,
  c_data char(500), PRIMARY KEY (c_w_id, c_d_id, c_id));
CREATE UNIQUE INDEX ref_customer_nc1 ON ref_customer (c_w_id, c_d_id, c_last, c_first, c_id);
SQL
  local start end
  start=$(date +%s.%N)
  for ((from = 0; from < rows; from += batch)); do
    psql_ -c "INSERT INTO ref_customer SELECT i % 3000 + 1, i / 3000 % 10 + 1, i / 30000 + 1,
        substr(md5(i::text), 1, 8 + i % 9), 'OE', substr(md5((i * 7)::text), 1, 9 + i % 7),
        substr(md5((i + 1)::text), 1, 10 + i % 11), substr(md5((i + 2)::text), 1, 10 + i % 11),
        substr(md5((i + 3)::text), 1, 10 + i % 11), 'CA', lpad((i % 10000)::text, 4, '0') || '11111',
        lpad(i::text, 16, '0'), now(), CASE WHEN i % 10 = 0 THEN 'BC' ELSE 'GC' END, 50000.00,
        (i % 5001) / 10000.0, -10.00, 10.00, 1, 0,
        substr(repeat(md5(i::text) || md5((i + 9)::text), 16), 1, 300 + i % 201)
      FROM generate_series($from, least($from + $batch, $rows) - 1) AS i"
  done
  end=$(date +%s.%N)
  python3 -c "print($end - $start)"
}

echo "round  spindle_load_s  in_server_load_s  ratio(in_server/spindle)  scan_s  update_s  checkpoint_s  total_s"
for ((r = 1; r <= rounds; r++)); do
  # A B B A: spindle first in odd rounds, the in-server load first in even ones (it then makes
  # its table from the column list, as spindle_customer does not exist yet).
  if ((r % 2)); then
    out=$("$spindle" largeops --db "$url" --rows "$rows" --batch "$batch" --settle 2s --json --keep 2>/dev/null)
    ref=$(reference)
  else
    ref=$(reference)
    out=$("$spindle" largeops --db "$url" --rows "$rows" --batch "$batch" --settle 2s --json --keep 2>/dev/null)
  fi
  read -r load scan update ckpt < <(echo "$out" | python3 -c 'import json,sys; o={x["operation"]:x["seconds"] for x in json.load(sys.stdin)}; print(o["load"], o["scan"], o["update"], o["checkpoint"])')
  psql_ -c "DROP TABLE IF EXISTS ref_customer" -c "DROP TABLE IF EXISTS spindle_customer"
  python3 -c "print(f'{$r:5d}  {$load:14.2f}  {$ref:16.2f}  {$ref/$load:24.2f}  {$scan:6.2f}  {$update:8.2f}  {$ckpt:12.2f}  {$load+$scan+$update+$ckpt:7.2f}')"
done
