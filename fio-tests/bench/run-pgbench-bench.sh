#!/usr/bin/env bash
# run-pgbench-bench.sh - PostgreSQL 15 pgbench (built-in TPC-B-like; initdb's defaults: fsync, full_page_writes and
# synchronous_commit on, so every commit waits for its WAL fdatasync) on XFS through the kernel initiator in the qemu
# guest, against tgtd and this daemon in the same run, alternating; reports pgbench's tps and the latency p50/p99 from
# its per-transaction log (-l), medians over the repeats and the ratios daemon / tgtd. The guest is emulated (TCG):
# only the ratios mean anything, and each boot also runs pgbench -S (select-only, on data the guest's memory holds,
# after a CHECKPOINT and a sync: no LUN I/O, which it counts) as a control: its ratio is how much faster the guest
# itself ran in the daemon's boots.
#
#   fio-tests/bench/run-pgbench-bench.sh [--scale N] [--clients C] [--seconds S] [--repeats R]
#                                        [--control-seconds S] [--policy write-through|write-back] [--out DIR]
#
# Defaults: scale 10 (1,000,000 accounts, about 150 MB), 4 clients, 60 s, 3 repeats, 10 s of select-only,
# write-through. One guest boot per target and repeat: mkfs, initdb, pgbench -i, CHECKPOINT, pgbench, pgbench -S.
# Both targets get a 1 GiB file LUN on /dev/shm; the daemon runs with the NUMA cache (256M per node, 64K blocks,
# 2 pretend nodes, as CacheModesTest).
# Needs the daemon built (mvn -o -q -pl target-daemon -am package -DskipTests) and tgt. Output: DIR/table.md,
# DIR/results.tsv, each boot's run dir (guest script fio-tests/vm/guest/pgbench-bench.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=run-pgbench-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, stop_pid, stop_tgtd, start_tgtd_lun, require_daemon_build, start_daemon_file_lun
BENCH_DEFAULT_BASE_PORT=14100

SCALE=10 CLIENTS=4 RUN_SECONDS=60 REPEATS=3 CONTROL_SECONDS=10 POLICY=write-through
OUT=$ROOT/fio-tests/target/bench-pgbench/$(date +%Y%m%d-%H%M%S)
while [[ $# -gt 0 ]]; do
  case $1 in
    --scale) SCALE=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --seconds) RUN_SECONDS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --control-seconds) CONTROL_SECONDS=$2; shift 2 ;;
    --policy) POLICY=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd)"
require_daemon_build
command -v tgtd >/dev/null || apt_install tgt
TGT_IQN=iqn.2026-11.io.numaiscsi:pg-tgtd
IQN=iqn.2026-11.io.numaiscsi:pg
SHM= TGTD_PID= TGTD_PORT= DAEMON_PID= DAEMON_PORT=
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM HUP ERR
  stop_pid "$DAEMON_PID" 20
  stop_tgtd
  [[ -n $SHM && -d $SHM ]] && rm -rf "$SHM"
  exit "$rc"
}
trap_exits
mkdir -p "$OUT"
SHM=$(mktemp -d /dev/shm/pg-bench.XXXXXX)
log "results in $OUT"
IMAGE=$("$ROOT/fio-tests/vm/build-image.sh" | tail -n 1)

truncate -s 1G "$SHM/tgtd.img"
start_tgtd_lun "$TGT_IQN" "$SHM/tgtd.img"
log "tgtd pid $TGTD_PID on 127.0.0.1:$TGTD_PORT"
start_daemon_file_lun "$IQN" "$SHM/daemon.img" 1073741824 "$POLICY" "$SHM/data"
log "daemon pid $DAEMON_PID on 127.0.0.1:$DAEMON_PORT ($POLICY)"

