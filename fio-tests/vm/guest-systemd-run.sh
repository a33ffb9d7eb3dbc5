#!/bin/bash
# The guest test runner when the guest boots systemd as PID 1 (run-vm.sh with VM_INIT=systemd; the kernel
# command line's vminit=systemd makes the initramfs exec /lib/systemd/systemd instead of guest-init.sh).
# numa-iscsi-vmtest.service (build-image.sh) starts it once the boot reached multi-user.target: it mounts the
# 9p run directory on /vmrun, runs /vmrun/test.sh with its output on the serial console, prints
# "VM-EXIT-STATUS=<rc>" and powers off at once, exactly as guest-init.sh does for the other guest tests.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
cd /
echo "vm-systemd-run: systemd reached multi-user.target at $(cut -d' ' -f1 /proc/uptime) s"

power_off() {
  echo "VM-EXIT-STATUS=$1"
  sync
  mountpoint -q /vmrun && umount /vmrun
  echo o >/proc/sysrq-trigger
  sleep 10
  echo b >/proc/sysrq-trigger   # qemu runs with -no-reboot: a reboot ends it too
  sleep infinity
}

modprobe -q -a 9pnet_virtio 9p
mkdir -p /vmrun
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmrun /vmrun \
  || { echo "vm-systemd-run: cannot mount the 9p run directory"; power_off 125; }
[ -f /vmrun/test.sh ] || { echo "vm-systemd-run: /vmrun/test.sh missing"; power_off 125; }
mkdir -p /vmrun/out
set -a
[ -f /vmrun/env ] && . /vmrun/env
set +a
echo "vm-systemd-run: test.sh starts at $(cut -d' ' -f1 /proc/uptime) s"
bash /vmrun/test.sh </dev/null 2>&1
rc=$?
echo "vm-systemd-run: test.sh exited $rc at $(cut -d' ' -f1 /proc/uptime) s"
power_off "$rc"
