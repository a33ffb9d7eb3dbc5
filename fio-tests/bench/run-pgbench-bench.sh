#!/usr/bin/env bash
# run-pgbench-bench.sh - PostgreSQL 15 pgbench (built-in TPC-B-like; initdb's defaults: fsync, full_page_writes and
# synchronous_commit on, so every commit waits for its WAL fdatasync) on XFS through the kernel initiator in the qemu
# guest, against tgtd and this daemon with its NUMA cache off, on with write-through and on with write-back, in the
# same run; reports pgbench's tps and the latency p50/p99 from its per-transaction log (-l), then select-only tps
# (pgbench -S) on a data set larger than the guest's memory with the LUN reads it caused, medians over the repeats,
# the ratios to tgtd and a chart. The guest is emulated (TCG): only the ratios mean anything, and each boot also
# times a fixed CPU job (sha256 of 64 MiB) as a control of how fast the guest itself ran.
#
#   fio-tests/bench/run-pgbench-bench.sh [--scale N] [--clients C] [--seconds S] [--select-seconds S] [--repeats R]
#       [--variants "tgtd cache-off write-through write-back"] [--guest-mem MiB] [--shared-buffers SIZE]
#       [--lun-size BYTES] [--out DIR]
#
# Defaults: scale 75 (7,500,000 accounts, about 1.1 GB: 1.5 times the guest's 768 MiB), 4 clients, 30 s of TPC-B,
# 20 s of select-only, 2 repeats, all four variants, shared_buffers 32MB. The cluster (initdb, pgbench -i, CHECKPOINT,
# clean shutdown) is built once per run on the host (the same PostgreSQL 15 as the guest) into a 3 GiB XFS image
# (loop-mounted); every boot gets a fresh copy of it as a file LUN on /dev/shm behind a target started for that boot
# (tgtd, or a daemon: cache off, or 256M per node, 64K blocks, 2 pretend nodes as CacheModesTest), the variants' order
# rotating between repeats. Needs the daemon built (mvn -o -q -pl target-daemon -am package -DskipTests), postgresql-15
# on the host, xfsprogs and tgt. Output: DIR/table.md, DIR/results.tsv, DIR/pgbench-ratios.png, each boot's run dir
# (guest script fio-tests/vm/guest/pgbench-bench.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=run-pgbench-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"
BENCH_DEFAULT_BASE_PORT=14100

SCALE=75 CLIENTS=4 RUN_SECONDS=30 SELECT_SECONDS=20 REPEATS=2 VARIANTS=$DB_VARIANTS_DEFAULT GUEST_MEM=768
SHARED_BUFFERS=32MB LUN_BYTES=3221225472
OUT=$ROOT/fio-tests/target/bench-pgbench/$(date +%Y%m%d-%H%M%S)
while [[ $# -gt 0 ]]; do
  case $1 in
    --scale) SCALE=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --seconds) RUN_SECONDS=$2; shift 2 ;;
    --select-seconds) SELECT_SECONDS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --variants) VARIANTS=$2; shift 2 ;;
    --guest-mem) GUEST_MEM=$2; shift 2 ;;
    --shared-buffers) SHARED_BUFFERS=$2; shift 2 ;;
    --lun-size) LUN_BYTES=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd)"
check_variants "$VARIANTS"
require_daemon_build
require_chart_driver
command -v tgtd >/dev/null || apt_install tgt
PGBIN=/usr/lib/postgresql/15/bin
[[ -x $PGBIN/initdb ]] || apt_install postgresql-15
SHM= TGTD_PID= TGTD_PORT= DAEMON_PID= DAEMON_PORT= LOAD_PGDATA=
cleanup_extra() { # the host's PostgreSQL of the load, if the load failed half-way
  [[ -n $LOAD_PGDATA && -f $LOAD_PGDATA/postmaster.pid ]] &&
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$LOAD_PGDATA" -m immediate -w stop >/dev/null 2>&1
}
trap_exits
mkdir -p "$OUT"
SHM=$(mktemp -d /dev/shm/pg-bench.XXXXXX)
log "results in $OUT"
IMAGE=$("$ROOT/fio-tests/vm/build-image.sh" | tail -n 1)

