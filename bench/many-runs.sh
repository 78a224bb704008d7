#!/usr/bin/env bash
# A scratch store of RUNS copies of one real run (the null engine: a full record with
# histograms and a 2 s series), with varied labels and start times: what store-list.sh and
# serve-pages.sh measure on. Not a test.
#
#   bench/many-runs.sh SPINDLE STORE RUNS WORKDIR
set -euo pipefail
spindle=$1 store=$2 runs=$3 work=$4
command -v python3 >/dev/null || { echo "bench needs python3 (sqlite3 module)" >&2; exit 2; }
$spindle io --engine null --target "$work/x.dat" --duration 2s --label raid=5 --quiet --store "$store"
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
