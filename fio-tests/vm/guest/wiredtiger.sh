#!/bin/bash
# Guest test (WiredTigerGuestTest): WiredTiger with journaling on a file system on the target's LUN,
# and one power cut of guest and target together. One boot is one step of a crash series:
#   login -> first boot: mkfs, mount, wtload load | later boots: mount (the file system's log
#   recovery), wtload check against every commit the host logged before (WiredTiger's recovery,
#   WT_SESSION::verify, every committed record there with its last committed value) -> unless this
#   is the last boot: wtload run (YCSB mix) in the background, VM_SECONDS later the host kills the
#   target (SIGKILL, it stays down) and the guest cuts its own power (sysrq b: no sync, no unmount,
#   no SYNCHRONIZE CACHE on the way down) with the workload still running.
# wtload writes its commit log to /vmrun/out/commits.log, which is on the host (9p) as each line is
# written: the host appends it to its history and hands that to the next boot as /vmrun/history.log.
# Env from the host: VM_IQN, VM_PHASE (first, next or last), VM_FS (xfs or ext4), VM_RECORDS, VM_MIX,
# VM_SECONDS (workload time before the kill), VM_SEED. Files: out/check.txt, out/run.txt, out/load.txt,
# out/commits.log, out/mkfs.txt.
. /vmrun/lib.sh
IQN=$VM_IQN
MNT=/mnt/db
HOME_DIR=$MNT/wt
WTLOAD=/tmp/wtload

cp /vmrun/wtload "$WTLOAD" && chmod +x "$WTLOAD"
check iscsid iscsi_start || abort "iscsid does not start"
check login iscsi_login "$IQN" || abort "login failed"
DISK=$(iscsi_disk "$IQN") || abort "no block device after login"
log "disk $DISK, $(blockdev --getsize64 "$DISK") bytes, cache: $(cat "/sys/block/${DISK#/dev/}/queue/write_cache")"
cat "/sys/block/${DISK#/dev/}/queue/write_cache" >"$OUT/write_cache.txt"
mkdir -p "$MNT"

if [ "$VM_PHASE" = first ]; then
  case $VM_FS in
    xfs) check mkfs mkfs.xfs -f "$DISK" >"$OUT/mkfs.txt" 2>&1 ;;
    ext4) check mkfs mkfs.ext4 -q -F "$DISK" >"$OUT/mkfs.txt" 2>&1 ;;
    *) abort "VM_FS must be xfs or ext4: $VM_FS" ;;
  esac
  check mount mount -o noatime "$DISK" "$MNT" || abort "mount failed"
  mkdir -p "$HOME_DIR"
  check load "$WTLOAD" load "$HOME_DIR" "$VM_RECORDS" "$OUT/commits.log" >"$OUT/load.txt" 2>&1 || abort "load failed"
  cat "$OUT/load.txt"
else
  check mount-after-power-cut mount -o noatime "$DISK" "$MNT" || abort "mount after the power cut failed"
  "$WTLOAD" check "$HOME_DIR" "$VM_RECORDS" /vmrun/history.log "$OUT/commits.log" >"$OUT/check.txt" 2>&1
  rc=$?
  grep -v '^check: \(LOST\|WRONG\|BAD\)' "$OUT/check.txt" | tail -n 5
  grep -m 20 '^check: \(LOST\|WRONG\|BAD\)' "$OUT/check.txt"
  check recovered-and-nothing-lost test "$rc" = 0
fi

if [ "$VM_PHASE" = last ]; then
  check umount umount "$MNT"
  case $VM_FS in
    xfs) check fs-check-clean xfs_repair -n "$DISK" >"$OUT/fsck.txt" 2>&1 ;;
    ext4) check fs-check-clean fsck.ext4 -f -n "$DISK" >"$OUT/fsck.txt" 2>&1 ;;
  esac
  check logout iscsi_logout "$IQN"
  summary
  exit
fi

# the workload runs on; the host kills the target, then the guest's power goes
"$WTLOAD" run "$HOME_DIR" "$VM_RECORDS" "$OUT/commits.log" "$VM_MIX" 100000 "$VM_SEED" >"$OUT/run.txt" 2>&1 &
WPID=$!
sleep "$VM_SECONDS"
check workload-running kill -0 "$WPID"
check commits-before-kill test "$(grep -c '^W' "$OUT/commits.log")" -gt 0
check target-killed ask_host kill-daemon 60
log "commits logged: $(grep -c '^C' "$OUT/commits.log"), last lines: $(tail -n 2 "$OUT/commits.log" | tr '\n' ' ')"
summary
# the status line guest-init would print, then the power cut (reboot = qemu exits with -no-reboot).
# The 2 s let the serial console drain: without them the reset took the last lines, the status
# among them (2 of 6 boots that cut power). No sync: it would wait on the dead target; the
# workload's I/O in those 2 s goes nowhere.
[ "$_failed" = 0 ] && echo "VM-EXIT-STATUS=0" || echo "VM-EXIT-STATUS=1"
sleep 2
echo b >/proc/sysrq-trigger
sleep 30
