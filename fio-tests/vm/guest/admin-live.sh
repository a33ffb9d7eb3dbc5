#!/bin/bash
# Guest test (AdminGuestTest): live administration with the kernel initiator logged in. While a fio
# verify loop runs on LUN 0 (behind an ext4 file system on the same LUN), the host, through
# numa-iscsi-admin: adds LUN 1 (the guest rescans, writes ext4 on it), grows it (the guest sees the
# new size, grows the file system), removes it (after the guest let go of it), adds LUN 2, saves the
# config and restarts the daemon: SIGTERM asks this initiator to log out, iscsid logs in again once
# the daemon is back, LUN 2 is still there, and neither the fio loop nor the file system saw an error.
# Env from the host: VM_IQN, VM_LUN1_BYTES, VM_LUN1_GROWN_BYTES, VM_LUN2_BYTES.
. /vmrun/lib.sh
IQN=$VM_IQN
MNT=/mnt/lun0
FIO_FAILED=/tmp/fio-failed
FIO_STOP=/tmp/fio-stop

# lun_disk IQN LUN [TIMEOUT]: the block device of LUN of IQN's session
lun_disk() { iscsi_disk "$1" "${3:-30}" "$2"; }

bytes_of() { echo $(( $(cat "/sys/block/${1#/dev/}/size") * 512 )); }

# wait_bytes DISK BYTES: until the kernel reports DISK at BYTES (30 s)
wait_bytes() {
  local end=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$end" ]; do
    [ "$(bytes_of "$1")" = "$2" ] && return 0
    sleep 0.5
  done
  log "$1 is $(bytes_of "$1") bytes, not $2"
  return 1
}

check iscsid iscsi_start || abort "iscsid does not start"
iscsi_discover >"$OUT/discovery.txt"
check login iscsi_login "$IQN" || abort "login failed"
DISK0=$(lun_disk "$IQN" 0) || abort "no block device for LUN 0"
log "LUN 0: $DISK0"

# ---- LUN 0: ext4 on the first 64 MiB, a fio verify loop on the rest, for the whole test ----
check mkfs-lun0 mkfs.ext4 -q -F "$DISK0" 64M || abort "mkfs.ext4 on LUN 0 failed"
mkdir -p "$MNT"
check mount-lun0 mount "$DISK0" "$MNT" || abort "mount LUN 0 failed"
head -c 4M /dev/urandom >"$MNT/before"
sha256sum "$MNT/before" >"$OUT/lun0-before.sha256"
sync
rm -f "$FIO_FAILED" "$FIO_STOP"
(
  i=0
  while [ ! -f "$FIO_STOP" ]; do
    i=$((i + 1))
    fio --name="loop$i" --filename="$DISK0" --ioengine=libaio --direct=1 --offset=96M --size=32M \
      --rw=randwrite --bs=4k --iodepth=8 --verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
      --eta=never --output="$OUT/fio-loop-$i.txt" || echo "loop $i" >>"$FIO_FAILED"
  done
  echo "$i" >/tmp/fio-loops
) &
FIO_PID=$!

# ---- LUN 1 added while LUN 0 is busy ----
check lun1-added ask_host lun-add-1 || abort "the host could not add LUN 1"
check rescan-1 iscsiadm -m session --rescan
DISK1=$(lun_disk "$IQN" 1) || abort "LUN 1 did not appear after the rescan"
log "LUN 1: $DISK1"
check lun1-size wait_bytes "$DISK1" "$VM_LUN1_BYTES"
check mkfs-lun1 mkfs.ext4 -q -F "$DISK1" || abort "mkfs.ext4 on LUN 1 failed"
mkdir -p /mnt/lun1
check mount-lun1 mount "$DISK1" /mnt/lun1
head -c 8M /dev/urandom >/mnt/lun1/data
sha256sum /mnt/lun1/data >"$OUT/lun1.sha256"
sync

# ---- LUN 1 grown: the kernel sees the new capacity, the file system grows into it ----
check lun1-resized ask_host resize-1 || abort "the host could not resize LUN 1"
check rescan-2 iscsiadm -m session --rescan
echo 1 >"/sys/block/${DISK1#/dev/}/device/rescan"
check lun1-new-size wait_bytes "$DISK1" "$VM_LUN1_GROWN_BYTES"
check resize2fs resize2fs "$DISK1"
check lun1-data-intact sha256sum -c --quiet "$OUT/lun1.sha256"
umount /mnt/lun1
check fsck-lun1 sh -c "fsck.ext4 -f -n $DISK1 >$OUT/fsck-lun1.txt 2>&1"

# ---- LUN 1 removed: the guest lets go of the device first, as an admin would ----
echo 1 >"/sys/block/${DISK1#/dev/}/device/delete"
check lun1-removed ask_host remove-1 || abort "the host could not remove LUN 1"
check rescan-3 iscsiadm -m session --rescan
sleep 1
check lun1-gone sh -c "! ls -d /sys/class/iscsi_session/session*/device/target*/*:1 >/dev/null 2>&1"

# ---- LUN 2 added, the config saved, the daemon restarted (SIGTERM asks us to log out) ----
check lun2-added ask_host lun-add-2 || abort "the host could not add LUN 2"
check rescan-4 iscsiadm -m session --rescan
DISK2=$(lun_disk "$IQN" 2) || abort "LUN 2 did not appear"
check lun2-size wait_bytes "$DISK2" "$VM_LUN2_BYTES"
check save-and-restart ask_host save-and-restart 240 || abort "the host could not save and restart"
# iscsid logged out when asked, and logs in again by itself once the daemon is back
end=$((SECONDS + 90))
until iscsiadm -m session -P 1 2>/dev/null | grep -q "iSCSI Session State: LOGGED_IN" \
  && dd if="$DISK0" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; do
  [ "$SECONDS" -lt "$end" ] || break
  sleep 1
done
iscsiadm -m session -P 3 >"$OUT/session-after-restart.txt" 2>&1
check relogged-in grep -q "iSCSI Session State: LOGGED_IN" "$OUT/session-after-restart.txt"
dmesg >"$OUT/dmesg.txt"
check lun2-after-restart lun_disk "$IQN" 2 10

# ---- LUN 0's file system and the fio loop went through all of it ----
head -c 4M /dev/urandom >"$MNT/after"
check lun0-before-intact sha256sum -c --quiet "$OUT/lun0-before.sha256"
touch "$FIO_STOP"
wait "$FIO_PID"
log "fio verify loops: $(cat /tmp/fio-loops 2>/dev/null)"
# (a loop takes about a minute under TCG: the first one spans every change and the restart)
check fio-loops-ran test "$(cat /tmp/fio-loops 2>/dev/null || echo 0)" -ge 1
check fio-no-errors test ! -s "$FIO_FAILED"
check fio-no-verify-errors sh -c "! grep -q 'verify:' $OUT/fio-loop-*.txt"
umount "$MNT"
check fsck-lun0 sh -c "fsck.ext4 -f -n $DISK0 >$OUT/fsck-lun0.txt 2>&1"
check logout iscsi_logout "$IQN"
summary
