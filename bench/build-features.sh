#!/usr/bin/env bash
# What the cargo features cost a newcomer: a release build of spindle from a clean target
# directory with the default features, then with none (the I/O engines, SQLite, counters, the
# store, text/JSON/CSV/HTML reports), one after the other, each timed, with the binary's size
# and the crates compiled. Not a test; it takes a while (two cold release builds).
#
#   bench/build-features.sh [WORKDIR]      (default: a temp dir, removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/spindle-build.XXXXXX")}
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
# Sources first, so the builds time compiling only.
cargo fetch --locked >/dev/null 2>&1
echo "features              seconds  binary_MB  crates_compiled"
for set in default none; do
  dir="$work/$set"
  rm -rf "$dir"
  flags=()
  [ "$set" = none ] && flags=(--no-default-features)
  start=$(date +%s.%N)
  cargo build --release --locked --offline --target-dir "$dir" "${flags[@]}" 2> "$work/$set.log"
  end=$(date +%s.%N)
  crates=$(grep -c '^ *Compiling ' "$work/$set.log" || true)
  size=$(stat -c %s "$dir/release/spindle")
  python3 -c "print(f'{\"$set\":<20} {$end - $start:8.1f}  {$size / 1e6:9.1f}  {$crates:15d}')"
done
