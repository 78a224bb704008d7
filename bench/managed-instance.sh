# Sourced by the benches that need a server of their own: builds spindle, makes a scratch
# directory the server's user can reach, starts a managed instance there of $engine (postgres,
# the default, or mariadb) with the options given (spindle db up ...), and removes it all on
# exit. Sets $spindle, $work and $url.
cargo build --release --quiet
spindle=$PWD/target/release/spindle
work=$(mktemp -d)
chmod 755 "$work"  # the server runs as postgres or mysql, which must reach its directories
export XDG_DATA_HOME=$work/xdg SPINDLE_STORE=$work/results.db
cleanup() { "$spindle" db down --all --remove >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
url=$("$spindle" db up --engine "${engine:-postgres}" --data "$work/db" "$@" 2>/dev/null)
