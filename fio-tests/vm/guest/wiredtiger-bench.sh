#!/bin/bash
# Guest script of fio-tests/bench/run-wiredtiger-bench.sh: WiredTiger (wtload, journaling with an fsync
# per commit) on XFS on one LUN, each YCSB mix of VM_MIXES for VM_SECONDS, one after the other on the
# same table. Prints the driver's "wtload-run:" lines; files out/load.txt, out/run-MIX.txt.
# Env from the host: VM_IQN, VM_LUN (the disk's LUN: 0 on this target, 1 on tgtd), VM_RECORDS,
# VM_MIXES (e.g. "A B C F"), VM_SECONDS.
. /vmrun/lib.sh
MNT=/mnt/db
cp /vmrun/wtload /tmp/wtload && chmod +x /tmp/wtload
check iscsid iscsi_start || abort "iscsid does not start"
check login iscsi_login "$VM_IQN" || abort "login failed"
DISK=$(iscsi_disk "$VM_IQN" 30 "$VM_LUN") || abort "no block device for LUN $VM_LUN"
log "disk $DISK, cache: $(cat "/sys/block/${DISK#/dev/}/queue/write_cache")"
check mkfs sh -c "mkfs.xfs -f $DISK >$OUT/mkfs.txt 2>&1" || abort "mkfs failed"
mkdir -p "$MNT"
check mount mount -o noatime "$DISK" "$MNT" || abort "mount failed"
mkdir -p "$MNT/wt"
check load sh -c "/tmp/wtload load $MNT/wt $VM_RECORDS /tmp/commits.log >$OUT/load.txt 2>&1" || abort "load failed"
cat "$OUT/load.txt"
for mix in $VM_MIXES; do
  check "mix-$mix" sh -c "/tmp/wtload run $MNT/wt $VM_RECORDS /tmp/commits.log $mix $VM_SECONDS 1 >$OUT/run-$mix.txt 2>&1"
  grep '^wtload-run: mix .*ops/s' "$OUT/run-$mix.txt"
done
check umount umount "$MNT"
check logout iscsi_logout "$VM_IQN"
summary
