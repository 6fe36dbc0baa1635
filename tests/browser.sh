#!/bin/sh
# The browser test against the real daemon: starts `touchmove run --demo`
# (the corpus game, with a knocked piece for the `displaced` alert) at real
# speed (the page runs the clocks in wall time) on a free port, waits for
# /health, then runs web/test/display.test.mjs (playwright-core driving
# /usr/bin/chromium) against it with a 60 s wait per step. Its last test
# stops the daemon (the connection-lost overlay) and starts it again.
#   tests/browser.sh [PORT]      (default 18080; needs node, npm, chromium)
set -eu
cd "$(dirname "$0")/.."
PORT="${1:-18080}"
BIN="${TOUCHMOVE_BIN:-}"
if [ -z "$BIN" ]; then
    cargo build --quiet
    BIN="$(pwd)/target/debug/touchmove"
fi
# A fixed seed: the demo's hands (think times up to 20 s, now and then two
# minutes) are otherwise drawn from the time, and a long think before the
# knock after ply 3 outlasts the 60 s wait. Seed 1 knocks at 20 s.
CMD="$BIN run --demo --speed 1 --seed ${TOUCHMOVE_DEMO_SEED:-1} --bind 127.0.0.1:$PORT"
$CMD &
DAEMON=$!
trap 'kill "$DAEMON" 2>/dev/null || true; wait "$DAEMON" 2>/dev/null || true' EXIT INT TERM
i=0
until curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; do
    i=$((i + 1))
    [ "$i" -lt 100 ] || { echo "the daemon did not answer /health" >&2; exit 1; }
    sleep 0.1
done
cd web
[ -d node_modules/playwright-core ] && [ -d node_modules/axe-core ] || npm ci
# The last test stops the daemon and starts it again (it ends the one it starts).
TOUCHMOVE_DAEMON_PID="$DAEMON" TOUCHMOVE_DAEMON_CMD="$CMD" \
TOUCHMOVE_WAIT_MS="${TOUCHMOVE_WAIT_MS:-60000}" TOUCHMOVE_URL="http://127.0.0.1:$PORT/" node --test test/display.test.mjs
