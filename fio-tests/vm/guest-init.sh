#!/bin/bash
# PID 1 of the test guest (/sbin/numa-iscsi-vm-init, put there by build-image.sh). No systemd,
# no udev: mount the basics, bring up the slirp network statically, mount the run directory
# (9p tag "vmrun", prepared by run-vm.sh) on /vmrun, run /vmrun/test.sh with its output on the
# serial console, print "VM-EXIT-STATUS=<rc>" and power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
cd /

mnt() { mountpoint -q "$3" 2>/dev/null || { mkdir -p "$3"; mount -t "$1" -o "$2" "$1" "$3"; }; }
mnt proc defaults /proc
mnt sysfs defaults /sys
mnt devtmpfs defaults /dev
mnt devpts gid=5,mode=620 /dev/pts
mnt tmpfs defaults /dev/shm
mnt tmpfs mode=755 /run
mnt tmpfs defaults /tmp
mount -o remount,rw /
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mkdir -p /run/lock
hostname vmtest
echo "vm-init: kernel $(uname -r) up at $(cut -d' ' -f1 /proc/uptime) s"

power_off() {
  echo "VM-EXIT-STATUS=$1"
  sync
  mountpoint -q /vmrun && umount /vmrun
  echo o >/proc/sysrq-trigger
  sleep 10
  echo b >/proc/sysrq-trigger   # qemu runs with -no-reboot: a reboot ends it too
  sleep infinity
}

# slirp: the guest is 10.0.2.15; with restrict=on only the guestfwd portal 10.0.2.100 answers
modprobe -q virtio_net
for _ in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2 dev eth0

modprobe -q -a 9pnet_virtio 9p
mkdir -p /vmrun
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmrun /vmrun \
  || { echo "vm-init: cannot mount the 9p run directory"; power_off 125; }
[ -f /vmrun/test.sh ] || { echo "vm-init: /vmrun/test.sh missing"; power_off 125; }
mkdir -p /vmrun/out
set -a
[ -f /vmrun/env ] && . /vmrun/env
set +a
echo "vm-init: test.sh starts at $(cut -d' ' -f1 /proc/uptime) s"
bash /vmrun/test.sh </dev/null 2>&1
rc=$?
echo "vm-init: test.sh exited $rc at $(cut -d' ' -f1 /proc/uptime) s"
power_off "$rc"
