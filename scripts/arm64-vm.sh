#!/usr/bin/env bash
# Boots a real arm64 Debian 12 under qemu-system-aarch64 (the `virt` machine,
# a Cortex-A72, no KVM), installs the arm64 package in it, runs the daemon
# as the packaged systemd service and checks it from the host:
#
#   - the unit comes up (Type=notify: READY=1 reached systemd), runs as the
#     touchmove user with no capabilities, no new privileges and a seccomp
#     filter; `systemd-analyze security` rates it in the guest;
#   - from the host, through QEMU's port forwarding: GET /health is ok,
#     GET /events delivers a move, GET /game.pgn has the move;
#   - the watchdog: the daemon is frozen (SIGSTOP), systemd must kill it for
#     the watchdog and restart it, and /health answers again.
#
#   scripts/arm64-vm.sh [--install-deps] [PACKAGE.deb | --rootfs-only]
#
# Without an argument it takes the newest target/debian/touchmove_*_arm64.deb
# (scripts/cross-build.sh --deb arm64 makes one). The root file system is
# built once with mmdebstrap from Debian's arm64 packages (linux-image-arm64
# included) and cached under target/arm64-vm/; delete that folder to rebuild
# it. Needs root (mmdebstrap, mke2fs -d of a root-owned tree) and
# qemu-system-arm, qemu-user-static (binfmt, for mmdebstrap's foreign
# architecture), mmdebstrap, e2fsprogs, cpio, curl; `--install-deps`
# installs them.
#
# Environment: TOUCHMOVE_VM_CACHE (default target/arm64-vm), TOUCHMOVE_VM_PORT (host port for the daemon's 8080, default
# 18080), TOUCHMOVE_VM_SMP (default 2), TOUCHMOVE_VM_MIRROR.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [ "${1:-}" = --install-deps ]; then
    shift
    apt-get update -qq
    # qemu-user-static's binfmt handlers carry the F flag, so they work in
    # mmdebstrap's chroot; it replaces qemu-user-binfmt.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        qemu-system-arm qemu-user-static mmdebstrap e2fsprogs curl cpio
fi

started=$(date +%s)
say() { printf '[arm64-vm %4ds] %s\n' $(($(date +%s) - started)) "$*"; }
die() {
    say "FAIL: $*"
    exit 1
}

