#!/bin/bash
# Guest test 1 (KernelInitiatorTest): the kernel initiator against the daemon, and durability
# across a daemon restart.
#   discovery -> login -> identity (sg_inq, sg_vpd 0x80/0x83) -> ext4 on the first 512 MiB, a tree
#   of files and their sha256 sums -> fio verify=crc32c on a raw region behind the file system ->
#   fstrim (UNMAP) -> logout -> the host restarts the daemon -> login -> sums match -> VM_KILLS times
#   (default 2): a direct write in flight, the host kills the daemon (SIGKILL), the forward stays
#   silent, the host starts it again, the session recovers and the write reads back -> logout
# Env from the host: VM_IQN, VM_LUN_BYTES, VM_EXPECT_VENDOR, VM_EXPECT_PRODUCT, VM_EXPECT_SERIAL,
# VM_EXPECT_NAA (16 hex digits), VM_KILLS.
. /vmrun/lib.sh
IQN=$VM_IQN
MNT=/mnt/lun
FS_SIZE=512M        # the file system's part of the LUN
RAW_OFFSET=768M     # fio's raw region: the last 256 MiB, never touched by the file system
RAW_SIZE=256M

log "NUMA: $(numactl -H | head -n 1)"
check numa-2-nodes test "$(numactl -H | sed -n 's/^available: \([0-9]*\) nodes.*/\1/p')" = 2

check iscsid iscsi_start || abort "iscsid does not start"
discovered=$(iscsi_discover)
echo "$discovered" | tee "$OUT/discovery.txt"
check discovery-lists-target grep -q " $IQN\$" <<<"$discovered"
check login iscsi_login "$IQN" || abort "login failed"
iscsiadm -m session -P 3 >"$OUT/session-1.txt" 2>&1
DISK=$(iscsi_disk "$IQN") || abort "no block device after login"
log "disk $DISK"

