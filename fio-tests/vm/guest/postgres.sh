#!/bin/bash
# Guest test (PostgresGuestTest): PostgreSQL 15 on a file system on the target's LUN, and one power cut
# of guest and target together. One boot is one step of a crash series:
#   login -> first boot: mkfs, mount, initdb (fsync, full_page_writes and synchronous_commit on: the
#   defaults), pgbench -i | later boots: mount (the file system's log recovery), start PostgreSQL (its
#   WAL recovery), check against every transaction the host saw pgbench log before: the ledger, the
#   TPC-B invariant, pg_amcheck -> unless this is the last boot: pgbench (TPC-B plus a ledger row per
#   transaction) in the background, VM_SECONDS later the host kills the target (SIGKILL, it stays
#   down) and the guest cuts its own power (sysrq b) with the transactions in flight.
# What "committed" means: pgbench's per-transaction log (-l), one line per transaction whose COMMIT
# returned, written to /vmrun/out (the host's 9p share) line by line (linebuf.so, an LD_PRELOAD shim:
# pgbench leaves the log fully buffered). Every transaction also inserts a ledger row (boot, client);
# the host counts each boot's log lines per client into /vmrun/history.txt ("boot client logged"),
# and each later boot checks rows in the ledger >= logged for every line (one more is fine: committed,
# its COMMIT's answer or its log line lost in the cut).
# Env from the host: VM_IQN, VM_PHASE (first, next or last), VM_BOOT (0, 1, ...), VM_FS (xfs or ext4),
# VM_SCALE (pgbench -i scale), VM_CLIENTS, VM_SECONDS (workload time before the kill).
# Files: out/check.txt (the "pg-check:" line), out/ledger-N.txt, out/amcheck-N.txt, out/postgres-N.log,
# out/pgbench_log.PID (the -l log), out/pgbench-N.txt, out/init.txt, out/mkfs.txt, out/fsck.txt.
. /vmrun/lib.sh
IQN=$VM_IQN
MNT=/mnt/db
DATA=$MNT/pg
PGBIN=/usr/lib/postgresql/15/bin
PG=(-h /tmp -U postgres)
SCRIPT=/tmp/tpcb-ledger.sql

sql() { "$PGBIN/psql" "${PG[@]}" -d bench -X -q -At -F ' ' -v ON_ERROR_STOP=1 -c "$1"; }

# pg_start: the server as user postgres on a Unix socket in /tmp only (no TCP); its output to
# out/postgres-BOOT.log, opened here as root (the 9p share is not writable for postgres)
pg_start() {
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DATA" -w -t 900 \
    -o "-c listen_addresses= -k /tmp -c checkpoint_timeout=30s" start >>"$OUT/postgres-$VM_BOOT.log" 2>&1
}

cp /vmrun/linebuf.so /tmp/linebuf.so
cat >"$SCRIPT" <<'EOF'
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
INSERT INTO ledger (boot, client, delta) VALUES (:boot, :client_id, :delta);
END;
EOF

check iscsid iscsi_start || abort "iscsid does not start"
check login iscsi_login "$IQN" || abort "login failed"
DISK=$(iscsi_disk "$IQN") || abort "no block device after login"
log "disk $DISK, $(blockdev --getsize64 "$DISK") bytes, cache: $(cat "/sys/block/${DISK#/dev/}/queue/write_cache")"
mkdir -p "$MNT"

if [ "$VM_PHASE" = first ]; then
  case $VM_FS in
    xfs) check mkfs mkfs.xfs -f "$DISK" >"$OUT/mkfs.txt" 2>&1 ;;
    ext4) check mkfs mkfs.ext4 -q -F "$DISK" >"$OUT/mkfs.txt" 2>&1 ;;
    *) abort "VM_FS must be xfs or ext4: $VM_FS" ;;
  esac
  check mount mount -o noatime "$DISK" "$MNT" || abort "mount failed"
  mkdir -p "$DATA" && chown postgres:postgres "$DATA" && chmod 700 "$DATA"
  check initdb runuser -u postgres -- "$PGBIN/initdb" -D "$DATA" -A trust -E UTF8 --locale=C.UTF-8 >"$OUT/init.txt" 2>&1 \
    || abort "initdb failed"
  check pg-start pg_start || abort "PostgreSQL does not start"
  log "settings: $("$PGBIN/psql" "${PG[@]}" -d postgres -At \
    -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'full_page_writes', 'synchronous_commit', 'wal_sync_method')")"
  check createdb "$PGBIN/createdb" "${PG[@]}" bench || abort "createdb failed"
  check pgbench-init "$PGBIN/pgbench" "${PG[@]}" -i -q -s "$VM_SCALE" bench >>"$OUT/init.txt" 2>&1 || abort "pgbench -i failed"
  check ledger-table sql "CREATE TABLE ledger (boot int NOT NULL, client int NOT NULL, delta int NOT NULL)" \
    || abort "no ledger table"
  tail -n 2 "$OUT/init.txt"
