#!/bin/bash
# Guest script of fio-tests/bench/run-pgbench-bench.sh: PostgreSQL 15 on the XFS file system the host built on the
# LUN (/pg: a cluster after initdb with its defaults, fsync, full_page_writes and synchronous_commit on, and pgbench -i
# at VM_SCALE, cleanly shut down). Starts it, then pgbench's built-in TPC-B-like script for VM_SECONDS with VM_CLIENTS
# clients and a per-transaction log (-l, in the guest's /tmp), then pgbench -S (select-only) for VM_SELECT_SECONDS
# after a CHECKPOINT and a sync, counting the LUN's reads and writes during it (a data set larger than the guest's
# memory must be read from the LUN). Before all that a fixed CPU job (sha256 of 64 MiB) times the emulated guest's own
# speed in this boot. Prints "pgbench-run: ..." with pgbench's tps, the latency p50/p99 from the log, the select-only
# tps, its LUN reads and writes and the CPU job's MB/s.
# Env from the host: VM_IQN, VM_LUN (the disk's LUN: 0 on this target, 1 on tgtd), VM_SCALE, VM_CLIENTS,
# VM_SECONDS, VM_SELECT_SECONDS. Files: out/meminfo.txt, out/run.txt, out/select.txt, out/pgbench_log.gz, out/postgres.log.
. /vmrun/lib.sh
MNT=/mnt/db
DATA=$MNT/pg
PGBIN=/usr/lib/postgresql/15/bin
PG=(-h /tmp -U postgres)
cp /proc/meminfo "$OUT/meminfo.txt"
check iscsid iscsi_start || abort "iscsid does not start"
check login iscsi_login "$VM_IQN" || abort "login failed"
DISK=$(iscsi_disk "$VM_IQN" 30 "$VM_LUN") || abort "no block device for LUN $VM_LUN"
log "disk $DISK, cache: $(cat "/sys/block/${DISK#/dev/}/queue/write_cache"), memory: $(grep MemTotal /proc/meminfo)"
mkdir -p "$MNT"
check mount mount -o noatime "$DISK" "$MNT" || abort "mount failed"
[ -f "$DATA/PG_VERSION" ] || abort "no PostgreSQL cluster on the LUN"
# the host built the files as root: they become the guest's postgres user's
chown -R postgres:postgres "$DATA" && chmod 700 "$DATA"
check pg-start sh -c "runuser -u postgres -- $PGBIN/pg_ctl -D $DATA -w -t 900 -o '-c listen_addresses= -k /tmp' start \
  >>$OUT/postgres.log 2>&1" || abort "PostgreSQL does not start"
t0=$(date +%s%N)
head -c 67108864 /dev/zero | sha256sum >/dev/null
t1=$(date +%s%N)
control=$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", 64 * 1048576 / 1e6 / (ns / 1e9) }')
check pgbench sh -c "$PGBIN/pgbench -h /tmp -U postgres -b tpcb-like -c $VM_CLIENTS -j 1 -T $VM_SECONDS \
  -l --log-prefix=/tmp/pgbench_log bench >$OUT/run.txt 2>&1"
tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/run.txt" | head -n 1)
cat /tmp/pgbench_log.* | awk '$3 ~ /^[0-9]+$/ { print $3 }' | sort -n >/tmp/latencies
n=$(wc -l </tmp/latencies)
pct() { sed -n "$(( (n * $1 + 99) / 100 ))p" /tmp/latencies; }
# select-only on a data set larger than the guest's memory: its reads go to the LUN, which the counts show. A
# CHECKPOINT and a sync first, so that no write of the TPC-B phase is still going on
sectors() { awk -v f="$1" '{ print $f }' "/sys/block/${DISK#/dev/}/stat"; }
check checkpoint-before-select "$PGBIN/psql" "${PG[@]}" -d bench -X -q -c CHECKPOINT
sync
r0=$(sectors 3) w0=$(sectors 7)
check select-only sh -c "$PGBIN/pgbench -h /tmp -U postgres -n -S -c $VM_CLIENTS -j 1 -T $VM_SELECT_SECONDS bench >$OUT/select.txt 2>&1"
lun_read_kib=$(( ($(sectors 3) - r0) / 2 )) lun_write_kib=$(( ($(sectors 7) - w0) / 2 ))
select_tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/select.txt" | head -n 1)
check transactions test "$n" -gt 0 && check tps test -n "$tps" && check select-tps test -n "$select_tps" \
  && echo "pgbench-run: scale $VM_SCALE, $VM_CLIENTS clients, $n transactions, tps $tps, latency p50/p99 $(pct 50)/$(pct 99) us, select-only tps $select_tps, LUN reads during it $lun_read_kib KiB, writes $lun_write_kib KiB, guest control $control MB/s"
cat /tmp/pgbench_log.* | gzip >"$OUT/pgbench_log.gz"
check pg-stop runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop
check umount umount "$MNT"
check logout iscsi_logout "$VM_IQN"
summary
