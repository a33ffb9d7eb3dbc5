#!/bin/bash
# Guest test (PackageGuestTest): the Debian package under systemd, everything inside the guest, booted with
# systemd as PID 1 (VM_INIT=systemd). dpkg -i the .deb (/vmrun/numa-iscsi-target.deb); systemd-analyze verify
# on the installed unit; the default config gets a write-back cache; `systemctl start` returns once the daemon
# sent READY=1 (Type=notify), and the portal listens by then; the guest's own open-iscsi logs in on 127.0.0.1 and
# writes and reads LUN 0; a second LUN (a loop device: a block device LUN through the unit's hardening) is added to
# target.yaml and `systemctl reload` applies it: a session rescan finds it; `systemctl stop` with the session
# logged in exits 0 within TimeoutStopSec, and what was written is in the backing file and on the loop device.
# Timings go to /vmrun/out/timings.txt.
. /vmrun/lib.sh
PORTAL=127.0.0.1:3260
IQN=iqn.2026-11.io.numaiscsi:disk0
UNIT=numa-iscsi-target.service
CONF=/etc/numa-iscsi-target/target.yaml
DATA=/var/lib/numa-iscsi-target
LOOP_FILE=/srv/lun1.img

now() { date +%s.%N; }
since() { echo "$1 $(now)" | awk '{ printf "%.1f", $2 - $1 }'; }
timing() { echo "$1 $2" >>"$OUT/timings.txt"; log "$1: $2 s"; }

save_journal() {
  journalctl -b --no-pager -o short-iso -u "$UNIT" >"$OUT/journal-unit.txt" 2>&1
  systemctl status --no-pager "$UNIT" >"$OUT/status.txt" 2>&1
}
trap save_journal EXIT

# pattern FILE MIB: MIB MiB of random bytes
pattern() { head -c "$(($2 << 20))" /dev/urandom >"$1"; }

# same_bytes DEV OFFSET_MIB FILE: the bytes of FILE are at OFFSET_MIB in DEV (read O_DIRECT where DEV is a device)
same_bytes() {
  local n=$(( $(stat -c %s "$3") >> 20 )) flag=
  [ -b "$1" ] && flag=iflag=direct
  dd if="$1" of=/tmp/readback bs=1M skip="$2" count="$n" $flag status=none && cmp /tmp/readback "$3"
}

# unit_prop NAME: a property of the unit as systemctl shows it
unit_prop() { systemctl show -p "$1" --value "$UNIT"; }

check systemd-is-pid1 test "$(cat /proc/1/comm)" = systemd || abort "PID 1 is $(cat /proc/1/comm), not systemd"
t=$(now)
check dpkg-install sh -c "dpkg -i /vmrun/numa-iscsi-target.deb >$OUT/dpkg.txt 2>&1" || abort "dpkg -i failed: $(tail -n 5 "$OUT/dpkg.txt")"
timing dpkg-install "$(since "$t")"
check datadir-0700 test "$(stat -c %a "$DATA")" = 700
check config-0600 test "$(stat -c %a "$CONF")" = 600
check unit-known test "$(unit_prop LoadState)" = loaded
systemd-analyze verify "$UNIT" >"$OUT/verify.txt" 2>&1
rc=$?
check systemd-analyze-verify test "$rc" = 0 -a ! -s "$OUT/verify.txt" || log "verify: $(cat "$OUT/verify.txt")"

# write-back, with nothing flushed in the background for an hour: only SYNCHRONIZE CACHE or the stop flushes
cat >>"$CONF" <<'YAML'
cache:
  mode: numa
  size-per-node: 16M
  block-size: 64K
  write-policy: write-back
  dirty-expire: 1h
YAML