else
  check mount-after-power-cut mount -o noatime "$DISK" "$MNT" || abort "mount after the power cut failed"
  t0=$SECONDS
  check pg-start-recovery pg_start || abort "PostgreSQL does not start after the power cut"
  recovery=$((SECONDS - t0))
  grep -E 'redo (starts|done)|database system (was|is ready)|checkpoint complete' "$OUT/postgres-$VM_BOOT.log" | tail -n 6
  # the ledger per (boot, client) against what the host saw pgbench log
  sql "SELECT boot, client, count(*) FROM ledger GROUP BY 1, 2 ORDER BY 1, 2" >"$OUT/ledger-$VM_BOOT.txt" \
    || abort "cannot read the ledger"
  # (FILENAME, not NR == FNR: with an empty ledger, everything lost, that would read the history as the ledger)
  read -r logged present lost extra over <<<"$(awk -v ledger="$OUT/ledger-$VM_BOOT.txt" '
    FILENAME == ledger { rows[$1 " " $2] = $3; next }
    { k = $1 " " $2; seen[k] = 1; r = rows[k] + 0; logged += $3
      if (r >= $3) present += $3; else { present += r; lost += $3 - r; print "LOST: boot " $1 " client " $2 ": " $3 " logged, " r " in the ledger" > "/dev/stderr" }
      if (r > $3) extra += r - $3
      if (r > $3 + 1) over++ }
    END { for (k in rows) if (!(k in seen)) { extra += rows[k]; over++ }
          print logged + 0, present + 0, lost + 0, extra + 0, over + 0 }' "$OUT/ledger-$VM_BOOT.txt" /vmrun/history.txt)"
  check nothing-lost test "$lost" = 0
  # one transaction per client may have committed without pgbench logging it (its COMMIT's answer or
  # its log line was in flight at the cut); more would mean the log is not the whole truth
  check log-complete test "$over" = 0
  # TPC-B: every transaction adds delta to one account, teller and branch and inserts it into the
  # history (and one ledger row); pgbench -i starts all balances at 0
  sums=$(sql "SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(tbalance) FROM pgbench_tellers),
    (SELECT sum(bbalance) FROM pgbench_branches), (SELECT coalesce(sum(delta), 0) FROM pgbench_history),
    (SELECT count(*) FROM pgbench_history), (SELECT count(*) FROM ledger)")
  log "sums of account, teller, branch balances and history deltas; history and ledger rows: $sums"
  invariant=BAD
  # shellcheck disable=SC2086
  set -- $sums
  [ "$#" = 6 ] && [ "$1" = "$2" ] && [ "$2" = "$3" ] && [ "$3" = "$4" ] && [ "$5" = "$6" ] && invariant=ok
  check tpcb-invariant test "$invariant" = ok
  "$PGBIN/pg_amcheck" "${PG[@]}" --install-missing --heapallindexed --parent-check bench >"$OUT/amcheck-$VM_BOOT.txt" 2>&1
  arc=$?
  amcheck=$([ "$arc" = 0 ] && echo clean || echo "FAILED($arc)")
  head -n 20 "$OUT/amcheck-$VM_BOOT.txt"
  check amcheck-clean test "$arc" = 0
  line="pg-check: boot $VM_BOOT: $logged logged, $present present, $lost lost, $extra extra, $over over, invariant $invariant, amcheck $amcheck, recovery $recovery s"
  echo "$line" >"$OUT/check.txt"
  log "$line"
fi

if [ "$VM_PHASE" = last ]; then
  check pg-stop runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop
  check umount umount "$MNT"
  case $VM_FS in
    xfs) check fs-check-clean xfs_repair -n "$DISK" >"$OUT/fsck.txt" 2>&1 ;;
    ext4) check fs-check-clean fsck.ext4 -f -n "$DISK" >"$OUT/fsck.txt" 2>&1 ;;
  esac
  check logout iscsi_logout "$IQN"
  summary
  exit
fi

# the workload runs on; the host kills the target, then the guest's power goes
LD_PRELOAD=/tmp/linebuf.so "$PGBIN/pgbench" "${PG[@]}" -n -c "$VM_CLIENTS" -j 1 -s "$VM_SCALE" -T 100000 -f "$SCRIPT" \
  -D boot="$VM_BOOT" -l --log-prefix="$OUT/pgbench_log" bench >"$OUT/pgbench-$VM_BOOT.txt" 2>&1 &
WPID=$!
sleep "$VM_SECONDS"
check workload-running kill -0 "$WPID"
check commits-before-kill test "$(cat "$OUT"/pgbench_log.* 2>/dev/null | wc -l)" -gt 0
check target-killed ask_host kill-daemon 60
log "transactions logged: $(cat "$OUT"/pgbench_log.* | wc -l), last lines: $(tail -q -n 2 "$OUT"/pgbench_log.* | tr '\n' ' ')"
summary
# as wiredtiger.sh: the status line, 2 s for the serial console to drain, then the power cut (no sync)
[ "$_failed" = 0 ] && echo "VM-EXIT-STATUS=0" || echo "VM-EXIT-STATUS=1"
sleep 2
echo b >/proc/sysrq-trigger
sleep 30
