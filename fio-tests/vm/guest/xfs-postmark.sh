#!/bin/bash
# Guest test 2 (KernelInitiatorTest): XFS on the same LUN and a small PostMark run.
#   discovery -> login -> mkfs.xfs on the first 512 MiB -> mount -> PostMark -> umount ->
#   xfs_repair -n -> logout
# The report goes to /vmrun/out/postmark-report.txt. Env from the host: VM_IQN.
. /vmrun/lib.sh
IQN=$VM_IQN
MNT=/mnt/lun

check iscsid iscsi_start || abort "iscsid does not start"
check discovery grep -q " $IQN\$" <<<"$(iscsi_discover)"
check login iscsi_login "$IQN" || abort "login failed"
DISK=$(iscsi_disk "$IQN") || abort "no block device after login"
log "disk $DISK"

check mkfs-xfs sh -c "mkfs.xfs -f -d size=512m $DISK >$OUT/mkfs-xfs.txt 2>&1" || abort "mkfs.xfs failed"
mkdir -p "$MNT"
check mount-xfs mount -t xfs "$DISK" "$MNT" || abort "mount failed"

cat >/tmp/postmark.cfg <<EOF
set location $MNT
set number 500
set transactions 2000
set size 512 16384
set subdirectories 10
set seed 7143
show
run
quit
EOF
cp /tmp/postmark.cfg "$OUT/postmark.cfg"
log "postmark: 500 files, 2000 transactions, 512 B - 16 KiB"
check postmark sh -c "postmark /tmp/postmark.cfg >$OUT/postmark-report.txt 2>&1"
cat "$OUT/postmark-report.txt"
check postmark-report grep -q 'seconds of transactions' "$OUT/postmark-report.txt"
check postmark-cleaned-up sh -c "[ -z \"\$(ls -A $MNT)\" ]"

check umount-xfs umount "$MNT"
check xfs-repair-clean sh -c "xfs_repair -n $DISK >$OUT/xfs_repair.txt 2>&1"
check logout iscsi_logout "$IQN"
summary