# ---- identity: what the kernel sees is what the target reports ----
check disk-size test "$(( $(cat "/sys/block/${DISK#/dev/}/size") * 512 ))" = "$VM_LUN_BYTES"
sg_inq "$DISK" >"$OUT/sg_inq.txt" 2>&1
sg_vpd -p 0x80 "$DISK" >"$OUT/sg_vpd-0x80.txt" 2>&1
sg_vpd -p 0x83 "$DISK" >"$OUT/sg_vpd-0x83.txt" 2>&1
cat "$OUT/sg_inq.txt" "$OUT/sg_vpd-0x80.txt" "$OUT/sg_vpd-0x83.txt"
field() { sed -n "s/^ *$1: *//p" "$2" | sed 's/ *$//' | head -n 1; }
check inquiry-vendor test "$(field 'Vendor identification' "$OUT/sg_inq.txt")" = "$VM_EXPECT_VENDOR"
check inquiry-product test "$(field 'Product identification' "$OUT/sg_inq.txt")" = "$VM_EXPECT_PRODUCT"
check vpd80-serial test "$(field 'Unit serial number' "$OUT/sg_vpd-0x80.txt")" = "$VM_EXPECT_SERIAL"
check vpd83-naa grep -qi "0x$VM_EXPECT_NAA" "$OUT/sg_vpd-0x83.txt"
check vpd83-t10-vendor grep -q "vendor id: $VM_EXPECT_VENDOR" "$OUT/sg_vpd-0x83.txt"

# ---- ext4 and a tree of files ----
check mkfs-ext4 mkfs.ext4 -q -F "$DISK" "$FS_SIZE" || abort "mkfs.ext4 failed"
mkdir -p "$MNT" /tmp/tree
check mount-1 mount "$DISK" "$MNT" || abort "mount failed"
for d in 1 2 3 4 5 6; do
  mkdir -p "/tmp/tree/dir$d/sub"
  for f in $(seq 0 9); do
    head -c "$(( (1 + (d * 10 + f) * 37 % 128) * 1024 ))" /dev/urandom >"/tmp/tree/dir$d/file$f"
  done
  head -c 300000 /dev/urandom >"/tmp/tree/dir$d/sub/odd-size"
done
head -c 2M /dev/urandom >/tmp/tree/big
(cd /tmp/tree && find . -type f | sort | xargs sha256sum) >"$OUT/checksums.txt"
log "tree: $(wc -l <"$OUT/checksums.txt") files, $(du -sh /tmp/tree | cut -f1)"
check copy-tree cp -a /tmp/tree/. "$MNT/"
sync
umount "$MNT"
echo 3 >/proc/sys/vm/drop_caches
check mount-2 mount "$DISK" "$MNT" || abort "second mount failed"
check checksums-after-remount sh -c "cd $MNT && sha256sum --quiet -c $OUT/checksums.txt"

# ---- fio with verify on the raw region behind the file system ----
fio_job() {
  local name=$1
  shift
  fio --name="$name" --filename="$DISK" --ioengine=libaio --direct=1 --offset="$RAW_OFFSET" \
    --verify=crc32c --verify_fatal=1 --do_verify=1 --eta=never --output="$OUT/fio-$name.txt" "$@"
  local rc=$?
  grep -E '^ +(read|write):|err=' "$OUT/fio-$name.txt"
  return $rc
}
check fio-seq-128k fio_job seq128k --rw=write --bs=128k --iodepth=16 --size="$RAW_SIZE"
check fio-rand-4k fio_job rand4k --rw=randwrite --bs=4k --iodepth=16 --size=32M --randrepeat=0
check fio-no-verify-errors sh -c "! grep -q 'verify:' $OUT/fio-*.txt"

# ---- UNMAP ----
check fstrim fstrim -v "$MNT"
check fsck-after-fstrim sh -c "umount $MNT && fsck.ext4 -f -n $DISK >$OUT/fsck-1.txt 2>&1"
check logout-1 iscsi_logout "$IQN"

# ---- the daemon is stopped and started again on the host ----
check daemon-restarted ask_host restart-daemon 180 || abort "the host did not restart the daemon"

check login-after-restart iscsi_login "$IQN" || abort "login after the restart failed"
DISK=$(iscsi_disk "$IQN") || abort "no block device after the restart"
check serial-after-restart sh -c "sg_vpd -p 0x80 $DISK | grep -q 'Unit serial number: $VM_EXPECT_SERIAL'"
check mount-after-restart mount -o ro "$DISK" "$MNT" || abort "mount after the restart failed"
check checksums-after-restart sh -c "cd $MNT && sha256sum --quiet -c $OUT/checksums.txt"
umount "$MNT"
check fsck-after-restart sh -c "fsck.ext4 -f -n $DISK >$OUT/fsck-2.txt 2>&1"

# ---- the daemon is killed (SIGKILL) and started again VM_KILLS times while the guest holds the disk
# and a direct write is in flight: the session must recover by itself, the write complete, and what
# it wrote read back. While the daemon is down, a connection through the forward must get no bytes.
check time2wait-in-node-record sh -c \
  "iscsiadm -m node -T $IQN -p $PORTAL | grep -q '^node.session.iscsi.DefaultTime2Wait = $TIME2WAIT\$'"
head -c 64M /dev/urandom >/tmp/pattern
want=$(sha256sum </tmp/pattern | cut -d' ' -f1)
echo "cycle recovery_s" >"$OUT/kill-cycles.txt"
for i in $(seq "${VM_KILLS:-2}"); do
  dd if=/tmp/pattern of="$DISK" bs=1M seek=768 oflag=direct status=none 2>"$OUT/dd-$i.txt" &
  writer=$!
  sleep 1
  check "kill-$i" ask_host kill-daemon 60 || abort "the host did not kill the daemon"
  check "forward-silent-while-down-$i" test "$(forward_probe)" = 0
  check "start-$i" ask_host start-daemon 120 || abort "the host did not start the daemon"
  if secs=$(iscsi_wait_logged_in "$IQN" 120); then
    check "session-recovered-$i" true
    echo "$i $secs" >>"$OUT/kill-cycles.txt"
    log "session LOGGED_IN again $secs s after the daemon was started"
  else
    check "session-recovered-$i" false
    iscsiadm -m session -P 1 >"$OUT/session-kill-$i.txt" 2>&1
    abort "session not recovered within 120 s of restart $i"
  fi
  check "write-across-kill-$i" wait "$writer"
  check "read-back-$i" test "$(dd if="$DISK" bs=1M skip=768 count=64 iflag=direct status=none | sha256sum | cut -d' ' -f1)" = "$want"
done
check logout-2 iscsi_logout "$IQN"
summary
