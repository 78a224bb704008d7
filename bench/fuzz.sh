#!/usr/bin/env bash
# Every fuzz target run for SECONDS each (default 60), seeded from the real files in
# crates/formats/testdata and the made ones in fuzz/seeds/TARGET (figures no device gives,
# XML nested past any result file), with fuzz/dicts/TARGET.dict where there is one, and the
# executions, the corpus size and any finding reported.
# Not a test. Needs cargo-fuzz (`cargo install cargo-fuzz`); on stable Rust it runs with
# RUSTC_BOOTSTRAP=1, which lets cargo-fuzz use the flags it needs.
#
#   bench/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
# One block, read whole before it runs: bash reads a script as it goes, so editing this file
# during a long run would otherwise change what the rest of the run does.
{
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
shift || true
command -v cargo-fuzz >/dev/null || { echo "bench/fuzz.sh: install cargo-fuzz first: cargo install cargo-fuzz" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
testdata=../crates/formats/testdata
seeds() {
    case "$1" in
        counter_log) ls "$testdata"/*DataCollector* "$testdata"/*iostat* 2>/dev/null ;;
        icf) ls "$testdata"/*.icf 2>/dev/null ;;
        foreign) ls "$testdata"/sqlio* "$testdata"/DiskSpd* "$testdata"/diskspd* "$testdata"/*fio* "$testdata"/quarch* 2>/dev/null ;;
        procfs) ls "$testdata"/diskstats* ../crates/counters/testdata/* 2>/dev/null ;;
        durability_log) ls ../crates/io/testdata/durability.log ;;
        spec_file) ls ../examples/specs/*.toml ;;
        *) ;;
    esac
}
printf '%-12s %14s %10s %8s  %s\n' target executions exec/s corpus finding
for target in "${targets[@]}"; do
    corpus=corpus/$target
    mkdir -p "$corpus"
    for f in $(seeds "$target") $(ls seeds/"$target"/* 2>/dev/null); do cp -n "$f" "$corpus/" 2>/dev/null || true; done
    dict=()
    [ -f dicts/"$target".dict ] && dict=(-dict=dicts/"$target".dict)
    log=$(mktemp)
    status=0
    cargo fuzz run --sanitizer none "$target" "$corpus" -- -max_total_time="$secs" -print_final_stats=1 "${dict[@]}" >"$log" 2>&1 || status=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    rate=$(grep -o 'exec/s: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    finding=none
    if [ "$status" -ne 0 ]; then
        finding=$(grep -m1 -E 'panicked|ERROR: libFuzzer|deadly signal|timeout' "$log" || echo "exit $status, see $log")
    fi
    printf '%-12s %14s %10s %8s  %s\n' "$target" "${execs:-?}" "${rate:-?}" "$(ls "$corpus" | wc -l)" "$finding"
    [ "$status" -eq 0 ] && rm -f "$log"
done
exit
}
