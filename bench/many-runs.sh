#!/usr/bin/env bash
# A scratch store of RUNS copies of one real run (the null engine: a full record with
# histograms and a 2 s series), with varied labels and start times: what store-list.sh and
# serve-pages.sh measure on. STORE is a file, or a PostgreSQL URL of an empty database
# (filled with psql). Not a test.
#
#   bench/many-runs.sh SPINDLE STORE RUNS WORKDIR
set -euo pipefail
spindle=$1 store=$2 runs=$3 work=$4
command -v python3 >/dev/null || { echo "bench needs python3 (sqlite3 module)" >&2; exit 2; }
$spindle io --engine null --target "$work/x.dat" --duration 2s --label raid=5 --quiet --store "$store"
case "$store" in
postgres://* | postgresql://*)
    psql -q -v ON_ERROR_STOP=1 -v n="$runs" "$store" <<'SQL'
SELECT set_config('bench.n', :'n', false);
DO $$
DECLARE cols text;
BEGIN
    SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) INTO cols
    FROM information_schema.columns WHERE table_name = 'runs' AND column_name <> 'id';
    EXECUTE format('INSERT INTO runs (%s) SELECT %s FROM runs r CROSS JOIN generate_series(2, %s) i WHERE r.id = 1 ORDER BY i',
        cols,
        replace(cols, 'started_at',
            $e$format('2026-10-%sT%s:00:00Z', lpad((1 + i % 28)::text, 2, '0'), lpad((i % 24)::text, 2, '0'))$e$),
        current_setting('bench.n'));
END $$;
INSERT INTO labels SELECT id, 'raid', CASE WHEN id % 2 = 1 THEN '5' ELSE '10' END FROM runs WHERE id > 1;
INSERT INTO labels SELECT id, 'host', 'db' || (id % 7) FROM runs WHERE id > 1;
INSERT INTO records SELECT r.id, c.schema, c.json FROM runs r, records c WHERE c.run_id = 1 AND r.id > 1;
ANALYZE;
SELECT format('store: %s runs, %s', count(*), pg_size_pretty(pg_database_size(current_database()))) FROM runs;
SQL
    exit 0
    ;;
esac
python3 - "$store" "$runs" <<'PY'
import sqlite3, sys
path, n = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path)
cols = [r[1] for r in db.execute("PRAGMA table_info(runs)") if r[1] != "id"]
names = ", ".join(cols)
with db:
    for i in range(2, n + 1):
        day = 1 + i % 28
        cur = db.execute(
            f"INSERT INTO runs ({names}) SELECT {names.replace('started_at', '?')} FROM runs WHERE id = 1",
            (f"2026-10-{day:02d}T{i % 24:02d}:00:00Z",))
        rid = cur.lastrowid
        db.execute("INSERT INTO labels VALUES (?, 'raid', ?)", (rid, "5" if i % 2 else "10"))
        db.execute("INSERT INTO labels VALUES (?, 'host', ?)", (rid, f"db{i % 7}"))
        db.execute("INSERT INTO records SELECT ?, schema, json FROM records WHERE run_id = 1", (rid,))
print(f"store: {n} runs, {db.execute('PRAGMA page_count').fetchone()[0] * 4096 / 2**20:.0f} MiB")
PY
