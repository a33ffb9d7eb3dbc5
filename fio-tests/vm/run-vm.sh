#!/usr/bin/env bash
# run-vm.sh - boot the test guest (build-image.sh) under qemu and run one guest test script in it
# against an iSCSI target listening on 127.0.0.1:PORT on this host; exit with the script's status.
#
#   fio-tests/vm/run-vm.sh PORT RUNDIR GUEST_SCRIPT
#
# RUNDIR (created if missing) is the guest's /vmrun over 9p: test.sh, lib.sh (guest/lib.sh) and
# env are copied there; the guest writes its results to /vmrun/out = RUNDIR/out, and
# RUNDIR/serial.log gets the serial console with host-side timestamps (also echoed to stdout).
# Guest environment: PORTAL=10.0.2.100:3260 and every host variable GUEST_* as VM_* (GUEST_IQN ->
# VM_IQN), so a test gets its parameters without an image rebuild. With GUEST_PORT2 set, a second
# forward 10.0.2.100:3261 leads to 127.0.0.1:$GUEST_PORT2 (PORTAL2 in the guest): a second gateway; GUEST_PORT3
# likewise 10.0.2.100:3262 (PORTAL3), a third.
#
# Network: slirp with restrict=on, so the guest reaches nothing but 10.0.2.100:3260, where every
# TCP connection (discovery, login, re-login) runs its own `socat STDIO TCP:127.0.0.1:PORT`: the
# host side only ever connects to the target on loopback. slirp gives socat the guest's connection as
# stdin, stdout AND stderr, so socat logs to RUNDIR/socat.log (-lf): otherwise its "Connection
# refused" while the target is down would reach the initiator as iSCSI bytes. slirp has accepted the
# guest's connection before socat runs, so while the target is down socat retries its connect (every
# 0.5 s for up to 60 s, longer than iscsid's 15 s login timeout) instead of closing at once: a real
# network refuses a connection or stays silent, and the guest's open-iscsi 2.1.8 can loop for ever on
# "can't bind conn ... retcode -107" after a connection that was accepted and closed mid-login (seen
# in HaMultipathGuestTest, gateway A down 22 s). The initiator now sees a login that times out.
# Machine: TCG (KVM is unusable on this host), 2 vCPUs and 2 GiB (VM_MEM) split over 2 NUMA nodes (one vCPU
# and half the memory each).
#
# Env: VM_IMAGE   image directory (default: what build-image.sh prints, building it if needed)
#      VM_TIMEOUT seconds before qemu is killed (default 600)
#      VM_QUIET=1 do not echo the serial console
#      VM_MEM     guest memory in MiB, an even number from 256 up (default 2048), split over the guest's 2 nodes
#      VM_INIT=systemd boot systemd as PID 1 (guest-systemd-run.sh runs the script); default: guest-init.sh
# Exit: the guest script's status; 124 timeout; 125 no status from the guest (boot or harness).
set -uo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
(( $# == 3 )) || { sed -n '2,6p' "$0" >&2; exit 2; }
PORT=$1 RUNDIR=$2 SCRIPT=$3
[[ $PORT =~ ^[0-9]+$ ]] || { echo "run-vm: PORT must be a number: $PORT" >&2; exit 2; }
[[ -f $SCRIPT ]] || { echo "run-vm: no guest script $SCRIPT" >&2; exit 2; }
IMAGE=${VM_IMAGE:-$("$HERE/build-image.sh" | tail -n 1)} || exit 125
for f in vmlinux initramfs.img rootfs.ext4 ready; do
  [[ -f $IMAGE/$f ]] || { echo "run-vm: $IMAGE/$f missing: run build-image.sh" >&2; exit 125; }
done
command -v socat >/dev/null || { echo "run-vm: socat missing: run build-image.sh" >&2; exit 125; }

mkdir -p "$RUNDIR/out"
RUNDIR=$(cd "$RUNDIR" && pwd)
# qemu splits -netdev at commas and slirp splits the guestfwd command at blanks and quotes
[[ $RUNDIR != *[,\'\"[:space:]]* ]] || { echo "run-vm: RUNDIR must not hold a comma, quote or blank: $RUNDIR" >&2; exit 2; }
LOG=$RUNDIR/serial.log
cp "$SCRIPT" "$RUNDIR/test.sh"
cp "$HERE/guest/lib.sh" "$RUNDIR/lib.sh"
{
  echo "PORTAL=10.0.2.100:3260"
  [[ -n ${GUEST_PORT2:-} ]] && echo "PORTAL2=10.0.2.100:3261"
  [[ -n ${GUEST_PORT3:-} ]] && echo "PORTAL3=10.0.2.100:3262"
  while IFS='=' read -r k _; do
    [[ $k == GUEST_* ]] && printf 'VM_%s=%q\n' "${k#GUEST_}" "${!k}"
  done < <(env)
} >"$RUNDIR/env"

# ",," is qemu's escaped comma: socat's address options
RETRY=",,retry=120,,interval=0.5"
FWD="guestfwd=tcp:10.0.2.100:3260-cmd:socat -lf $RUNDIR/socat.log STDIO TCP:127.0.0.1:$PORT$RETRY"
if [[ -n ${GUEST_PORT2:-} ]]; then
  [[ $GUEST_PORT2 =~ ^[0-9]+$ ]] || { echo "run-vm: GUEST_PORT2 must be a number: $GUEST_PORT2" >&2; exit 2; }
  FWD+=",guestfwd=tcp:10.0.2.100:3261-cmd:socat -lf $RUNDIR/socat2.log STDIO TCP:127.0.0.1:$GUEST_PORT2$RETRY"
fi
if [[ -n ${GUEST_PORT3:-} ]]; then
  [[ $GUEST_PORT3 =~ ^[0-9]+$ ]] || { echo "run-vm: GUEST_PORT3 must be a number: $GUEST_PORT3" >&2; exit 2; }
  FWD+=",guestfwd=tcp:10.0.2.100:3262-cmd:socat -lf $RUNDIR/socat3.log STDIO TCP:127.0.0.1:$GUEST_PORT3$RETRY"
fi
MEM=${VM_MEM:-2048}
[[ $MEM =~ ^[0-9]+$ ]] && (( MEM >= 256 && MEM % 2 == 0 )) || { echo "run-vm: VM_MEM must be an even number of MiB from 256 up: $MEM" >&2; exit 2; }
QEMU=(qemu-system-x86_64 -accel tcg,thread=multi,tb-size=256 -cpu max -machine q35 -smp 2 -m "$MEM"
  -object "memory-backend-ram,id=m0,size=$((MEM / 2))M" -numa node,nodeid=0,cpus=0,memdev=m0
  -object "memory-backend-ram,id=m1,size=$((MEM / 2))M" -numa node,nodeid=1,cpus=1,memdev=m1
  -nodefaults -display none -no-reboot -serial stdio
  -kernel "$IMAGE/vmlinux" -initrd "$IMAGE/initramfs.img"
  -append "console=ttyS0 root=/dev/vda rw panic=1 net.ifnames=0 quiet loglevel=4${VM_INIT:+ vminit=$VM_INIT}"
  -drive "file=$IMAGE/rootfs.ext4,if=virtio,format=raw,snapshot=on"
  -netdev "user,id=n0,restrict=on,$FWD"
  -device virtio-net-pci,netdev=n0
  -fsdev "local,id=run,path=$RUNDIR,security_model=none" -device virtio-9p-pci,fsdev=run,mount_tag=vmrun
  -device virtio-rng-pci)
printf '%q ' "${QEMU[@]}" >"$RUNDIR/qemu-cmdline"
echo >>"$RUNDIR/qemu-cmdline"

t0=${EPOCHREALTIME/[.,]/}
: >"$LOG"
{
  timeout -k 10 "${VM_TIMEOUT:-600}" "${QEMU[@]}" </dev/null 2>&1
  echo "[host] qemu exit status $?"
} | while IFS= read -r line || [[ -n $line ]]; do
  us=$(( ${EPOCHREALTIME/[.,]/} - t0 ))
  printf -v line '[%4d.%03d] %s' $((us / 1000000)) $((us / 1000 % 1000)) "${line//$'\r'/}"
  echo "$line" >>"$LOG"
  [[ ${VM_QUIET:-0} == 1 ]] || echo "$line"
done
secs=$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000000 ))
rc=$(sed -n 's/.*VM-EXIT-STATUS=\([0-9]*\).*/\1/p' "$LOG" | tail -n 1)
if [[ -z $rc ]]; then
  qrc=$(sed -n 's/.*\[host\] qemu exit status \([0-9]*\).*/\1/p' "$LOG" | tail -n 1)
  [[ $qrc == 124 || $qrc == 137 ]] && rc=124 || rc=125
  echo "run-vm: no exit status from the guest after ${secs} s (qemu status ${qrc:-?}); log $LOG" >&2
else
  echo "run-vm: guest test exit status $rc after ${secs} s; log $LOG" >&2
fi
exit "$rc"
