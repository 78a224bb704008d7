#!/usr/bin/env bash
# A thousand Hammer sessions from one spindle against the engine's own load client's thousand,
# on one managed instance (spindle db up, 2,000 connections), in alternating order (spindle
# first in odd rounds, the peer first in even ones: A B, B A, ...): client peak RSS
# (/usr/bin/time's maximum resident set) and calls a second, with ratios.
# - ENGINE=postgres (the default): pgbench runs its read-only script (-S: one primary-key
#   SELECT a transaction) with -j 2, as spindle runs 50% GetAccount / 50% UpdateAccount; the
#   memory figure is the client's either way.
# - ENGINE=mariadb: sysbench runs GetAccount's SELECT on spindle's own table and keys as a
#   prepared statement (bench/sysbench-getaccount.lua; sysbench cannot read a CALL's results),
#   and spindle runs GetAccount only (--read-ratio 100), so both make the same key lookups; the
#   procedure is spindle's extra work.
# Not a test.
#
#   [ENGINE=mariadb] bench/hammer-sessions.sh [SESSIONS] [SECONDS] [ROUNDS]     (defaults: 1000 20 3)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-1000}
secs=${2:-20}
rounds=${3:-3}
engine=${ENGINE:-postgres}
case $engine in
  postgres) peer=pgbench; package=postgresql-client; reads=50 ;;
  mariadb) peer=sysbench; package=sysbench; reads=100 ;;
  *) echo "ENGINE is postgres or mariadb" >&2; exit 2 ;;
esac
command -v "$peer" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$package" >/dev/null; }
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
source bench/managed-instance.sh --memory 512M
"$spindle" hammer load --db "$url" --rows 1M -q
if [ "$engine" = postgres ]; then
  PGOPTIONS="--client-min-messages=warning" pgbench -q -i -s 10 "$url" >/dev/null 2>&1
else
  # mysql://user:password@host:port/db, as spindle db up prints it.
  IFS=: read -r my_user my_pass my_host my_port my_db <<< "$(sed -E 's|^mysql://([^:]*):([^@]*)@([^:/]*):([0-9]+)/(.*)$|\1:\2:\3:\4:\5|' <<< "$url")"
  my=(--host=127.0.0.1 --port="$my_port" --user="$my_user" --password="$my_pass")
fi

# A thousand sessions take seconds to go after their client does: each run waits until the
# last are gone, so neither side connects while the server is still busy with the other.
busy() {
  if [ "$engine" = postgres ]; then
    psql "$url" -Atc "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
  else
    mariadb "${my[@]}" -Nse "SELECT count(*) FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'"
  fi
}
settle() {
  for _ in $(seq 120); do
    (($(busy) <= 1)) && return
    sleep 0.5
  done
}
run_spindle() {
  settle
  /usr/bin/time -f "%M" -o "$work/sp.mem" "$spindle" hammer run --db "$url" --sessions "$sessions" \
    --read-ratio "$reads" --duration "${secs}s" --warmup 2s --json -q > "$work/sp.json"
}
run_peer() {
  settle
  if [ "$engine" = postgres ]; then
    /usr/bin/time -f "%M" -o "$work/peer.mem" pgbench -n -S -c "$sessions" -j 2 -T "$secs" "$url" \
      > "$work/peer.out" 2>&1
  else
    /usr/bin/time -f "%M" -o "$work/peer.mem" sysbench --db-driver=mysql --mysql-host="$my_host" \
      --mysql-port="$my_port" --mysql-user="$my_user" --mysql-password="$my_pass" --mysql-db="$my_db" \
      --threads="$sessions" --time="$secs" bench/sysbench-getaccount.lua run > "$work/peer.out" 2>&1
  fi
}
# The peer's rate: pgbench's tps line, sysbench's transactions per second. None: the peer made
# no transaction in its window (pgbench's -T counts its connections, and a thousand of them can
# take the whole window on a busy machine); its resident figure is still that of a thousand
# connected clients.
peer_rate() {
  local rate
  rate=$(sed -n -e 's/^tps = \([0-9.]*\) .*/\1/p' -e 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$work/peer.out")
  [ -n "$rate" ] || { cat "$work/peer.out" >&2; rate=0; }
  echo "$rate"
}

echo "round  order  spindle_MB  ${peer}_MB  ratio  spindle_calls/s  ${peer}_tps  spindle_failed"
for ((r = 1; r <= rounds; r++)); do
  # Alternating (A B, then B A): whichever runs second finds the server's caches warmer and
  # its memory freed later, so neither side always has the first or the second turn.
  if ((r % 2)); then order="sp,$peer"; run_spindle; run_peer; else order="$peer,sp"; run_peer; run_spindle; fi
  read -r calls failed < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r=r[0] if isinstance(r, list) else r; print(r["summary"]["iops"], sum(r["errors"].values()))' "$work/sp.json")
  rate=$(peer_rate)
  python3 -c "
sp=int(open('$work/sp.mem').read().split()[-1])/1024; peer=int(open('$work/peer.mem').read().split()[-1])/1024
print(f'{$r:5d}  {\"$order\":12s}  {sp:10.1f}  {peer:11.1f}  {sp/peer:5.2f}  {$calls:15.0f}  {float(\"$rate\"):12.0f}  {$failed:14d}')"
done
