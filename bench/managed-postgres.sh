# Sourced by the benches that need a PostgreSQL of their own: builds spindle, makes a scratch
# directory the server's user can reach, starts a managed instance there with the options
# given (spindle db up ...), and removes it all on exit. Sets $spindle, $work and $url.
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
chmod 755 "$work"  # the server runs as postgres, which must reach its directories
export XDG_DATA_HOME=$work/xdg SPINDLE_STORE=$work/results.db
cleanup() { "$spindle" db down --all --remove >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
url=$("$spindle" db up --engine postgres --data "$work/pg" "$@" 2>/dev/null)
