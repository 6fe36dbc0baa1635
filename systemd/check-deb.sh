#!/bin/sh
# Builds the Debian package with `cargo deb` and checks what it holds.
#
#   systemd/check-deb.sh                  build (release: slow), then check
#   systemd/check-deb.sh --target TRIPLE  cross-build for the Pi, then check
#                                         (see scripts/cross-build.sh)
#   systemd/check-deb.sh FILE.deb         check an existing package
#
# Needs cargo-deb (`cargo install cargo-deb`) and dpkg-deb. Exits non-zero and
# names every missing or wrong entry. The package's Architecture must be the
# one its binary was built for (ELF class and machine, the dynamic loader).
set -eu

cd "$(dirname "$0")/.."

if [ "${1:-}" = --target ]; then
    [ $# -ge 2 ] || { echo "check-deb: --target needs a triple" >&2; exit 2; }
    export RUSTC="${RUSTC:-/usr/bin/rustc}"
    case $2 in
        aarch64-unknown-linux-gnu) gnu=aarch64-linux-gnu ;;
        armv7-unknown-linux-gnueabihf) gnu=arm-linux-gnueabihf ;;
        *) echo "check-deb: unknown target $2" >&2; exit 2 ;;
    esac
    tu=$(echo "$2" | tr - _)
    export "CC_$tu=$gnu-gcc" "AR_$tu=$gnu-ar"
    deb=$(cargo deb --target "$2" | grep '\.deb$' | tail -n 1)
elif [ $# -ge 1 ]; then
    deb=$1
else
    # cargo deb prints the paths it wrote: the .deb and the -dbgsym.ddeb.
    deb=$(cargo deb | grep '\.deb$' | tail -n 1)
fi
[ -f "$deb" ] || { echo "check-deb: no package at '$deb'" >&2; exit 1; }

contents=$(mktemp)
control=$(mktemp -d)
trap 'rm -rf "$contents" "$control"' EXIT
dpkg-deb -c "$deb" > "$contents"
dpkg-deb -e "$deb" "$control"

failures=0
fail() {
    echo "check-deb: $*" >&2
    failures=$((failures + 1))
}

# expect MODE PATH: a file with this mode (as `dpkg-deb -c` prints it) and path.
expect() {
    if ! awk -v mode="$1" -v path="./$2" \
        '$1 == mode && $NF == path { found = 1 } END { exit !found }' "$contents"; then
        fail "missing $1 $2"
    fi
}

expect -rwxr-xr-x usr/bin/touchmove
expect -rw-r--r-- usr/lib/systemd/system/touchmove.service
expect -rw-r--r-- etc/touchmove/touchmove.toml
expect -rw-r--r-- usr/share/touchmove/hw/README.md
expect -rw-r--r-- usr/share/doc/touchmove/README.systemd.md
expect -rw-r--r-- usr/share/doc/touchmove/calibration.md
expect -rw-r--r-- usr/share/doc/touchmove/copyright
expect -rw-r--r-- usr/share/doc/touchmove/examples/touchmove-hall.service
expect -rw-r--r-- usr/share/doc/touchmove/examples/mosquitto/touchmove.conf
expect -rw-r--r-- usr/share/doc/touchmove/examples/mosquitto/touchmove.acl
for profile in hw/*.toml; do
    expect -rw-r--r-- "usr/share/touchmove/$profile"
done

# The board profile the example configuration names is shipped.
board=$(sed -n 's/^profile = "\(\/usr\/share\/touchmove\/hw\/[^"]*\)"$/\1/p' systemd/touchmove.toml)
[ -n "$board" ] || fail "no [board] profile under /usr/share/touchmove/hw/ in systemd/touchmove.toml"
[ -z "$board" ] || grep -q " \.$board\$" "$contents" || fail "example board profile $board not in the package"

# The packaged unit is the one in the source tree.
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/systemd/system/touchmove.service |
    cmp -s - systemd/touchmove.service || fail "packaged unit differs from systemd/touchmove.service"

# The architecture: the control field, the file name and the binary agree.
# ELF header: byte 4 is the class (1: 32-bit, 2: 64-bit), bytes 18-19 the
# machine (little-endian: 0x3e x86-64, 0xb7 AArch64, 0x28 ARM).
arch=$(dpkg-deb -f "$deb" Architecture)
case $arch in
    amd64) want_elf="2 3e" want_interp=/lib64/ld-linux-x86-64.so.2 ;;
    arm64) want_elf="2 b7" want_interp=/lib/ld-linux-aarch64.so.1 ;;
    armhf) want_elf="1 28" want_interp=/lib/ld-linux-armhf.so.3 ;;
    *) fail "unexpected Architecture: $arch" ; want_elf="" want_interp="" ;;
esac
case $(basename "$deb") in
    *_"$arch".deb) ;;
    *) fail "file name $(basename "$deb") does not end in _$arch.deb" ;;
esac
bin=$control/touchmove.bin
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/touchmove >"$bin"
elf=$(od -An -tx1 -j4 -N1 "$bin" | tr -d ' ')" "$(od -An -tx1 -j18 -N1 "$bin" | tr -d ' ')
elf="$(echo "$elf" | sed 's/^0//')"
[ -z "$want_elf" ] || [ "$elf" = "$want_elf" ] ||
    fail "usr/bin/touchmove is ELF class/machine '$elf', not '$want_elf' for $arch"
if [ -n "$want_interp" ] && command -v readelf >/dev/null 2>&1; then
    readelf -l "$bin" | grep -q "interpreter: $want_interp\]" ||
        fail "usr/bin/touchmove does not use $want_interp"
    # armhf: the hard-float ABI that Raspberry Pi OS (32-bit) and Debian use.
    [ "$arch" != armhf ] || readelf -h "$bin" | grep -q 'hard-float ABI' ||
        fail "usr/bin/touchmove is not built for the hard-float ABI"
fi
rm -f "$bin"

# The configuration is a conffile; the scripts create the user and carry the
# systemd hooks (daemon-reload, try-restart on upgrade, never enable).
grep -qx /etc/touchmove/touchmove.toml "$control/conffiles" || fail "touchmove.toml is not a conffile"
grep -q 'adduser --system --group' "$control/postinst" || fail "postinst does not create the user"
grep -q 'deb-systemd-helper' "$control/postinst" || fail "postinst lacks the systemd unit hooks"
grep -q 'try-restart' "$control/postinst" || fail "postinst does not restart a running service on upgrade"
# cargo-deb's "don't enable" hook re-enables on upgrade only a unit the admin
# had enabled; its "enable" hook would enable it on first install.
grep -q 'deb-systemd-helper debian-installed touchmove.service' "$control/postinst" ||
    fail "postinst enables the unit before the board is configured"
grep -q 'adduser' "$control/control" || fail "the package does not depend on adduser"

# Nothing unexpected: every file is one of the above or part of Debian's layout.
unexpected=$(awk '$1 !~ /^d/ { print $NF }' "$contents" |
    grep -v -e '^\./usr/bin/touchmove$' \
        -e '^\./usr/lib/systemd/system/touchmove\.service$' \
        -e '^\./etc/touchmove/touchmove\.toml$' \
        -e '^\./usr/share/touchmove/hw/' \
        -e '^\./usr/share/doc/touchmove/' || true)
[ -z "$unexpected" ] || fail "unexpected files: $unexpected"

if [ "$failures" -ne 0 ]; then
    echo "check-deb: $deb: $failures problem(s)" >&2
    exit 1
fi
echo "check-deb: $deb: ok ($arch, ELF class/machine $elf)"
dpkg-deb -c "$deb"
