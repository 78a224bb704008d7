# Sourced by the benches that need volumes of their own: spindle (this tree's release build,
# or $SPINDLE_BIN), a scratch directory the servers' users can reach, and one loop device per
# name given, each over a sparse file of $volume_size bytes with ext4 mounted at $work/NAME;
# removed on exit with any managed instance. Needs root. Sets $spindle, $work and $devs (the
# devices, /dev/loopN, in the order named).
#
#   volume_size=BYTES source bench/loop-volumes.sh data log
[ "$(id -u)" = 0 ] || { echo "$(basename "$0"): needs root (losetup, mount, tracefs)" >&2; exit 1; }
if [ -n "${SPINDLE_BIN:-}" ]; then spindle=$SPINDLE_BIN; else  # a build of your own, or this tree's
  cargo build --release --quiet
  spindle=${CARGO_TARGET_DIR:-$PWD/target}/release/spindle
fi
work=$(mktemp -d)
chmod 755 "$work"  # the server runs as postgres or mysql, which must reach its directories
export XDG_DATA_HOME=$work/xdg SPINDLE_STORE=$work/results.db
devs=() mnts=()
cleanup() {
  "$spindle" db down --all --remove >/dev/null 2>&1 || true
  for m in "${mnts[@]}"; do umount "$m" 2>/dev/null || true; done
  for d in "${devs[@]}"; do losetup -d "$d" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
for v in "$@"; do
  truncate -s "$volume_size" "$work/$v.img"
  d=$(losetup --find --show "$work/$v.img")
  devs+=("$d")
  # Initialised at once, so no background zeroing lands on the counters.
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$d"
  mkdir -p "$work/$v"
  mount "$d" "$work/$v"
  mnts+=("$work/$v")
done
