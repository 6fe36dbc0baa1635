#!/usr/bin/env bash
# Instructions per scan on the Pi's architectures, counted under QEMU.
#
#   scripts/scan-cost.sh [arm64|armhf]... (default: arm64)
#
# Builds tests/arm64_scan_cost.rs for the target (release profile, as the
# package's binary) and runs it under user-mode QEMU with an
# instruction-counting plugin (scripts/qemu-insn-count.c, built here with
# the host's gcc), once with the games synthesized and the sessions built
# but no scan fed (TOUCHMOVE_SCAN_COST=setup) and once feeding every scan;
# the difference over the number of scans is the session's instructions
# per scan at 1 kHz. Needs what scripts/cross-build.sh needs, and gcc.
#
# Environment: TOUCHMOVE_SCAN_COST_GAMES (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

games=${TOUCHMOVE_SCAN_COST_GAMES:-2}
[ $# -gt 0 ] || set -- arm64
export RUSTC=/usr/bin/rustc CARGO_TERM_COLOR=never

mkdir -p target/scan-cost
plugin=target/scan-cost/qemu-insn-count.so
gcc -shared -fPIC -O2 -Wall -o "$plugin" scripts/qemu-insn-count.c

for a in "$@"; do
    case $a in
        arm64) t=aarch64-unknown-linux-gnu g=aarch64-linux-gnu qemu=qemu-aarch64 ;;
        armhf) t=armv7-unknown-linux-gnueabihf g=arm-linux-gnueabihf qemu=qemu-arm ;;
        *) echo "scan-cost: arm64 or armhf, not $a" >&2; exit 2 ;;
    esac
    tu=${t//-/_}
    export "CC_$tu=$g-gcc" "AR_$tu=$g-ar"
    exe=$(cargo test --release --target "$t" --test arm64_scan_cost --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
    [ -x "$exe" ] || { echo "scan-cost: no test binary for $t" >&2; exit 1; }

    count() { # MODE: prints "INSNS SCANS"
        local out
        out=$(TOUCHMOVE_SCAN_COST="$1" TOUCHMOVE_SCAN_COST_GAMES="$games" \
            "$qemu" -L / -plugin "$plugin" -d plugin "$exe" --nocapture --test-threads 1 2>&1)
        echo "$out" | grep -q 'test result: ok' || { echo "$out" >&2; exit 1; }
        echo "$(echo "$out" | sed -n 's/^insns: //p') $(echo "$out" | sed -n 's/.*scan-cost: games [0-9]* scans \([0-9]*\).*/\1/p')"
    }
    read -r setup _ < <(count setup)
    read -r total scans < <(count scan)
    per=$(awk -v a="$total" -v b="$setup" -v s="$scans" 'BEGIN { printf "%.1f", (a - b) / s }')
    echo "scan-cost: $t: $games games, $scans scans; instructions: $setup setup, $total with the scans; $per per scan"
done
