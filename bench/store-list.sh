#!/usr/bin/env bash
# How fast the results store answers with many runs: fills a scratch store with N copies of
# one real run (varied labels and times; default 10000), then times `runs list` (newest 50),
# `runs list --all`, a label-filtered list and `runs show`, best of 5 each. Not a test.
# With a PostgreSQL URL, the store is that database (empty, made by you; needs psql), and the
# same figures are of a store a team shares.
#
#   bench/store-list.sh [RUNS] [postgres://user@host/EMPTY_DB]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000}
server=${2:-}
command -v python3 >/dev/null || { echo "bench needs python3 (sqlite3 module)" >&2; exit 2; }
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SPINDLE_STORE=${server:-$work/results.db}

# One real run (the null engine: a full record with histograms and a 2 s series).
$spindle io --engine null --target "$work/x.dat" --duration 2s --label raid=5 --quiet
if [ -n "$server" ]; then
    psql -q -v ON_ERROR_STOP=1 -v n="$runs" "$server" <<'SQL'
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
else
python3 - "$SPINDLE_STORE" "$runs" <<'PY'
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
fi

best_of_5() { # label, command...
    local label=$1; shift
    python3 - "$label" "$@" <<'PY'
import subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
times = []
for _ in range(5):
    t = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout
    times.append(time.perf_counter() - t)
lines = out.count(b"\n")
print(f"{label:50} best {min(times)*1000:8.1f} ms   median {sorted(times)[2]*1000:8.1f} ms   {lines} lines")
PY
}
best_of_5 "runs list (newest 50)" $spindle runs list
best_of_5 "runs list --all" $spindle runs list --all
best_of_5 "runs list --all --json" $spindle runs list --all --json
best_of_5 "runs list --label raid=10 --label host=db3 --all" $spindle runs list --label raid=10 --label host=db3 --all
best_of_5 "runs list --since 2026-10-20 --all" $spindle runs list --since 2026-10-20 --all
best_of_5 "runs show $((runs / 2))" $spindle runs show $((runs / 2))
best_of_5 "compare --a 1-3 --b 4-6" $spindle compare --a 1-3 --b 4-6
