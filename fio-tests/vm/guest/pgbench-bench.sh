#!/bin/bash
# Guest script of fio-tests/bench/run-pgbench-bench.sh: PostgreSQL 15 (initdb's defaults: fsync,
# full_page_writes, synchronous_commit on) on XFS on one LUN, pgbench -i at VM_SCALE, then pgbench's
# built-in TPC-B-like script for VM_SECONDS with VM_CLIENTS clients and a per-transaction log (-l, in the
# guest's /tmp), then pgbench -S (select-only) for VM_CONTROL_SECONDS as a control of the guest's speed. Prints
# "pgbench-run: ..." with pgbench's tps, the latency p50/p99 from the log and the select-only tps.
# Env from the host: VM_IQN, VM_LUN (the disk's LUN: 0 on this target, 1 on tgtd), VM_SCALE, VM_CLIENTS,
# VM_SECONDS, VM_CONTROL_SECONDS. Files: out/init.txt, out/run.txt, out/select.txt, out/pgbench_log.gz, out/postgres.log.
. /vmrun/lib.sh
MNT=/mnt/db
DATA=$MNT/pg
PGBIN=/usr/lib/postgresql/15/bin
PG=(-h /tmp -U postgres)
check iscsid iscsi_start || abort "iscsid does not start"
check login iscsi_login "$VM_IQN" || abort "login failed"
DISK=$(iscsi_disk "$VM_IQN" 30 "$VM_LUN") || abort "no block device for LUN $VM_LUN"
log "disk $DISK, cache: $(cat "/sys/block/${DISK#/dev/}/queue/write_cache")"
check mkfs sh -c "mkfs.xfs -f $DISK >$OUT/mkfs.txt 2>&1" || abort "mkfs failed"
mkdir -p "$MNT"
check mount mount -o noatime "$DISK" "$MNT" || abort "mount failed"
mkdir -p "$DATA" && chown postgres:postgres "$DATA" && chmod 700 "$DATA"
check initdb runuser -u postgres -- "$PGBIN/initdb" -D "$DATA" -A trust -E UTF8 --locale=C.UTF-8 >"$OUT/init.txt" 2>&1 \
  || abort "initdb failed"
check pg-start sh -c "runuser -u postgres -- $PGBIN/pg_ctl -D $DATA -w -t 900 -o '-c listen_addresses= -k /tmp' start \
  >>$OUT/postgres.log 2>&1" || abort "PostgreSQL does not start"
check createdb "$PGBIN/createdb" "${PG[@]}" bench || abort "createdb failed"
check pgbench-init "$PGBIN/pgbench" "${PG[@]}" -i -q -s "$VM_SCALE" bench >>"$OUT/init.txt" 2>&1 || abort "pgbench -i failed"
tail -n 1 "$OUT/init.txt"
check checkpoint "$PGBIN/psql" "${PG[@]}" -d bench -X -q -c CHECKPOINT
check pgbench sh -c "$PGBIN/pgbench -h /tmp -U postgres -b tpcb-like -c $VM_CLIENTS -j 1 -T $VM_SECONDS \
  -l --log-prefix=/tmp/pgbench_log bench >$OUT/run.txt 2>&1"
tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/run.txt" | head -n 1)
cat /tmp/pgbench_log.* | awk '$3 ~ /^[0-9]+$/ { print $3 }' | sort -n >/tmp/latencies
n=$(wc -l </tmp/latencies)
pct() { sed -n "$(( (n * $1 + 99) / 100 ))p" /tmp/latencies; }
# the control: select-only (-S) on the same data, which the guest's memory holds, so it measures how fast
# the emulated guest ran in this boot, not the target. A CHECKPOINT and a sync first, so that no write of the
# TPC-B phase is still going on; the LUN's reads and writes during it are counted to show that
sectors() { awk -v f="$1" '{ print $f }' "/sys/block/${DISK#/dev/}/stat"; }
check checkpoint-before-control "$PGBIN/psql" "${PG[@]}" -d bench -X -q -c CHECKPOINT
sync
r0=$(sectors 3) w0=$(sectors 7)
check select-only sh -c "$PGBIN/pgbench -h /tmp -U postgres -n -S -c $VM_CLIENTS -j 1 -T $VM_CONTROL_SECONDS bench >$OUT/select.txt 2>&1"
lun_read_kib=$(( ($(sectors 3) - r0) / 2 )) lun_write_kib=$(( ($(sectors 7) - w0) / 2 ))
select_tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/select.txt" | head -n 1)
check transactions test "$n" -gt 0 && check tps test -n "$tps" && check select-tps test -n "$select_tps" \
  && echo "pgbench-run: scale $VM_SCALE, $VM_CLIENTS clients, $n transactions, tps $tps, latency p50/p99 $(pct 50)/$(pct 99) us, select-only tps $select_tps, LUN reads during it $lun_read_kib KiB, writes $lun_write_kib KiB"
cat /tmp/pgbench_log.* | gzip >"$OUT/pgbench_log.gz"
check pg-stop runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop
check umount umount "$MNT"
check logout iscsi_logout "$VM_IQN"
summary