t=$(now)
check start systemctl start "$UNIT" || abort "systemctl start failed"
timing start "$(since "$t")"
# Type=notify: start returned after READY=1, which the daemon sends once every portal listens
check listening-when-started bash -c "exec 3<>/dev/tcp/127.0.0.1/3260"
check status-serving test "$(unit_prop StatusText)" = serving
check main-pid-is-java test "$(cat /proc/"$(unit_prop MainPID)"/comm)" = java
check memlock-unlimited grep -q "^Max locked memory *unlimited *unlimited" /proc/"$(unit_prop MainPID)"/limits
check admin-ls sh -c "numa-iscsi-admin ls >$OUT/admin-ls-1.txt 2>&1"

# ---- the guest's own initiator on 127.0.0.1 ----
modprobe -a iscsi_tcp sd_mod sg loop
check iscsid systemctl start iscsid.service || abort "iscsid does not start"
check discovery sh -c "iscsiadm -m discovery -t sendtargets -p $PORTAL >$OUT/discovery.txt" || abort "discovery failed"
check discovery-lists-target grep -q "$IQN" "$OUT/discovery.txt"
check login iscsiadm -m node -T "$IQN" -p "$PORTAL" --login || abort "login failed"
DISK0=$(iscsi_disk "$IQN" 60 0) || abort "no block device for LUN 0"
log "LUN 0: $DISK0"
pattern /tmp/p0 8
check write-lun0 dd if=/tmp/p0 of="$DISK0" bs=1M seek=16 oflag=direct status=none
check read-lun0 same_bytes "$DISK0" 16 /tmp/p0

# ---- reload: LUN 1, a loop device, appears after a rescan ----
truncate -s 64M "$LOOP_FILE"
LOOP=$(losetup -f --show "$LOOP_FILE") || abort "losetup failed"
log "LUN 1 will be $LOOP"
sed -i "s#^        size: 1G\$#        size: 1G\n      - {id: 1, backing: block, path: $LOOP}#" "$CONF"
check config-has-lun1 grep -q "path: $LOOP" "$CONF"
check check-config numa-iscsi-target --check-config "$CONF"
t=$(now)
check reload systemctl reload "$UNIT"
# ExecReload is kill -HUP: it returns before the daemon has reread the file; the journal says when it has
applied() { journalctl -b -u "$UNIT" --no-pager | grep -q "reload: 1 of 1 change(s) applied"; }
for _ in $(seq 120); do applied && break; sleep 0.5; done
check reload-applied applied
timing reload "$(since "$t")"
check active-after-reload test "$(unit_prop ActiveState)" = active
check rescan iscsiadm -m session --rescan
DISK1=$(iscsi_disk "$IQN" 60 1) || abort "LUN 1 did not appear after the reload and rescan"
log "LUN 1: $DISK1"
check lun1-size test "$(blockdev --getsize64 "$DISK1")" = $((64 << 20))
pattern /tmp/p1 4
check write-lun1 dd if=/tmp/p1 of="$DISK1" bs=1M seek=8 oflag=direct status=none
check read-lun1 same_bytes "$DISK1" 8 /tmp/p1

# ---- stop with the session logged in: sessions asked to log out, caches flushed, exit 0 ----
timeout_stop=$(unit_prop TimeoutStopUSec)
t=$(now)
check stop systemctl stop "$UNIT"
stop_s=$(since "$t")
timing stop "$stop_s"
check stopped-within-timeout awk -v s="$stop_s" 'BEGIN { exit !(s < 300) }'
check stop-result-success test "$(unit_prop Result)" = success
check exit-status-0 test "$(unit_prop ExecMainStatus)" = 0
check lun0-data-in-file same_bytes "$DATA/lun0.img" 16 /tmp/p0
check lun1-data-on-loop same_bytes "$LOOP" 8 /tmp/p1
log "TimeoutStopUSec=$timeout_stop"

save_journal
grep -E "stopping|flush|READY|reload" "$OUT/journal-unit.txt" | tail -n 20
timeout 30 iscsiadm -m node -T "$IQN" -p "$PORTAL" --logout >/dev/null 2>&1
losetup -d "$LOOP"
summary
