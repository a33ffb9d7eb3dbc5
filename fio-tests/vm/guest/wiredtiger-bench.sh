#!/bin/bash
# Guest script of fio-tests/bench/run-wiredtiger-bench.sh: WiredTiger (wtload, journaling with an fsync
# per commit) on the XFS file system the host built on the LUN (the table loaded, /wt), each YCSB mix of
# VM_MIXES for VM_SECONDS, one after the other on the same table. Prints the driver's "wtload-run:" lines,
# per mix "mix-io: mix M, LUN reads N KiB, writes N KiB" (from the disk's /sys/block stat) and
# "guest-control: sha256 N MB/s" (a fixed CPU job: how fast the emulated guest ran in this boot).
# Files out/meminfo.txt, out/run-MIX.txt.
# Env from the host: VM_IQN, VM_LUN (the disk's LUN: 0 on this target, 1 on tgtd), VM_RECORDS (as loaded),
# VM_MIXES (e.g. "A B C F"), VM_SECONDS.
. /vmrun/lib.sh
MNT=/mnt/db
cp /vmrun/wtload /tmp/wtload && chmod +x /tmp/wtload
cp /proc/meminfo "$OUT/meminfo.txt"
check iscsid iscsi_start || abort "iscsid does not start"
check login iscsi_login "$VM_IQN" || abort "login failed"
DISK=$(iscsi_disk "$VM_IQN" 30 "$VM_LUN") || abort "no block device for LUN $VM_LUN"
log "disk $DISK, cache: $(cat "/sys/block/${DISK#/dev/}/queue/write_cache"), memory: $(grep MemTotal /proc/meminfo)"
mkdir -p "$MNT"
check mount mount -o noatime "$DISK" "$MNT" || abort "mount failed"
[ -f "$MNT/wt/WiredTiger" ] || abort "no WiredTiger database on the LUN"
t0=$(date +%s%N)
head -c 67108864 /dev/zero | sha256sum >/dev/null
t1=$(date +%s%N)
echo "guest-control: sha256 $(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", 64 * 1048576 / 1e6 / (ns / 1e9) }') MB/s"
sectors() { awk -v f="$1" '{ print $f }' "/sys/block/${DISK#/dev/}/stat"; }
for mix in $VM_MIXES; do
  r0=$(sectors 3) w0=$(sectors 7)
  check "mix-$mix" sh -c "WTLOAD_SCAN=0 /tmp/wtload run $MNT/wt $VM_RECORDS /tmp/commits.log $mix $VM_SECONDS 1 >$OUT/run-$mix.txt 2>&1"
  echo "mix-io: mix $mix, LUN reads $(( ($(sectors 3) - r0) / 2 )) KiB, writes $(( ($(sectors 7) - w0) / 2 )) KiB"
  grep '^wtload-run: mix .*ops/s' "$OUT/run-$mix.txt"
done
check umount umount "$MNT"
check logout iscsi_logout "$VM_IQN"
summary