cache=${TOUCHMOVE_VM_CACHE:-target/arm64-vm}
mkdir -p "$cache"
port=${TOUCHMOVE_VM_PORT:-18080}
ctlport=$((port + 1))
smp=${TOUCHMOVE_VM_SMP:-2}
mirror=${TOUCHMOVE_VM_MIRROR:-http://deb.debian.org/debian}

for tool in qemu-system-aarch64 mmdebstrap mke2fs curl; do
    command -v "$tool" >/dev/null || die "$tool missing (run with --install-deps)"
done

# --- 1. The root file system (cached) ----------------------------------------
# The binfmt handler for arm64 must be registered for mmdebstrap to run the
# packages' scripts.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt"
    [ -e "$binfmt/qemu-aarch64" ] || cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$binfmt/register"
fi

# Debian's initramfs is not built in the chroot (mkinitramfs under user-mode
# QEMU takes the better part of an hour): update-initramfs is diverted to a
# no-op there, and a small initramfs is made here instead from the root file
# system's busybox-static and the modules the virt machine needs to mount it.
if [ ! -d "$cache/rootfs" ] || [ ! -f "$cache/vmlinuz" ]; then
    say "building the arm64 root file system with mmdebstrap (once; cached in $cache)"
    rm -rf "$cache/rootfs.part"
    mmdebstrap --arch=arm64 --variant=minbase --quiet \
        --essential-hook='chroot "$1" dpkg-divert --local --rename --add /usr/sbin/update-initramfs' \
        --essential-hook='ln -s /bin/true "$1/usr/sbin/update-initramfs"' \
        --include=systemd-sysv,udev,dbus,kmod,linux-image-arm64,busybox-static,adduser,iproute2,procps \
        --customize-hook='echo touchmove-arm64 > "$1/etc/hostname"' \
        --customize-hook='echo "/dev/vda / ext4 rw,discard 0 1" > "$1/etc/fstab"' \
        --customize-hook='printf "[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n" > "$1/etc/systemd/network/10-wired.network"' \
        --customize-hook='chroot "$1" systemctl enable systemd-networkd' \
        --customize-hook='chroot "$1" passwd -d root' \
        --customize-hook="cp \"\$1\"/boot/vmlinuz-* $root/$cache/vmlinuz" \
        bookworm "$cache/rootfs.part" "$mirror" ||
        die "mmdebstrap failed"
    mv "$cache/rootfs.part" "$cache/rootfs"
    rm -f "$cache/initrd.img"
    say "root file system ready: $(du -sh "$cache/rootfs" 2>/dev/null | cut -f1)"
else
    say "cached root file system: $cache/rootfs"
fi

if [ ! -f "$cache/initrd.img" ]; then
    command -v cpio >/dev/null || die "cpio missing (run with --install-deps)"
    rfs=$cache/rootfs
    kver=$(ls "$rfs/usr/lib/modules" | head -n 1)
    mods=$rfs/usr/lib/modules/$kver
    ird=$(mktemp -d)
    mkdir -p "$ird/bin" "$ird/mods"
    cp "$rfs/bin/busybox" "$ird/bin/busybox"
    # virtio-mmio and virtio-blk for /dev/vda, ext4 with what it needs; in
    # load order (modules.dep lists a module's dependencies after it).
    order=
    for m in virtio_mmio virtio_blk crc32c_generic libcrc32c crc16 mbcache jbd2 ext4; do
        f=$(sed -n "s|^\(kernel/.*/$m\.ko[^:]*\):.*|\1|p" "$mods/modules.dep")
        [ -n "$f" ] || continue
        cp "$mods/$f" "$ird/mods/"
        order="$order $(basename "$f")"
    done
    cat >"$ird/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in$order; do insmod /mods/\$m 2>/dev/null; done
for i in \$(seq 1 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mount -t ext4 -o rw /dev/vda /newroot || { echo "initramfs: cannot mount /dev/vda"; exec sh; }
umount /proc /sys
exec switch_root /newroot /sbin/init
INIT
    chmod 755 "$ird/init"
    (cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$cache/initrd.img"
    rm -rf "$ird"
    say "initramfs: busybox and$order"
fi

[ "${1:-}" != --rootfs-only ] || exit 0

deb=${1:-$(ls -t target/debian/touchmove_*_arm64.deb 2>/dev/null | head -n 1 || true)}
[ -n "$deb" ] && [ -f "$deb" ] || die "no arm64 package (scripts/cross-build.sh --deb arm64)"
dpkg-deb -f "$deb" Architecture | grep -qx arm64 || die "$deb is not an arm64 package"

# --- 2. The disk: the cached tree, the package and the check ----------------
tree=$(mktemp -d "$root/$cache/tree.XXXXXX")
qemu_pid=
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    rm -rf "$tree"
    # The disk is made again on every run; only the root file system is kept.
    [ -z "$qemu_pid" ] || { sleep 1; rm -f "$cache/disk.img"; }
}
trap cleanup EXIT
cp -a "$cache/rootfs/." "$tree/"
install -m 644 "$deb" "$tree/root/touchmove.deb"

# The guest's side: install, configure the demo, start, report; then wait
# for the host's word (a line on the control port) for the watchdog test.
cat >"$tree/usr/local/sbin/touchmove-vm-check" <<'GUEST'
#!/bin/sh
# Runs once at boot in the arm64 guest; its output goes to the serial console.
set -u
say() { echo "VM: $*"; }
ctl=
for d in /sys/class/virtio-ports/*; do
    [ "$(cat "$d/name" 2>/dev/null)" = touchmove.ctl ] && ctl=/dev/$(basename "$d")
done
say "uname: $(uname -srm); cpu: $(grep -m1 -i 'cpu part' /proc/cpuinfo)"
say "installing $(dpkg-deb -f /root/touchmove.deb Package Version Architecture | tr '\n' ' ')"
dpkg -i /root/touchmove.deb || { say "RESULT dpkg-failed"; exit 1; }
say "binary: $(od -An -tx1 -j18 -N2 /usr/bin/touchmove | tr -d ' ') (e_machine b700 = aarch64)"
# The demo through the packaged unit: only ExecStart changes (a drop-in),
# every hardening setting stays. The simulated board plays a corpus game
# at 8x speed, journalled in the state directory, served to the host.
mkdir -p /etc/systemd/system/touchmove.service.d
cat > /etc/systemd/system/touchmove.service.d/demo.conf <<EOF
[Service]
ExecStart=
ExecStart=/usr/bin/touchmove run --demo --speed 8 --seed 7 --bind 0.0.0.0:8080 --journal /var/lib/touchmove/journal.sqlite --token-file /etc/touchmove/http-token
EOF
systemctl daemon-reload
t0=$(date +%s%N)
systemctl enable --now touchmove.service; rc=$?
t1=$(date +%s%N)
say "enable --now: rc=$rc after $(( (t1 - t0) / 1000000 )) ms (Type=notify: returns once READY=1 came)"
props=Type,NotifyAccess,WatchdogUSec,ActiveState,SubState,Result,NRestarts,MainPID,User,StatusErrno
systemctl show touchmove.service -p $props | sed 's/^/VM: show /'
pid=$(systemctl show touchmove.service -p MainPID --value)
if [ "$pid" -gt 0 ] 2>/dev/null; then
    say "process: user=$(ps -o user= -p "$pid") $(grep -E '^(NoNewPrivs|Seccomp|CapEff|CapBnd):' /proc/"$pid"/status | tr '\t\n' '  ')"
fi
systemd-analyze security touchmove.service 2>/dev/null | tail -n 1 | sed 's/^/VM: security /'
journalctl -u touchmove.service --no-pager -n 5 -o cat | sed 's/^/VM: log /'
say "SERVICE-UP $(systemctl is-active touchmove.service)"

# The host checks the HTTP endpoints, then writes a line on the control port.
# (A read while the host is not connected ends at once: try again.)
word=
for i in $(seq 1 900); do
    [ -n "$ctl" ] && read -r word < "$ctl" && [ -n "$word" ] && break
    sleep 1
done
say "host says: ${word:-nothing}"
say "freezing the daemon (SIGSTOP to $pid): the watchdog must restart it"
before=$(systemctl show touchmove.service -p NRestarts --value)
stopped=$(date +%s)
kill -STOP "$pid"
for i in $(seq 1 240); do
    sleep 1
    now=$(systemctl show touchmove.service -p NRestarts --value)
    [ "$now" != "$before" ] && [ "$(systemctl is-active touchmove.service)" = active ] && break
done
say "after $(( $(date +%s) - stopped )) s: NRestarts $before -> $now, $(systemctl is-active touchmove.service), new MainPID $(systemctl show touchmove.service -p MainPID --value)"
journalctl -u touchmove.service --no-pager -o cat | grep -i -m 3 -e watchdog -e 'core-dump' -e 'ABRT' | sed 's/^/VM: log /'
if [ "$now" != "$before" ]; then say "WATCHDOG-RESTARTED"; else say "WATCHDOG-FAILED"; fi
say "DONE"
GUEST
chmod 755 "$tree/usr/local/sbin/touchmove-vm-check"
cat >"$tree/etc/systemd/system/touchmove-vm-check.service" <<'UNIT'
[Unit]
Description=touchmove arm64 VM check
After=network-online.target systemd-networkd-wait-online.service
Wants=network-online.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/touchmove-vm-check
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyAMA0

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/touchmove-vm-check.service \
    "$tree/etc/systemd/system/multi-user.target.wants/touchmove-vm-check.service"
# No login prompt on the console (it would interleave with the report).
ln -sf /dev/null "$tree/etc/systemd/system/serial-getty@ttyAMA0.service"

rm -f "$cache/disk.img"
truncate -s 3G "$cache/disk.img"
mke2fs -q -t ext4 -d "$tree" -L root "$cache/disk.img" || die "mke2fs failed"
rm -rf "$tree"
say "disk ready with $(basename "$deb")"

# --- 3. Boot -------------------------------------------------------------
log=$cache/serial.log
: >"$log"
qemu-system-aarch64 -machine virt -cpu cortex-a72 -smp "$smp" -m 1024 \
    -nographic -monitor none -serial "file:$log" \
    -kernel "$cache/vmlinuz" -initrd "$cache/initrd.img" \
    -append "root=/dev/vda rw console=ttyAMA0 quiet systemd.show_status=0 net.ifnames=0" \
    -drive "file=$cache/disk.img,format=raw,if=none,id=hd" -device virtio-blk-device,drive=hd \
    -netdev "user,id=net,hostfwd=tcp:127.0.0.1:$port-:8080" -device virtio-net-device,netdev=net \
    -device virtio-serial-device \
    -chardev "socket,id=ctl,host=127.0.0.1,port=$ctlport,server=on,wait=off" \
    -device virtserialport,chardev=ctl,name=touchmove.ctl \
    </dev/null >"$cache/qemu.log" 2>&1 &
qemu_pid=$!
say "booting (qemu-system-aarch64 pid $qemu_pid, serial log $log)"

wait_for() { # PATTERN SECONDS
    local i
    for ((i = 0; i < $2; i++)); do
        grep -q "$1" "$log" && return 0
        kill -0 "$qemu_pid" 2>/dev/null || return 1
        sleep 1
    done
    return 1
}
wait_for 'VM: SERVICE-UP' 900 || {
    tail -n 40 "$log"
    die "the service did not come up"
}
say "guest: service up"
grep '^VM: ' "$log" | sed 's/\r$//'
grep -q 'VM: SERVICE-UP active' "$log" || die "the unit is not active"
grep -q 'VM: show Type=notify' "$log" || die "the unit is not Type=notify"

# --- 4. From the host ----------------------------------------------------
base=http://127.0.0.1:$port
health=$(curl -fsS --max-time 30 "$base/health") || die "/health did not answer"
say "GET /health: $health"
case $health in *'"status":"ok"'*) ;; *) die "/health is not ok" ;; esac
say "GET /events: waiting for a move"
events=$(curl -sS -N --max-time 240 "$base/events" 2>/dev/null | grep -m 1 '"type":"move"' || true)
[ -n "$events" ] || die "no move on /events within 240 s"
say "move on /events: ${events:0:200}"
pgn=$(curl -fsS --max-time 30 "$base/game.pgn") || die "/game.pgn did not answer"
echo "$pgn" | grep -q '^1\. ' || die "/game.pgn holds no move: $pgn"
say "GET /game.pgn: $(echo "$pgn" | grep -m 1 '^1\. ')"

# --- 5. The watchdog -------------------------------------------------------
exec 3<>"/dev/tcp/127.0.0.1/$ctlport" || die "no control port"
echo "http-checked" >&3
wait_for 'VM: DONE' 300 || die "the guest did not finish the watchdog test"
grep '^VM: ' "$log" | sed -n '/host says/,$p' | sed 's/\r$//'
grep -q 'VM: WATCHDOG-RESTARTED' "$log" || die "the watchdog did not restart the daemon"
health=$(curl -fsS --max-time 60 --retry 10 --retry-delay 3 --retry-all-errors "$base/health") ||
    die "/health did not answer after the restart"
say "GET /health after the watchdog restart: $health"
exec 3>&-

say "PASS in $(($(date +%s) - started)) s"
