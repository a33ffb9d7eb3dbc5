#!/bin/bash
# Guest test (GroupMultipathGuestTest): dm-multipath over a gateway group of three daemons on the host (gw1 at
# PORTAL, gw2 at PORTAL2, gw3 at PORTAL3) serving one target with two RBD LUNs of one cluster, LUN 0 owned by gw1 and
# LUN 1 by gw2 (the group's placement: a new LUN goes to the member owning the fewest).
#   the three paths of each LUN log in; multipath -ll shows two maps, each with its owner's path active/optimized
#   (prio 50) and the other two standby (ghost);
#   fio with crc32c verify on both maps while the host kill -9's gw1: Linux's ALUA handler moves LUN 0 to another
#   gateway (SET TARGET PORT GROUPS, which fences gw1 at the store), I/O continues, both verifies pass; the host
#   restarts gw1 and its paths come back as standby;
#   fio verify on both maps while the host moves LUN 1 with numa-iscsi-admin group-move: multipath follows it to the
#   new owner, and LUN 0 stays where it is served;
#   fio verify on both maps again while the host stops the gateway now serving LUN 1 for 10 s (SIGSTOP, then SIGCONT):
#   the LUNs it served move, both verifies pass, its paths come back as standby; multipath -ll shows each map's new
#   active path.
# Env from the host: VM_IQN, VM_FIO_SIZE (bytes fio writes per map).
. /vmrun/lib.sh
IQN=$VM_IQN
PORTALS=("" "$PORTAL" "$PORTAL2" "$PORTAL3")
declare -A DISK

mp_start
for g in 1 2 3; do
  check "login-gw$g" mp_login "$IQN" "${PORTALS[$g]}" || abort "login through gw$g failed"
done
udevadm settle --timeout=30
for g in 1 2 3; do
  for l in 0 1; do
    DISK[$g,$l]=$(mp_disk "${PORTALS[$g]}" "$l") || abort "no disk for LUN $l through gw$g"
  done
  log "gw$g: LUN 0 ${DISK[$g,0]}, LUN 1 ${DISK[$g,1]}"
