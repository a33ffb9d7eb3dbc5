#!/usr/bin/env bash
# build-image.sh - build (once) the qemu guest that runs the Linux kernel iSCSI initiator for the
# KernelInitiator*Test integration tests, and print the directory that holds it.
#
#   fio-tests/vm/build-image.sh            -> last stdout line: the image directory
#
# The guest is Debian bookworm from Debian packages only (debootstrap + apt, the packages in
# guest-packages.txt), cached OUTSIDE the repository in
#   ${NUMA_ISCSI_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numa-iscsi-target/vm}/<hash>/
# where <hash> covers guest-packages.txt, this script, guest-init.sh and guest-systemd-run.sh: changing any of them
# builds a new image (about 4 min cold; downloaded .debs are kept in ../debs), and older image
# directories are removed after a successful build. A cached image costs nothing. A failed build
# leaves build.<hash>/ (debootstrap.log, apt.log) until the next build.
# Two ways to boot it: PID 1 is guest-init.sh (the default: no systemd, no udev, seconds to the test), or with
# vminit=systemd on the kernel command line (run-vm.sh: VM_INIT=systemd) systemd, whose numa-iscsi-vmtest.service
# runs the test through guest-systemd-run.sh once multi-user.target is reached (the package tests).
# Directory contents: rootfs.ext4 (booted read-only with snapshot=on), vmlinux (the kernel's
# uncompressed ELF, booted through its PVH entry: no decompressor under TCG), initramfs.img
# (busybox + the modules needed to mount the virtio root disk: no udev), kernel-version, ready.
#
# Needs root (debootstrap, chroot) and the Debian package registry. Missing host tools
# (qemu-system-x86, debootstrap, socat, cpio, e2fsprogs, xz-utils) are installed with apt-get.
# Exit status: 0 ready; 1 the image cannot be built (the message says why).
set -euo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
SUITE=bookworm
MIRROR=${NUMA_ISCSI_VM_MIRROR:-http://deb.debian.org/debian}
BASE=${NUMA_ISCSI_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numa-iscsi-target/vm}

log() { echo "[build-image] $*" >&2; }
die() { echo "[build-image] cannot build the guest image: $*" >&2; exit 1; }

if [[ $(id -u) != 0 ]]; then
  # keep the caller's cache location when going through sudo
  command -v sudo >/dev/null && sudo -n true 2>/dev/null \
    || die "needs root (debootstrap, chroot) and sudo -n is not available"
  exec sudo -n env NUMA_ISCSI_VM_CACHE="$BASE" NUMA_ISCSI_VM_MIRROR="$MIRROR" "$0" "$@"
fi

# ---- host tools ---------------------------------------------------------------------------
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v socat >/dev/null || need+=(socat)
command -v cpio >/dev/null || need+=(cpio)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
command -v xz >/dev/null || need+=(xz-utils)
if (( ${#need[@]} )); then
  log "installing host tools: ${need[*]}"
  apt_opts=(-o DPkg::Lock::Timeout=600 -qq)
  apt-get "${apt_opts[@]}" update >&2 || die "apt-get update failed (no package registry?)"
  DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y --no-install-recommends \
    "${need[@]}" >/dev/null || die "apt-get install ${need[*]} failed (no package registry?)"
fi

# ---- cache key ------------------------------------------------------------------------------
PKGS=$(sed 's/#.*//' "$HERE/guest-packages.txt" | xargs)
[[ -n $PKGS ]] || die "guest-packages.txt lists no package"
hash=$( { echo "$SUITE $MIRROR"; cat "$HERE/guest-packages.txt" "$HERE/build-image.sh" "$HERE/guest-init.sh" \
          "$HERE/guest-systemd-run.sh"; } \
        | sha256sum | cut -c1-16)
DIR=$BASE/$hash
if [[ -f $DIR/ready ]]; then
  log "cached: $DIR"
  echo "$DIR"
  exit 0
fi

mkdir -p "$BASE/debs"
exec 9>"$BASE/build.lock"
flock 9   # another build of the same inputs may be running
if [[ -f $DIR/ready ]]; then echo "$DIR"; exit 0; fi

t0=$SECONDS
WORK=$BASE/build.$hash
TREE=$WORK/tree
unmount_tree() {
  local m
  for m in var/cache/apt/archives dev sys proc; do
    mountpoint -q "$TREE/$m" 2>/dev/null && umount -l "$TREE/$m"
  done
  return 0
}
trap unmount_tree EXIT
# a killed build can leave /dev, /proc, ... mounted in its tree: never rm -rf through them
remove_build_dir() {
  local d=$1 m
  for m in $(findmnt -rn -o TARGET | grep "^$d/" | sort -r); do umount -l "$m"; done
  ! findmnt -rn -o TARGET | grep -q "^$d/" || die "$d still has mounts; unmount them by hand"
  rm -rf --one-file-system "$d"
}
for old in "$BASE"/build.*/; do
  [[ -d $old ]] && remove_build_dir "${old%/}"
done
mkdir -p "$WORK"

# ---- root file system ------------------------------------------------------------------------
log "debootstrap $SUITE (minbase) from $MIRROR, then apt-get install the guest packages (a few minutes)"
debootstrap --variant=minbase --cache-dir="$BASE/debs" "$SUITE" "$TREE" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || die "debootstrap failed (no Debian package registry at $MIRROR?); tail of $WORK/debootstrap.log:
$(tail -n 15 "$WORK/debootstrap.log")"
log "debootstrap done after $((SECONDS - t0)) s"

mount -t proc proc "$TREE/proc"
mount -t sysfs sys "$TREE/sys"
mount --bind /dev "$TREE/dev"
mount --bind "$BASE/debs" "$TREE/var/cache/apt/archives"
cp -L /etc/resolv.conf "$TREE/etc/resolv.conf" 2>/dev/null || true
# no services start inside the chroot
printf '#!/bin/sh\nexit 101\n' >"$TREE/usr/sbin/policy-rc.d"
chmod +x "$TREE/usr/sbin/policy-rc.d"
# the generic initrd is never booted (initramfs.img below replaces it): keep it small and quick
mkdir -p "$TREE/etc/initramfs-tools/conf.d"
printf 'MODULES=list\nCOMPRESS=gzip\n' >"$TREE/etc/initramfs-tools/conf.d/numa-iscsi-vm"
# shellcheck disable=SC2086
{ chroot "$TREE" apt-get -qq update \
  && DEBIAN_FRONTEND=noninteractive chroot "$TREE" apt-get install -y -qq --no-install-recommends $PKGS; } \
  >"$WORK/apt.log" 2>&1 \
  || die "apt-get install in the guest tree failed; tail of $WORK/apt.log:
$(tail -n 15 "$WORK/apt.log")"
unmount_tree
rm -f "$TREE/usr/sbin/policy-rc.d"
rm -rf "$TREE"/var/lib/apt/lists/*
log "packages installed after $((SECONDS - t0)) s"

# ---- guest configuration -------------------------------------------------------------------
install -m 0755 "$HERE/guest-init.sh" "$TREE/sbin/numa-iscsi-vm-init"
install -m 0755 "$HERE/guest-systemd-run.sh" "$TREE/sbin/numa-iscsi-vm-systemd-run"
# booted with systemd: the test runs once the boot is done, its output on the serial console
cat >"$TREE/etc/systemd/system/numa-iscsi-vmtest.service" <<'UNIT'
[Unit]
Description=numa-iscsi-target guest test (/vmrun/test.sh, then power off)
After=multi-user.target

[Service]
Type=simple
ExecStart=/sbin/numa-iscsi-vm-systemd-run
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/ttyS0

[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$TREE/etc/systemd/system/multi-user.target.wants"
ln -sf ../numa-iscsi-vmtest.service "$TREE/etc/systemd/system/multi-user.target.wants/numa-iscsi-vmtest.service"
# no login prompts on the console the test writes to
ln -sf /dev/null "$TREE/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$TREE/etc/systemd/system/getty@tty1.service"
echo vmtest >"$TREE/etc/hostname"
printf '127.0.0.1 localhost vmtest\n' >"$TREE/etc/hosts"
: >"$TREE/etc/fstab"
# slirp with restrict=on has no DNS: name lookups must fail at once, not time out
: >"$TREE/etc/resolv.conf"
echo "InitiatorName=iqn.2026-11.io.numaiscsi:vm-initiator" >"$TREE/etc/iscsi/initiatorname.iscsi"
rm -rf "$TREE"/etc/iscsi/nodes/* "$TREE"/etc/iscsi/send_targets/*

# ---- kernel + initramfs -----------------------------------------------------------------------
kver=$(find "$TREE/boot" -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
[[ -n $kver ]] || die "no kernel in $TREE/boot"
grep -q '^CONFIG_PVH=y' "$TREE/boot/config-$kver" || die "kernel $kver cannot boot through PVH"
# the bzImage's payload is xz-compressed in Debian; qemu boots the ELF inside it directly
off=$(LC_ALL=C grep -aboP '\xfd7zXZ\x00' "$TREE/boot/vmlinuz-$kver" | head -n 1 | cut -d: -f1)
[[ -n $off ]] || die "no xz payload in vmlinuz-$kver"
tail -c +$((off + 1)) "$TREE/boot/vmlinuz-$kver" | xz -dc --single-stream >"$WORK/vmlinux" 2>/dev/null || true
[[ $(head -c 4 "$WORK/vmlinux" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] || die "vmlinuz-$kver payload is not an ELF"

ird=$WORK/initramfs
mkdir -p "$ird"/{bin,dev,proc,sys,root,mods}
cp "$TREE/bin/busybox" "$ird/bin/busybox"
for m in crc32c_generic virtio_pci virtio_blk ext4; do
  chroot "$TREE" modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
  cp "$TREE$ko" "$ird/mods/"
  echo "${ko##*/}"
done >"$ird/mods/order"
cat >"$ird/init" <<'EOF'
#!/bin/busybox sh
# initramfs of the numa-iscsi-target test guest: load virtio + ext4, mount /dev/vda, switch root
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
for m in $(cat /mods/order); do insmod "/mods/$m" 2>/dev/null; done
for i in $(seq 100); do [ -b /dev/vda ] && break; sleep 0.05; done
init=/sbin/numa-iscsi-vm-init
grep -qw vminit=systemd /proc/cmdline && init=/lib/systemd/systemd
mount -o rw /dev/vda /root || { echo "initramfs: cannot mount /dev/vda"; poweroff -f; }
umount /proc
mount --move /dev /root/dev
exec switch_root /root "$init"
EOF
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initramfs.img"

# ---- root disk image -----------------------------------------------------------------------------
used=$(du -sm "$TREE" | cut -f1)
log "making rootfs.ext4 (tree ${used} MiB + 512 MiB free)"
mkfs.ext4 -q -F -L vmroot -E root_owner=0:0 -d "$TREE" "$WORK/rootfs.ext4" "$((used + 512))M" \
  || die "mkfs.ext4 -d failed"

mkdir -p "$DIR"
mv "$WORK/rootfs.ext4" "$WORK/vmlinux" "$WORK/initramfs.img" "$DIR/"
echo "$kver" >"$DIR/kernel-version"
echo "$PKGS" >"$DIR/packages"
echo "$((SECONDS - t0))" >"$DIR/build-seconds"
touch "$DIR/ready"
remove_build_dir "$WORK"
# older images (other inputs) are not needed any more
find "$BASE" -mindepth 1 -maxdepth 1 -type d -regextype egrep -regex '.*/[0-9a-f]{16}' ! -path "$DIR" \
  -exec rm -rf {} +
log "image ready after $((SECONDS - t0)) s: $DIR (kernel $kver)"
echo "$DIR"
