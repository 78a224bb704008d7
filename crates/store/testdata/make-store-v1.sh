#!/bin/sh
# Makes store-v1-171a3e5.db: a store of schema 1 holding runs of every kind, written by the
# spindle of commit 171a3e5 (records of schema spindle.run-record/v1). Kept as test data so
# every later spindle is tested on reading a store its predecessors wrote.
# Usage: make-store-v1.sh SPINDLE_BINARY_OF_171a3e5 /abs/OUT.db /abs/IMPORTED_FILE
set -eu
S=$1
OUT=$2
IMPORTED=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
cat >a.toml <<'TOML'
duration = "1s"
engine = "null"
[[target]]
path = "a.dat"
size = "1M"
block = "8K"
random = 100
threads = 1
depth = 1
TOML
sed -e 's/a\.dat/b.dat/' -e 's/depth = 1/depth = 2/' a.toml >b.toml
st="--store $OUT"
$S io $st -q --engine null -t io.dat --size 1M -d 1s --label case=plain
$S io $st -q --engine sync --verify -t verify.dat --size 1M -d 1s --label case=verify
$S io $st -q --engine null -t sweep.dat --size 1M -d 1s --sweep depth=1,2 --label case=sweep
$S io $st -q --engine null -t repeat.dat --size 1M -d 1s --repeat 2 --label case=repeat
$S ab $st -q --rounds 2 -d 1s a.toml b.toml --label case=ab
$S hammer load $st -q --db "sqlite://$W/h.db" --rows 1000
$S hammer run $st -q --db "sqlite://$W/h.db" --sessions 2 -d 1s
$S logtest $st -q --db "sqlite://$W/l.db" --rows 200 --batch 1,10 --row-bytes 100 --settle 0s
$S largeops $st -q --db "sqlite://$W/o.db" --rows 2000 --batch 1000 --settle 0s
$S import $st "$IMPORTED"
sqlite3 "$OUT" 'PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE; VACUUM;'
