#!/usr/bin/env bash
# Cross builds for the Raspberry Pi from a Debian 12 (bookworm) PC.
#
#   scripts/cross-build.sh [--install-deps] [--dev] [--deb] [--test] [--compare] ARCH...
#
# ARCH is arm64 (aarch64-unknown-linux-gnu: Pi 3, 4, 5, Zero 2 W on a 64-bit
# OS) or armhf (armv7-unknown-linux-gnueabihf: Pi 2 and later on a 32-bit
# OS); see "On the Raspberry Pi" in the README.
#
#   (none)          cargo build --release --target ...: target/TRIPLE/release/touchmove
#   --deb           cargo deb --target ...: target/debian/touchmove_*_ARCH.deb,
#                   then systemd/check-deb.sh on it (needs cargo-deb)
#   --test          builds the core tests (scripts/core-tests.list) for the
#                   target and runs them under user-mode QEMU
#   --compare       scripts/replay-compare.sh: replays synthesized traces with
#                   the native and the cross-built binary, same output or fail
#   --dev           no release build: the tests and the binary that --compare
#                   runs are built in the tests' profile (with --test, by the
#                   tests' build alone: one build of the dependencies); what
#                   .ci/run does: the release build's optimisation is not
#                   what these checks are about
#   --install-deps  installs Debian's compiler with the target's standard
#                   library, the cross linker and QEMU (apt-get; root)
#
# The compiler is Debian's rustc-web (/usr/bin/rustc, 1.96 with the arm64 and
# armhf standard libraries from libstd-rust-web-dev:ARCH): rustup's targets
# are not needed. Cargo stays whichever is first on PATH. The linker, the
# strip/objcopy cargo-deb uses and the QEMU runner are in .cargo/config.toml,
# for these two targets only (the native build is untouched).
set -euo pipefail
cd "$(dirname "$0")/.."

deb=0 test=0 compare=0 install=0 dev=0
arches=()
for a in "$@"; do
    case $a in
        --dev) dev=1 ;;
        --deb) deb=1 ;;
        --test) test=1 ;;
        --compare) compare=1 ;;
        --install-deps) install=1 ;;
        arm64 | aarch64 | aarch64-unknown-linux-gnu) arches+=(arm64) ;;
        armhf | armv7 | armv7-unknown-linux-gnueabihf) arches+=(armhf) ;;
        *)
            sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
            exit 2
            ;;
    esac
done
[ "${#arches[@]}" -gt 0 ] || arches=(arm64)

triple() { case $1 in arm64) echo aarch64-unknown-linux-gnu ;; armhf) echo armv7-unknown-linux-gnueabihf ;; esac; }
gnu() { case $1 in arm64) echo aarch64-linux-gnu ;; armhf) echo arm-linux-gnueabihf ;; esac; }

if [ "$install" = 1 ]; then
    for a in "${arches[@]}"; do
        dpkg --print-foreign-architectures | grep -qx "$a" || dpkg --add-architecture "$a"
    done
    apt-get update -qq
    export DEBIAN_FRONTEND=noninteractive
    # qemu-user-static: binfmt handlers (with the F flag), so that a test
    # running under QEMU can start the cross-built touchmove binary.
    apt-get install -y -qq --no-install-recommends rustc-web qemu-user qemu-user-static file
    for a in "${arches[@]}"; do
        # libstd-rust-web-dev:ARCH also brings libc6:ARCH, the target's own
        # glibc, which the tests run with under QEMU.
        apt-get install -y -qq --no-install-recommends "libstd-rust-web-dev:$a" \
            "gcc-$(gnu "$a")" "libc6-dev-$a-cross" "binutils-$(gnu "$a")"
    done
fi

[ -x /usr/bin/rustc ] || { echo "cross-build: /usr/bin/rustc missing (--install-deps)" >&2; exit 1; }
export RUSTC=/usr/bin/rustc
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

# Foreign binaries started by a test under QEMU (the tests that run
# target/TRIPLE/release/touchmove) go through the kernel's binfmt_misc.
binfmt() { # QEMU_NAME
    local dir=/proc/sys/fs/binfmt_misc
    [ -e "$dir/qemu-$1" ] && return 0
    [ -e "$dir/register" ] || mount -t binfmt_misc binfmt_misc "$dir" 2>/dev/null || true
    [ -e "$dir/qemu-$1" ] || [ ! -w "$dir/register" ] || [ ! -f "/usr/lib/binfmt.d/qemu-$1.conf" ] ||
        cat "/usr/lib/binfmt.d/qemu-$1.conf" >"$dir/register"
    [ -e "$dir/qemu-$1" ] || { echo "cross-build: no binfmt handler for $1 (qemu-user-static, root)" >&2; return 1; }
}

timed() { # LABEL COMMAND...: runs it and says how long it took
    local label=$1 t0=$SECONDS
    shift
    "$@"
    echo "cross-build: $label: $((SECONDS - t0)) s"
}

for a in "${arches[@]}"; do
    t=$(triple "$a")
    g=$(gnu "$a")
    [ -d "/usr/lib/rustlib/$t/lib" ] ||
        { echo "cross-build: no $t standard library (libstd-rust-web-dev:$a; --install-deps)" >&2; exit 1; }
    # The C parts (ring, the bundled SQLite) with the cross compiler.
    tu=${t//-/_}
    export "CC_$tu=$g-gcc" "AR_$tu=$g-ar"

    if [ "$dev" = 1 ]; then
        [ "$deb" = 0 ] || { echo "cross-build: --deb needs the release build (without --dev)" >&2; exit 2; }
        profile=() dir=debug
    else
        profile=(--release) dir=release
    fi
    target_dir=${CARGO_TARGET_DIR:-target}
    # With --dev --test the tests' build makes the binary too (the tests
    # run it), in the tests' profile: a separate dev build would build
    # every dependency a second time.
    if [ "$dev" = 0 ] || [ "$test" = 0 ]; then
        timed "$t $dir build" cargo build "${profile[@]}" --target "$t"
        file -b "$target_dir/$t/$dir/touchmove" 2>/dev/null || true
    fi

    if [ "$deb" = 1 ]; then
        command -v cargo-deb >/dev/null ||
            { echo "cross-build: cargo-deb missing (cargo install cargo-deb)" >&2; exit 1; }
        out=$(cargo deb --target "$t" | grep '\.deb$' | tail -n 1)
        # Its first line (the verdict); read whole, so that no pipe is cut
        # under check-deb's own dpkg-deb.
        report=$(systemd/check-deb.sh "$out")
        echo "${report%%$'\n'*}"
    fi

    if [ "$test" = 1 ] || [ "$compare" = 1 ]; then
        case $a in arm64) binfmt aarch64 ;; armhf) binfmt arm ;; esac
    fi

    if [ "$test" = 1 ]; then
        mapfile -t targets < <(grep -v -e '^#' -e '^$' scripts/core-tests.list)
        read -r -a args <<<"${targets[*]}"
        # The profile of the build above, so its dependencies are reused.
        timed "$t core tests build" cargo test "${profile[@]}" --target "$t" --no-run "${args[@]}"
        timed "$t core tests under QEMU" cargo test "${profile[@]}" --target "$t" "${args[@]}"
    fi

    if [ "$compare" = 1 ]; then
        timed "$t replay comparison" scripts/replay-compare.sh "$target_dir/$t/$dir/touchmove" "$target_dir/debug/touchmove"
    fi
done