# the cluster, built once on the host and put into an XFS image that every boot gets a copy of
chmod 711 "$SHM"
mkdir -p "$SHM/fs/pg" "$SHM/pgsock"
chown postgres:postgres "$SHM/fs/pg" "$SHM/pgsock"
chmod 700 "$SHM/fs/pg"
LOAD_PGDATA=$SHM/fs/pg
pg_host() { runuser -u postgres -- "$@"; }
pg_host "$PGBIN/initdb" -D "$LOAD_PGDATA" -A trust -E UTF8 --locale=C.UTF-8 >"$OUT/init.txt" 2>&1 || die "initdb failed: $OUT/init.txt"
echo "shared_buffers = $SHARED_BUFFERS" >>"$LOAD_PGDATA/postgresql.conf"
free_port LOAD_PORT
pg_host "$PGBIN/pg_ctl" -D "$LOAD_PGDATA" -w -l "$SHM/pgsock/postgres.log" \
  -o "-c listen_addresses= -k $SHM/pgsock -p $LOAD_PORT -c max_wal_size=256MB -c min_wal_size=32MB" start >/dev/null \
  || die "PostgreSQL does not start on the host: $SHM/pgsock/postgres.log"
PGH=(-h "$SHM/pgsock" -p "$LOAD_PORT" -U postgres)
pg_host "$PGBIN/createdb" "${PGH[@]}" bench
t0=$SECONDS
pg_host "$PGBIN/pgbench" "${PGH[@]}" -i -q -s "$SCALE" bench >>"$OUT/init.txt" 2>&1 || die "pgbench -i failed: $OUT/init.txt"
pg_host "$PGBIN/psql" "${PGH[@]}" -d bench -X -q -c CHECKPOINT
DB_MB=$(pg_host "$PGBIN/psql" "${PGH[@]}" -d bench -X -A -t -c "SELECT pg_database_size('bench') / 1048576")
pg_host "$PGBIN/pg_ctl" -D "$LOAD_PGDATA" -m fast -w stop >/dev/null
cp "$SHM/pgsock/postgres.log" "$OUT/load-postgres.log"
LOAD_PGDATA=
DATA_MB=$(du -sm "$SHM/fs/pg" | cut -f1)
log "pgbench -i -s $SCALE on the host in $((SECONDS - t0)) s: database bench $DB_MB MiB, cluster $DATA_MB MiB; guest memory $GUEST_MEM MiB"
xfs_image_from_dir "$SHM/fs" "$SHM/golden.img" "$LUN_BYTES"
rm -rf "$SHM/fs"