done
check same-wwid-lun0 test "$(cat /sys/block/"${DISK[1,0]#/dev/}"/device/wwid)" = \
  "$(cat /sys/block/"${DISK[3,0]#/dev/}"/device/wwid)"
check lun0-lun1-differ test "$(cat /sys/block/"${DISK[1,0]#/dev/}"/device/wwid)" != \
  "$(cat /sys/block/"${DISK[1,1]#/dev/}"/device/wwid)"
sg_rtpg -d "$(mp_sg_of "${DISK[3,0]}")" >"$OUT/rtpg-lun0-via-gw3.txt" 2>&1
cat "$OUT/rtpg-lun0-via-gw3.txt"

mp_multipathd failover
multipath -ll >"$OUT/multipath-before.txt" 2>&1
cat "$OUT/multipathd.txt" "$OUT/multipath-before.txt"
# map_of /dev/sdX: the WWID of the map the disk is a path of
map_of() {
  local w
  for w in $(multipath -ll 2>/dev/null | awk '/ dm-[0-9]+ / { print $1 }'); do
    multipath -ll "$w" | grep -q " ${1#/dev/} " && { echo "$w"; return 0; }
  done
  return 1
}
W0=$(map_of "${DISK[1,0]}") && W1=$(map_of "${DISK[1,1]}") || { multipath -v3 2>&1 | tail -n 80; abort "no maps"; }
check mp-two-maps test "$W0" != "$W1"
check mp-lun0-three-paths test "$(multipath -ll "$W0" | grep -c ' sd[a-z]* ')" = 3
check mp-lun1-three-paths test "$(multipath -ll "$W1" | grep -c ' sd[a-z]* ')" = 3
check mp-lun0-optimized-gw1 mp_active_has "$W0" "${DISK[1,0]}"
check mp-lun1-optimized-gw2 mp_active_has "$W1" "${DISK[2,1]}"
check mp-lun0-gw2-ghost sh -c "multipath -ll $W0 | grep ' ${DISK[2,0]#/dev/} ' | grep -q ghost"

# serving_gw WWID LUN: the gateway whose path is in the map's active group, ready
serving_gw() {
  local g
  for g in 1 2 3; do
    mp_active_has "$1" "${DISK[$g,$2]}" && mp_path "$1" "${DISK[$g,$2]}" | grep -q 'active ready' && { echo "$g"; return 0; }
  done
  return 1
}
# moved_off WWID LUN GW: the map is served (optimized, ready) through another gateway than GW
moved_off() { local s; s=$(serving_gw "$1" "$2") && [ "$s" != "$3" ]; }
# served_by WWID LUN GW: the map is served (optimized, ready) through GW
served_by() { [ "$(serving_gw "$1" "$2")" = "$3" ]; }
# back_standby WWID LUN GW: GW's path of the map is there again, standby
back_standby() { mp_path "$1" "${DISK[$3,$2]}" | grep -q 'ghost' && ! mp_active_has "$1" "${DISK[$3,$2]}"; }

# fio_both NAME HOST-REQUEST: fio with crc32c verify on both maps while the host does REQUEST
fio_both() {
  local name=$1 request=$2 rc0 rc1 f0 f1
  fio --name=lun0 --filename="/dev/mapper/$W0" --ioengine=libaio --direct=1 --iodepth=8 --rw=write --bs=64k \
    --size="$VM_FIO_SIZE" --verify=crc32c --verify_fatal=1 --do_verify=1 >"$OUT/fio-$name-lun0.txt" 2>&1 &
  f0=$!
  fio --name=lun1 --filename="/dev/mapper/$W1" --ioengine=libaio --direct=1 --iodepth=8 --rw=write --bs=64k \
    --size="$VM_FIO_SIZE" --verify=crc32c --verify_fatal=1 --do_verify=1 >"$OUT/fio-$name-lun1.txt" 2>&1 &
  f1=$!
  sleep 2
  check "fio-running-at-$name" sh -c "kill -0 $f0 && kill -0 $f1"  # else make VM_FIO_SIZE larger
  local t0; t0=$(uptime_s)
  check "$name" ask_host "$request" 60
  wait "$f0"; rc0=$?
  wait "$f1"; rc1=$?
  cat "$OUT/fio-$name-lun0.txt" "$OUT/fio-$name-lun1.txt"
  log "$name at $t0 s, fio done at $(uptime_s) s; the longest completions (the failover pause):" \
    $(sed -n 's/^ *clat (\([um]*sec\)): .*max=\([0-9.]*\).*/\2 \1/p' "$OUT/fio-$name-lun0.txt" "$OUT/fio-$name-lun1.txt")
  check "fio-verify-lun0-after-$name" test "$rc0" = 0
  check "fio-verify-lun1-after-$name" test "$rc1" = 0
  check "fio-err-0-after-$name" sh -c "grep -q 'err= 0' $OUT/fio-$name-lun0.txt && grep -q 'err= 0' $OUT/fio-$name-lun1.txt"
  multipath -ll >"$OUT/multipath-after-$name.txt" 2>&1
  cat "$OUT/multipath-after-$name.txt"
}

# ---- gw1 killed under fio verify: LUN 0 moves, LUN 1 stays with gw2 ----
fio_both kill-gw1 kill-gw1
check lun0-moved-off-gw1 mp_wait 30 moved_off "$W0" 0 1
check lun1-still-gw2 test "$(serving_gw "$W1" 1)" = 2
log "after the kill: LUN 0 served through gw$(serving_gw "$W0" 0), LUN 1 through gw$(serving_gw "$W1" 1)"
check restart-gw1 ask_host restart-gw1 120
check gw1-lun0-path-returns-standby mp_wait 90 back_standby "$W0" 0 1 || { iscsiadm -m session -P 1; tail -n 40 "$OUT/iscsid.log"; }
check gw1-lun1-path-returns-standby mp_wait 90 back_standby "$W1" 1 1

# ---- a move by the group (numa-iscsi-admin group-move on the host): the initiator follows ----
LUN1_BEFORE=$(serving_gw "$W1" 1)
LUN0_AT_MOVE=$(serving_gw "$W0" 0)
MOVE_TO=$([ "$LUN1_BEFORE" = 3 ] && echo 1 || echo 3)
fio_both move-lun1 "move-lun1-gw$MOVE_TO"
# the move is done when the new owner serves it: the other members refuse SET TARGET PORT GROUPS during the hand-over
check "lun1-moved-to-gw$MOVE_TO" mp_wait 90 served_by "$W1" 1 "$MOVE_TO"
# a move of LUN 1 leaves LUN 0 where it is served (after the kill, that is not its first owner)
check "lun0-stays-with-gw$LUN0_AT_MOVE-during-the-move" served_by "$W0" 0 "$LUN0_AT_MOVE"
log "after the move to gw$MOVE_TO: LUN 0 served through gw$(serving_gw "$W0" 0), LUN 1 through gw$(serving_gw "$W1" 1)"

# ---- the gateway now serving LUN 1 stopped for 10 s under fio verify: what it serves moves; it comes back as standby ----
mp_wait 60 serving_gw "$W1" 1 >/dev/null || { multipath -ll; abort "LUN 1 is served through no gateway"; }
LUN0_BEFORE=$(serving_gw "$W0" 0)
STALLED=$(serving_gw "$W1" 1)
fio_both "stall-gw$STALLED" "stall-gw$STALLED"
check "lun1-moved-off-gw$STALLED" mp_wait 30 moved_off "$W1" 1 "$STALLED"
[ "$LUN0_BEFORE" = "$STALLED" ] && check "lun0-moved-off-gw$STALLED" mp_wait 30 moved_off "$W0" 0 "$STALLED"
check "gw$STALLED-lun1-path-returns-standby" mp_wait 90 back_standby "$W1" 1 "$STALLED" || { iscsiadm -m session -P 1; tail -n 40 "$OUT/iscsid.log"; }
log "after the stall: LUN 0 served through gw$(serving_gw "$W0" 0), LUN 1 through gw$(serving_gw "$W1" 1)"
multipath -ll >"$OUT/multipath-after.txt" 2>&1
cat "$OUT/multipath-after.txt"
check mp-lun0-optimized-active sh -c "multipath -ll $W0 | grep 'status=active' | grep -q 'prio=50'"
check mp-lun1-optimized-active sh -c "multipath -ll $W1 | grep 'status=active' | grep -q 'prio=50'"
check read-lun0-after dd if="/dev/mapper/$W0" of=/dev/null bs=64k count=64 iflag=direct status=none
check read-lun1-after dd if="/dev/mapper/$W1" of=/dev/null bs=64k count=64 iflag=direct status=none
multipath -F >/dev/null 2>&1
summary
