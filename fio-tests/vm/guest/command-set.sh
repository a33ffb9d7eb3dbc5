#!/bin/bash
# Guest test (CommandSetGuestTest): the command set as the Linux initiator and sg3-utils use it.
#   a read-only LUN: the kernel sees it write-protected, its ext4 mounts read-only with the files the host put
#   there, and a WRITE sent anyway (sg_raw on its sg device) gets DATA PROTECT;
#   EXTENDED COPY: sg_xcopy copies LUN 0 to LUN 1 inside the target, the data checked;
#   persistent reservations: sg_persist registers with APTPL and reserves LUN 1, the host restarts the daemon, and
#   after it the reservation is still there: the host checks that another initiator's WRITE gets RESERVATION
#   CONFLICT; this guest's new session is a new initiator port (open-iscsi's ISID ends in the session number), so
#   its WRITE conflicts too until it registers and preempts the old port, after which it holds and writes.
# Env from the host: VM_IQN, VM_RO_SHA256 (sha256 of /data/file on the read-only LUN), VM_COPY_BYTES.
. /vmrun/lib.sh
IQN=$VM_IQN
MNT=/mnt/ro
KEY=0xabc123
KEY2=0xabc456

sg_of() { local s; for s in /sys/block/"${1#/dev/}"/device/scsi_generic/*; do echo "/dev/${s##*/}"; return 0; done; return 1; }

check iscsid iscsi_start || abort "iscsid does not start"
iscsi_discover >"$OUT/discovery.txt" 2>&1
check login iscsi_login "$IQN" || abort "login failed"
SRC=$(iscsi_disk "$IQN" 30 0) || abort "no LUN 0"
DST=$(iscsi_disk "$IQN" 30 1) || abort "no LUN 1"
RO=$(iscsi_disk "$IQN" 30 2) || abort "no LUN 2"
SG_SRC=$(sg_of "$SRC") && SG_DST=$(sg_of "$DST") && SG_RO=$(sg_of "$RO") || abort "no sg devices (sg module?)"
log "LUN 0 $SRC $SG_SRC, LUN 1 $DST $SG_DST, LUN 2 $RO $SG_RO"

