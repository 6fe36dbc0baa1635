#!/usr/bin/env bash
# The same traces give the same game on the Pi's architecture as here.
#
#   scripts/replay-compare.sh CROSS_BINARY [NATIVE_BINARY]
#
# Synthesizes sensor traces (corpus games under every hand style, with
# faults and missed plies, and random Chess960 games) with both binaries and
# requires identical traces; then replays every trace with both
# (`replay --events --pgn`) and requires identical events and PGN, byte for
# byte. The cross binary runs under user-mode QEMU (binfmt or the
# qemu-aarch64 / qemu-arm named here). NATIVE_BINARY defaults to
# target/debug/touchmove (built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

cross=${1:?usage: scripts/replay-compare.sh CROSS_BINARY [NATIVE_BINARY]}
native=${2:-target/debug/touchmove}
[ -x "$native" ] || cargo build --quiet
# The ELF machine (bytes 18-19): 0xb7 AArch64, 0x28 ARM.
machine=$(od -An -tx1 -j18 -N1 "$cross" | tr -d ' ')
case $machine in
    b7) emu=(qemu-aarch64 -L /) arch=aarch64 ;;
    28) emu=(qemu-arm -L /) arch=armv7 ;;
    *) emu=() arch="ELF machine 0x$machine" ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/native" "$work/cross"
corpus=../shared/corpus/pgn/200807britchamp.pgn

# synth ARGS...: the same traces from both binaries
synth() {
    "$native" synth "$@" --out "$work/native" >/dev/null 2>&1
    "${emu[@]}" "$cross" synth "$@" --out "$work/cross" >/dev/null 2>&1
}
game=1
for style in random carry slide careful blitz casual blitz-hands bullet nudges; do
    synth --pgn "$corpus" --game "$game" --seed "$game" --style "$style"
    game=$((game + 1))
done
synth --pgn "$corpus" --game 20 --seed 20 --faults 3
synth --pgn "$corpus" --game 21 --seed 21 --jumps 2
synth --pgn "$corpus" --game 22 --seed 22 --faults 2 --jumps 1 --no-glitches
synth --random 3 --chess960 --seed 9 --faults 1

failures=0
traces=0
for t in "$work"/native/*.trace; do
    name=$(basename "$t")
    traces=$((traces + 1))
    if ! cmp -s "$t" "$work/cross/$name"; then
        echo "replay-compare: $name: the synthesized traces differ" >&2
        failures=$((failures + 1))
    fi
    "$native" replay "$t" --events --pgn >"$work/$name.native" 2>&1 || true
    "${emu[@]}" "$cross" replay "$t" --events --pgn >"$work/$name.cross" 2>&1 || true
    if ! cmp -s "$work/$name.native" "$work/$name.cross"; then
        echo "replay-compare: $name: replay differs" >&2
        diff "$work/$name.native" "$work/$name.cross" | head -n 10 >&2
        failures=$((failures + 1))
    fi
done
lines=$(cat "$work"/*.native | wc -l)
if [ "$failures" -ne 0 ]; then
    echo "replay-compare: $failures difference(s) over $traces traces" >&2
    exit 1
fi
echo "replay-compare: $traces traces, $lines lines of events and PGN: identical (native and $arch)"
