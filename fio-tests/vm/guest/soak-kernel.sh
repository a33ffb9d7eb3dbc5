#!/bin/bash
# The soak's kernel initiator (SoakRun, KernelGuest): ext4 on LUN 0 of VM_IQN (a file LUN of the soak's
# write-through daemon), then fio rounds with crc32c verify on files in it for VM_SECONDS while the host's chaos
# events and restarts go on (the daemon is killed or stopped every 10 minutes: the session waits for it and carries
# on), a tree of files checked against its sums every few rounds, and fsck at the end.
# Env from the host: VM_IQN, VM_SECONDS.
. /vmrun/lib.sh
IQN=$VM_IQN
MNT=/mnt/soak

check iscsid iscsi_start || abort "iscsid does not start"
iscsi_node "$IQN" || abort "no node record for $IQN"
# a restart takes seconds, a SIGTERM stop with a full cache longer: the session waits rather than failing I/O
iscsiadm -m node -T "$IQN" -p "$PORTAL" -o update -n node.session.timeo.replacement_timeout -v 300
check login iscsi_login "$IQN" || abort "login failed"
DISK=$(iscsi_disk "$IQN") || abort "no block device after login"
log "disk $DISK"
check mkfs-ext4 mkfs.ext4 -q -F "$DISK" || abort "mkfs.ext4 failed"
mkdir -p "$MNT" /tmp/tree
check mount mount "$DISK" "$MNT" || abort "mount failed"

# a tree of files and their sums, copied in once and checked every few rounds
for d in 1 2 3; do
  mkdir -p "/tmp/tree/dir$d"
  for f in $(seq 0 9); do head -c "$(( (1 + (d * 10 + f) * 37 % 96) * 1024 ))" /dev/urandom >"/tmp/tree/dir$d/file$f"; done
done
(cd /tmp/tree && find . -type f | sort | xargs sha256sum) >"$OUT/tree.sha256"
check copy-tree cp -a /tmp/tree "$MNT/tree"
sync

# fio rounds: random or sequential writes then their verify, 4K-256K, 1-16 in flight, direct I/O on files in the file system
BS=(4k 16k 64k 256k)
DEPTH=(1 4 8 16)
RW=(randwrite write randwrite write)   # fio verifies written blocks; a sequential read/write mix (rw) trips its own header check
end=$((SECONDS + VM_SECONDS))
rounds=0 failed=0 sums_failed=0
while [ "$SECONDS" -lt "$end" ]; do
  rounds=$((rounds + 1))
  i=$((RANDOM % 4)) j=$((RANDOM % 4)) k=$((RANDOM % 4))
  rm -rf "$MNT/fio"
  mkdir -p "$MNT/fio"
  # 2,048 blocks and 128 MiB a round at most (a TCG guest on a loaded host writes 4K blocks at about 20 a second)
  size=$((2048 * ${BS[$i]%k}))k
  [ "${BS[$i]%k}" -le 64 ] || size=128M
  if ! fio --name="r$rounds" --directory="$MNT/fio" --nrfiles=4 --size="$size" --ioengine=libaio --direct=1 \
      --rw="${RW[$k]}" --bs="${BS[$i]}" --iodepth="${DEPTH[$j]}" --verify=crc32c --verify_fatal=1 --do_verify=1 \
      --randrepeat=0 --eta=never --output="$OUT/fio-round.txt"; then
    failed=$((failed + 1))
    cp "$OUT/fio-round.txt" "$OUT/fio-failed-$rounds.txt"
    log "round $rounds (${RW[$k]} ${BS[$i]} depth ${DEPTH[$j]}) FAILED"
  fi
  if [ $((rounds % 5)) = 0 ]; then
    (cd "$MNT/tree" && sha256sum --quiet -c "$OUT/tree.sha256") >"$OUT/sums-$rounds.txt" 2>&1 \
      || { sums_failed=$((sums_failed + 1)); log "round $rounds: the tree's sums differ"; }
    log "round $rounds done at $(uptime_s) s ($failed failed)"
  fi
done
log "soak-kernel: $rounds fio rounds, $failed failed; tree checked $((rounds / 5)) times, $sums_failed differed"
echo "$rounds $failed $sums_failed" >"$OUT/rounds.txt"
check fio-rounds-ran test "$rounds" -gt 0
check fio-rounds-all-verified test "$failed" = 0
check tree-sums-always-matched test "$sums_failed" = 0
check tree-sums-at-end sh -c "cd $MNT/tree && sha256sum --quiet -c $OUT/tree.sha256"
check umount umount "$MNT"
check fsck-clean sh -c "fsck.ext4 -f -n $DISK >$OUT/fsck.txt 2>&1"
check logout iscsi_logout "$IQN"
summary