# ---- read-only LUN ----
check ro-kernel-sees-write-protect test "$(cat "/sys/block/${RO#/dev/}/ro")" = 1
mkdir -p "$MNT"
check ro-mount mount -o ro "$RO" "$MNT" || abort "mounting the read-only LUN failed"
check ro-file-intact test "$(sha256sum <"$MNT/data/file" | cut -d' ' -f1)" = "$VM_RO_SHA256"
check ro-mount-is-ro sh -c "grep ' $MNT ' /proc/mounts | grep -q ' ro[ ,]'"
umount "$MNT"
head -c 512 /dev/zero >/tmp/zero512
# WRITE(10) of one block at LBA 0, sent past the kernel's read-only disk through the sg device
sg_raw -v -s 512 -i /tmp/zero512 "$SG_RO" 2a 00 00 00 00 00 00 00 01 00 >"$OUT/sg_raw-write-ro.txt" 2>&1
cat "$OUT/sg_raw-write-ro.txt"
check ro-write-data-protect grep -qi 'data protect' "$OUT/sg_raw-write-ro.txt"
check ro-write-write-protected grep -qi 'write protected' "$OUT/sg_raw-write-ro.txt"

# ---- EXTENDED COPY: LUN 0 -> LUN 1 in the target ----
BLOCKS=$((VM_COPY_BYTES / 512))
head -c "$VM_COPY_BYTES" /dev/urandom >/tmp/copy-src
check xcopy-fill-source dd if=/tmp/copy-src of="$SRC" bs=1M oflag=direct status=none
dd if=/dev/zero of="$DST" bs=1M count=$((VM_COPY_BYTES >> 20)) oflag=direct status=none
sg_vpd -p 0x8f "$SG_SRC" >"$OUT/sg_vpd-0x8f.txt" 2>&1
check xcopy sg_xcopy -v if="$SG_SRC" of="$SG_DST" bs=512 count="$BLOCKS" >"$OUT/sg_xcopy.txt" 2>&1
cat "$OUT/sg_xcopy.txt"
echo 3 >/proc/sys/vm/drop_caches
check xcopy-data-equal sh -c "dd if=$DST bs=1M count=$((VM_COPY_BYTES >> 20)) iflag=direct status=none | cmp - /tmp/copy-src"

# ---- persistent reservations across a restart ----
check pr-register sg_persist --out --register --param-sark="$KEY" --param-aptpl "$DST"
check pr-reserve sg_persist --out --reserve --param-rk="$KEY" --prout-type=1 "$DST"
sg_persist --in --read-full-status "$DST" >"$OUT/sg_persist-before.txt" 2>&1
cat "$OUT/sg_persist-before.txt"
check logout-before-restart iscsi_logout "$IQN"
check daemon-restarted ask_host restart-daemon 240 || abort "the host did not restart the daemon"
check host-sees-conflict ask_host check-reservation 120
check login-after-restart iscsi_login "$IQN" || abort "login after the restart failed"
DST=$(iscsi_disk "$IQN" 30 1) || abort "no LUN 1 after the restart"
SG_DST=$(sg_of "$DST") || abort "no sg device for LUN 1 after the restart"
sg_persist --in --read-reservation "$DST" >"$OUT/sg_persist-after.txt" 2>&1
cat "$OUT/sg_persist-after.txt"
check pr-key-after-restart grep -qi "key *= *$KEY" "$OUT/sg_persist-after.txt"
check pr-type-after-restart grep -qi 'write exclusive' "$OUT/sg_persist-after.txt"
# The registration belongs to the I_T nexus that made it: initiator name plus ISID. open-iscsi's ISID ends in the
# kernel's session number, so the session after the restart is the same initiator port only if that number is too.
before_port=$(sed -n 's/.*port id: *//p' "$OUT/sg_persist-before.txt" | head -n 1)
session=$(basename /sys/class/iscsi_session/session*)
now_port="$(cat "/sys/class/iscsi_session/$session/initiatorname"),i,0x00023d$(printf '%06x' "${session#session}")"
log "registered port $before_port, this session's port $now_port"
write4k() { dd if=/dev/urandom of="$DST" bs=4k count=1 seek=100 oflag=direct status=none; }
if [ "$before_port" = "$now_port" ]; then
  check pr-holder-writes write4k
  check pr-release sg_persist --out --release --param-rk="$KEY" --prout-type=1 "$DST"
  check pr-unregister sg_persist --out --register --param-rk="$KEY" --param-sark=0 "$DST"
else
  # a new initiator port: unregistered, so the reservation holds it off like any other; fence_scsi's way back in
  # is to register this port and preempt the old one, which moves the reservation here
  sg_raw -v -s 512 -i /tmp/zero512 "$SG_DST" 2a 00 00 00 00 64 00 00 01 00 >"$OUT/sg_raw-write-new-port.txt" 2>&1
  cat "$OUT/sg_raw-write-new-port.txt"
  check pr-new-port-conflicts grep -qi 'reservation conflict' "$OUT/sg_raw-write-new-port.txt"
  check pr-register-new-port sg_persist --out --register --param-sark="$KEY2" "$DST"
  check pr-preempt-old-port sg_persist --out --preempt --param-rk="$KEY2" --param-sark="$KEY" --prout-type=1 "$DST"
  sg_persist --in --read-full-status "$DST" >"$OUT/sg_persist-preempted.txt" 2>&1
  cat "$OUT/sg_persist-preempted.txt"
  check pr-new-holder grep -q "$now_port" "$OUT/sg_persist-preempted.txt"
  check pr-new-holder-writes write4k
  check pr-release sg_persist --out --release --param-rk="$KEY2" --prout-type=1 "$DST"
  check pr-unregister sg_persist --out --register --param-rk="$KEY2" --param-sark=0 "$DST"
fi
check logout iscsi_logout "$IQN"
summary
