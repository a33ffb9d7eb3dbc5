#!/bin/bash
# Guest test (HaMultipathGuestTest): dm-multipath over a gateway pair on the host, one RBD image exported by two
# daemons under one target name: A (PORTAL, ALUA group 1, active/optimized) and B (PORTAL2, group 2,
# active/non-optimized), reservations shared through RADOS.
#   both paths log in; multipath -ll shows one map, the optimized path group (A, which holds the image's lock) active;
#   sg_persist through the two paths (two I_T nexuses, one per gateway): a reservation taken through B is enforced
#   through A, and READ RESERVATION through A names B's key; I/O through the standby B is refused as standby;
#   fio writes with crc32c verify on the multipath device while the host SIGSTOPs A for 10 s: I/O goes on through B
#   (which takes the image over and fences A), the verify passes, A comes back as a standby path;
#   sg_stpg moves the image back to A; fio verify again while the host kill -9's A: I/O goes on through B, the verify
#   passes; the host restarts A, and its path comes back as standby; READ KEYS through both paths agree.
# Env from the host: VM_IQN, VM_FIO_SIZE (bytes fio writes).
. /vmrun/lib.sh
IQN=$VM_IQN
KEY_A=0xa1
KEY_B=0xb2

mp_start
check login-A mp_login "$IQN" "$PORTAL" || abort "login through A failed"
check login-B mp_login "$IQN" "$PORTAL2" || abort "login through B failed"
udevadm settle --timeout=30
DA=$(mp_disk "$PORTAL") || abort "no disk through A"
DB=$(mp_disk "$PORTAL2") || abort "no disk through B"
SGA=$(mp_sg_of "$DA") && SGB=$(mp_sg_of "$DB") || abort "no sg devices"
log "path A $DA $SGA, path B $DB $SGB"
sg_rtpg -d "$SGA" >"$OUT/rtpg-A.txt" 2>&1
cat "$OUT/rtpg-A.txt"
check same-wwid test "$(cat /sys/block/"${DA#/dev/}"/device/wwid)" = "$(cat /sys/block/"${DB#/dev/}"/device/wwid)"
check alua-handler-A grep -q alua /sys/block/"${DA#/dev/}"/device/dh_state

# ---- persistent reservations through the two gateways ----
# A holds the image's lock (active/optimized), B is standby: B's path takes PERSISTENT RESERVE OUT and IN but refuses
# I/O (NOT READY, LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE) before any reservation check.
check pr-register-A sg_persist --out --register --param-sark="$KEY_A" "$DA"
check pr-register-B sg_persist --out --register --param-sark="$KEY_B" "$DB"
check pr-reserve-B sg_persist --out --reserve --param-rk="$KEY_B" --prout-type=1 "$DB"
sg_persist --in --read-reservation "$DA" >"$OUT/pr-read-A.txt" 2>&1
cat "$OUT/pr-read-A.txt"
check pr-A-sees-B-key grep -qi "key *= *$KEY_B" "$OUT/pr-read-A.txt"
head -c 512 /dev/zero >/tmp/zero512
sg_raw -v -s 512 -i /tmp/zero512 "$SGA" 2a 00 00 00 00 00 00 00 01 00 >"$OUT/pr-write-A.txt" 2>&1
cat "$OUT/pr-write-A.txt"
check pr-write-A-conflicts grep -qi 'reservation conflict' "$OUT/pr-write-A.txt"
sg_raw -v -s 512 -i /tmp/zero512 "$SGB" 2a 00 00 00 00 00 00 00 01 00 >"$OUT/pr-write-B.txt" 2>&1
cat "$OUT/pr-write-B.txt"
check write-B-standby grep -qi 'standby' "$OUT/pr-write-B.txt"
check pr-release-B sg_persist --out --release --param-rk="$KEY_B" --prout-type=1 "$DB"
check pr-unregister-A sg_persist --out --register --param-rk="$KEY_A" --param-sark=0 "$DA"
check pr-unregister-B sg_persist --out --register --param-rk="$KEY_B" --param-sark=0 "$DB"
check write-A-after-release sg_raw -s 512 -i /tmp/zero512 "$SGA" 2a 00 00 00 00 00 00 00 01 00

# ---- dm-multipath with ALUA priorities ----
mp_multipathd
multipath -ll >"$OUT/multipath-before.txt" 2>&1
cat "$OUT/multipathd.txt" "$OUT/multipath-before.txt"
WWID=$(multipath -ll 2>/dev/null | awk 'NR == 1 { print $1 }')
MP=/dev/mapper/$WWID
[ -n "$WWID" ] && [ -b "$MP" ] || { ls -l /dev/mapper; multipath -v3 2>&1 | tail -n 80; abort "no multipath device"; }
# the active group (status=active) is the one with the higher priority (prio=50: optimized), with A's path in it
active_group_has() { mp_active_has "$WWID" "$1"; }
check mp-two-paths test "$(multipath -ll "$WWID" | grep -c ' sd[a-z]* ')" = 2
check mp-optimized-active sh -c "multipath -ll $WWID | grep 'status=active' | grep -q 'prio=50'"
check mp-A-in-active-group active_group_has "$DA"

path_line() { mp_path "$WWID" "$1"; }
wait_for() { mp_wait "$@"; }
a_back_standby() { path_line "$DA" | grep -q 'ghost' && ! active_group_has "$DA"; }
a_back_active() { active_group_has "$DA" && path_line "$DA" | grep -q 'active ready'; }

# fio_phase NAME HOST-REQUEST: fio with crc32c verify on the multipath device while the host does REQUEST to A
fio_phase() {
  local name=$1 request=$2 rc
  fio --name=ha --filename="$MP" --ioengine=libaio --direct=1 --iodepth=8 --rw=write --bs=64k \
    --size="$VM_FIO_SIZE" --verify=crc32c --verify_fatal=1 --do_verify=1 >"$OUT/fio-$name.txt" 2>&1 &
  local fio=$!
  sleep 2
  check "fio-running-at-$name" kill -0 "$fio"  # else the failure was not mid-run: make VM_FIO_SIZE larger
  local t0; t0=$(uptime_s)
  TRIES_AT_FAILURE=$(grep -c "connecting to $PORTAL" "$OUT/iscsid.log")
  check "$name" ask_host "$request" 60
  wait "$fio"
  rc=$?
  cat "$OUT/fio-$name.txt"
  log "$name at $t0 s, fio done at $(uptime_s) s; the longest read and write completions (fio order; the failover" \
    "pause):" $(sed -n 's/^ *clat (\([um]*sec\)): .*max=\([0-9.]*\).*/\2 \1/p' "$OUT/fio-$name.txt")
  check "fio-verify-after-$name" test "$rc" = 0
  check "fio-err-0-after-$name" grep -q 'err= 0' "$OUT/fio-$name.txt"
  multipath -ll "$WWID" >"$OUT/multipath-after-$name.txt" 2>&1
  cat "$OUT/multipath-after-$name.txt"
}

# ---- A stopped for 10 s (SIGSTOP, then SIGCONT) under fio verify ----
# The path through A times out (no-op pings, then the 5 s replacement timeout); dm-multipath activates B's path
# group, and Linux's ALUA handler sends SET TARGET PORT GROUPS to B, which takes the image's lock from A and fences
# A's client at the OSDs: the writes still in A's socket when it continues never reach the image (the verify reads
# everything back through B). A notices, reconnects to the cluster as a new client and comes back as standby.
fio_phase stall-A stall-a
check B-active-after-stall active_group_has "$DB"
check A-path-returns-standby wait_for 90 a_back_standby || { iscsiadm -m session -P 1; tail -n 40 "$OUT/iscsid.log"; }
sg_rtpg -d "$SGA" >"$OUT/rtpg-A-after-stall.txt" 2>&1
cat "$OUT/rtpg-A-after-stall.txt"

# ---- the image moved back to A by hand (SET TARGET PORT GROUPS through A's path, as an administrator would) ----
check stpg-to-A sg_stpg --optimized "$DA"
check A-active-again wait_for 60 a_back_active

# ---- A killed (kill -9) under fio verify, then restarted: its path comes back as standby ----
fio_phase kill-A kill-a
check B-active-after-kill active_group_has "$DB"
# only after iscsid has tried A again while it is down (after DefaultTime2Wait): the case where the forward used to
# accept and close the connection and iscsid could loop for ever on "can't bind conn ... -107" (run-vm.sh)
a_retried() { [ "$(grep -c "connecting to $PORTAL" "$OUT/iscsid.log")" -gt "$TRIES_AT_FAILURE" ]; }
check A-retried-while-down wait_for 60 a_retried
check restart-A ask_host restart-a 120
check A-path-returns-after-restart wait_for 90 a_back_standby || { iscsiadm -m session -P 1; dmesg | tail -n 20; tail -n 60 "$OUT/iscsid.log"; }
multipath -ll "$WWID" >"$OUT/multipath-after.txt" 2>&1
cat "$OUT/multipath-after.txt"
check read-after-return dd if="$MP" of=/dev/null bs=64k count=64 iflag=direct status=none

# ---- one reservation state through both gateways after the failovers ----
check pr-register-A-after sg_persist --out --register --param-sark="$KEY_A" "$DA"
check pr-register-B-after sg_persist --out --register --param-sark="$KEY_B" "$DB"
sg_persist --in --read-keys "$DA" >"$OUT/keys-A.txt" 2>&1
sg_persist --in --read-keys "$DB" >"$OUT/keys-B.txt" 2>&1
cat "$OUT/keys-A.txt" "$OUT/keys-B.txt"
check pr-same-keys-both-paths bash -c "diff <(grep -i 0x $OUT/keys-A.txt | sort) <(grep -i 0x $OUT/keys-B.txt | sort) && grep -qi $KEY_A $OUT/keys-B.txt && grep -qi $KEY_B $OUT/keys-A.txt"
sg_persist --out --register --param-rk="$KEY_A" --param-sark=0 "$DA" >/dev/null 2>&1
sg_persist --out --register --param-rk="$KEY_B" --param-sark=0 "$DB" >/dev/null 2>&1
multipath -F >/dev/null 2>&1
summary