# boot VARIANT REPEAT: a fresh copy of the image behind the variant's target, one guest run (TPC-B, select-only)
boot() {
  local dir=$OUT/$1-$2
  mkdir -p "$dir"
  cp --sparse=always "$SHM/golden.img" "$SHM/lun.img"
  chmod 600 "$SHM/lun.img"   # the daemon warns about a disk others may read
  start_variant "$1" "$SHM/lun.img" "$LUN_BYTES" "$dir" pg
  GUEST_IQN=$VARIANT_IQN GUEST_LUN=$VARIANT_LUN GUEST_SCALE=$SCALE GUEST_CLIENTS=$CLIENTS GUEST_SECONDS=$RUN_SECONDS \
    GUEST_SELECT_SECONDS=$SELECT_SECONDS VM_IMAGE=$IMAGE VM_QUIET=1 VM_MEM=$GUEST_MEM \
    VM_TIMEOUT=$((900 + 2 * (RUN_SECONDS + SELECT_SECONDS))) \
    bash "$ROOT/fio-tests/vm/run-vm.sh" "$VARIANT_PORT" "$dir" "$ROOT/fio-tests/vm/guest/pgbench-bench.sh" \
    || die "guest run $1 repeat $2 failed: $dir/serial.log"
  stop_variant
  rm -f "$SHM/lun.img"
  local line
  line=$(grep -o 'pgbench-run: .*' "$dir/serial.log" | tail -n 1) || die "no pgbench-run line: $dir/serial.log"
  sed -n 's/^pgbench-run: .*, \([0-9]*\) transactions, tps \([0-9.]*\), latency p50\/p99 \([0-9]*\)\/\([0-9]*\) us, select-only tps \([0-9.]*\), LUN reads during it \([0-9]*\) KiB, writes \([0-9]*\) KiB, guest control \([0-9.]*\) MB\/s.*/\1\t\2\t\3\t\4\t\5\t\6\t\7\t\8/p' \
    <<<"$line" | while IFS=$'\t' read -r n tps p50 p99 stps rkib wkib control; do
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$n" "$tps" "$p50" "$p99" "$stps" "$rkib" "$wkib" "$control"
    done >>"$OUT/results.tsv"
  grep -q "^$1	$2	" "$OUT/results.tsv" || die "cannot parse: $line"
  log "$1 repeat $2: $line"
}
printf 'variant\trepeat\ttransactions\ttps\tlat_p50_us\tlat_p99_us\tselect_tps\tselect_lun_read_kib\tselect_lun_write_kib\tcontrol_mb_s\n' \
  >"$OUT/results.tsv"
for r in $(seq "$REPEATS"); do
  for v in $(variant_order "$VARIANTS" "$r"); do boot "$v" "$r"; done
done

# medians per variant, ratios to tgtd (for latencies lower is better, so tgtd / variant > 1 means faster)
python3 - "$OUT/results.tsv" "$SCALE" "$DB_MB" "$GUEST_MEM" "$CLIENTS" "$RUN_SECONDS" "$SELECT_SECONDS" "$REPEATS" \
  "$SHARED_BUFFERS" >"$OUT/table.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
keys = ("tps", "lat_p50_us", "lat_p99_us", "select_tps", "select_lun_read_kib", "control_mb_s")
variants = list(dict.fromkeys(r["variant"] for r in rows))
med = {v: {k: statistics.median(float(r[k]) for r in rows if r["variant"] == v) for k in keys} for v in variants}
print(f"pgbench on XFS in the TCG guest ({sys.argv[4]} MiB), scale {sys.argv[2]} (database {sys.argv[3]} MiB), "
      f"shared_buffers {sys.argv[9]}, {sys.argv[5]} clients, TPC-B-like {sys.argv[6]} s then select-only {sys.argv[7]} s, "
      f"median of {sys.argv[8]} repeats\n")
ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
t = med.get("tgtd")
print("| variant | TPC-B tps / tgtd | p50 tgtd / variant | p99 tgtd / variant | select-only tps / tgtd | TPC-B tps | p99 ms | select-only tps | LUN reads in select-only MiB | guest control / tgtd |")
print("|---|---|---|---|---|---|---|---|---|---|")
for v in variants:
    d = med[v]
    print(f"| {v} | {ratio(d['tps'], t and t['tps'])} | {ratio(t and t['lat_p50_us'], d['lat_p50_us'])} | "
          f"{ratio(t and t['lat_p99_us'], d['lat_p99_us'])} | {ratio(d['select_tps'], t and t['select_tps'])} | "
          f"{d['tps']:.1f} | {d['lat_p99_us'] / 1000:.0f} | {d['select_tps']:.1f} | {d['select_lun_read_kib'] / 1024:.0f} | "
          f"{ratio(d['control_mb_s'], t and t['control_mb_s'])} |")
PY
db_ratio_chart "$OUT/results.tsv" "$OUT/pgbench-ratios.png" \
  "pgbench in the TCG guest: ratio to tgtd per variant (medians; >1 is better)" \
  --metric "tps:up:TPC-B tps" --metric "lat_p50_us:down:TPC-B p50" --metric "lat_p99_us:down:TPC-B p99" \
  --metric "select_tps:up:select-only tps" --metric "control_mb_s:up:guest CPU control"
cat "$OUT/table.md"