# boot TARGET PORT IQN LUN REPEAT: one guest run (fresh file system, initdb, pgbench -i, pgbench)
boot() {
  local dir=$OUT/$1-$5
  mkdir -p "$dir"
  GUEST_IQN=$3 GUEST_LUN=$4 GUEST_SCALE=$SCALE GUEST_CLIENTS=$CLIENTS GUEST_SECONDS=$RUN_SECONDS GUEST_CONTROL_SECONDS=$CONTROL_SECONDS \
    VM_IMAGE=$IMAGE VM_QUIET=1 VM_TIMEOUT=$((900 + 2 * RUN_SECONDS + 30 * SCALE)) \
    bash "$ROOT/fio-tests/vm/run-vm.sh" "$2" "$dir" "$ROOT/fio-tests/vm/guest/pgbench-bench.sh" \
    || die "guest run $1 repeat $5 failed: $dir/serial.log"
  local line
  line=$(grep -o 'pgbench-run: .*' "$dir/serial.log" | tail -n 1) || die "no pgbench-run line: $dir/serial.log"
  sed -n 's/^pgbench-run: .*, \([0-9]*\) transactions, tps \([0-9.]*\), latency p50\/p99 \([0-9]*\)\/\([0-9]*\) us, select-only tps \([0-9.]*\), LUN reads during it \([0-9]*\) KiB, writes \([0-9]*\) KiB.*/\1\t\2\t\3\t\4\t\5\t\6\t\7/p' \
    <<<"$line" | while IFS=$'\t' read -r n tps p50 p99 stps rkib wkib; do
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$5" "$n" "$tps" "$p50" "$p99" "$stps" "$rkib" "$wkib"
    done >>"$OUT/results.tsv"
  log "$1 repeat $5: $line"
}
printf 'target\trepeat\ttransactions\ttps\tlat_p50_us\tlat_p99_us\tselect_tps\tselect_lun_read_kib\tselect_lun_write_kib\n' >"$OUT/results.tsv"
for r in $(seq "$REPEATS"); do
  if (( r % 2 )); then
    boot tgtd "$TGTD_PORT" "$TGT_IQN" 1 "$r"; boot daemon "$DAEMON_PORT" "$IQN" 0 "$r"
  else
    boot daemon "$DAEMON_PORT" "$IQN" 0 "$r"; boot tgtd "$TGTD_PORT" "$TGT_IQN" 1 "$r"
  fi
done

# medians per target, and daemon / tgtd (for latencies lower is better, so tgtd / daemon > 1 means faster)
python3 - "$OUT/results.tsv" "$POLICY" "$SCALE" "$CLIENTS" "$RUN_SECONDS" "$REPEATS" >"$OUT/table.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
med = {}
for t in ("tgtd", "daemon"):
    sel = [r for r in rows if r["target"] == t]
    if sel:
        med[t] = {k: statistics.median(float(r[k]) for r in sel) for k in ("tps", "lat_p50_us", "lat_p99_us", "select_tps")}
print(f"pgbench TPC-B-like on XFS in the TCG guest, scale {sys.argv[3]}, {sys.argv[4]} clients, {sys.argv[5]} s, "
      f"median of {sys.argv[6]}, daemon cache {sys.argv[2]}\n")
print("| tps daemon / tgtd | p50 tgtd / daemon | p99 tgtd / daemon | control: select-only tps daemon / tgtd | daemon tps | tgtd tps | daemon p99 ms | tgtd p99 ms |")
print("|---|---|---|---|---|---|---|---|")
d, t = med.get("daemon"), med.get("tgtd")
if d and t:
    ratio = lambda a, b: f"{a / b:.2f}" if b else "-"
    print(f"| {ratio(d['tps'], t['tps'])} | {ratio(t['lat_p50_us'], d['lat_p50_us'])} | "
          f"{ratio(t['lat_p99_us'], d['lat_p99_us'])} | {ratio(d['select_tps'], t['select_tps'])} | {d['tps']:.1f} | {t['tps']:.1f} | "
          f"{d['lat_p99_us'] / 1000:.0f} | {t['lat_p99_us'] / 1000:.0f} |")
PY
cat "$OUT/table.md"
