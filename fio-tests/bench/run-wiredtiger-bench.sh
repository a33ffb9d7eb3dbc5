#!/usr/bin/env bash
# run-wiredtiger-bench.sh - WiredTiger (fio-tests/src/test/c/wtload.c: journaling, an fsync per commit,
# YCSB mixes on zipfian keys, 1 KiB records) on XFS through the kernel initiator in the qemu guest, against
# tgtd and this daemon in the same run, alternating; reports ops/s and p99 latencies, medians over the
# repeats and the ratios daemon / tgtd. The guest is emulated (TCG): only the ratios mean anything.
#
#   fio-tests/bench/run-wiredtiger-bench.sh [--mixes "A B C F"] [--records N] [--seconds S] [--repeats R]
#                                           [--policy write-through|write-back] [--out DIR]
#
# Defaults: mixes A B C F, 20000 records, 60 s a mix, 3 repeats, write-through. Both targets get a 1 GiB
# file LUN on /dev/shm; the daemon runs with the NUMA cache (256M per node, 64K blocks, 2 pretend nodes,
# as CacheModesTest). Needs the daemon built (mvn -o -q -pl target-daemon -am package), gcc,
# libwiredtiger-dev and tgt. Output: DIR/table.md, DIR/results.tsv, each boot's run dir.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=run-wiredtiger-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"
BENCH_DEFAULT_BASE_PORT=13900

MIXES="A B C F" RECORDS=20000 SECONDS_PER_MIX=60 REPEATS=3 POLICY=write-through
OUT=$ROOT/fio-tests/target/bench-wiredtiger/$(date +%Y%m%d-%H%M%S)
while [[ $# -gt 0 ]]; do
  case $1 in
    --mixes) MIXES=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --seconds) SECONDS_PER_MIX=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --policy) POLICY=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd)"
require_daemon_build
command -v tgtd >/dev/null || apt_install tgt
TGT_IQN=iqn.2026-11.io.numaiscsi:wt-tgtd
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
SHM=$(mktemp -d /dev/shm/wt-bench.XXXXXX)
log "results in $OUT"

gcc -O2 -Wall -o "$OUT/wtload" "$ROOT/fio-tests/src/test/c/wtload.c" -lwiredtiger -lm
IMAGE=$("$ROOT/fio-tests/vm/build-image.sh" | tail -n 1)

truncate -s 1G "$SHM/tgtd.img"
start_tgtd_lun "$TGT_IQN" "$SHM/tgtd.img"
log "tgtd pid $TGTD_PID on 127.0.0.1:$TGTD_PORT"

start_daemon_file_lun iqn.2026-11.io.numaiscsi:wt "$SHM/daemon.img" 1073741824 "$POLICY" "$SHM/data"
log "daemon pid $DAEMON_PID on 127.0.0.1:$DAEMON_PORT ($POLICY)"

# boot TARGET PORT IQN LUN REPEAT: one guest run of every mix
boot() {
  local dir=$OUT/$1-$5
  mkdir -p "$dir"
  cp "$OUT/wtload" "$dir/wtload"
  GUEST_IQN=$3 GUEST_LUN=$4 GUEST_RECORDS=$RECORDS GUEST_MIXES=$MIXES GUEST_SECONDS=$SECONDS_PER_MIX \
    VM_IMAGE=$IMAGE VM_QUIET=1 VM_TIMEOUT=$((600 + 4 * SECONDS_PER_MIX)) \
    bash "$ROOT/fio-tests/vm/run-vm.sh" "$2" "$dir" "$ROOT/fio-tests/vm/guest/wiredtiger-bench.sh" \
    || die "guest run $1 repeat $5 failed: $dir/serial.log"
  sed -n 's/.*wtload-run: mix \([A-Z]\), .* \([0-9.]*\) ops\/s, read p50\/p99 [0-9]*\/\([0-9]*\) us, update p50\/p99 [0-9]*\/\([0-9]*\) us.*/\1\t\2\t\3\t\4/p' \
    "$dir/serial.log" | while IFS=$'\t' read -r mix ops rp99 up99; do
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$5" "$mix" "$ops" "$rp99" "$up99"
    done >>"$OUT/results.tsv"
  log "$1 repeat $5: $(grep -c "^$1	$5	" "$OUT/results.tsv") mixes"
}
printf 'target\trepeat\tmix\tops_s\tread_p99_us\tupdate_p99_us\n' >"$OUT/results.tsv"
for r in $(seq "$REPEATS"); do
  if (( r % 2 )); then
    boot tgtd "$TGTD_PORT" "$TGT_IQN" 1 "$r"; boot daemon "$DAEMON_PORT" iqn.2026-11.io.numaiscsi:wt 0 "$r"
  else
    boot daemon "$DAEMON_PORT" iqn.2026-11.io.numaiscsi:wt 0 "$r"; boot tgtd "$TGTD_PORT" "$TGT_IQN" 1 "$r"
  fi
done

# medians per target and mix, and daemon / tgtd (for p99: lower is better, so tgtd / daemon > 1 means faster)
python3 - "$OUT/results.tsv" "$POLICY" "$RECORDS" "$SECONDS_PER_MIX" "$REPEATS" >"$OUT/table.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
med = {}
for t in ("tgtd", "daemon"):
    for m in sorted({r["mix"] for r in rows}):
        sel = [r for r in rows if r["target"] == t and r["mix"] == m]
        if sel:
            med[t, m] = {k: statistics.median(float(r[k]) for r in sel) for k in ("ops_s", "read_p99_us", "update_p99_us")}
print(f"WiredTiger on XFS in the TCG guest, {sys.argv[3]} records, {sys.argv[4]} s per mix, median of {sys.argv[5]}, "
      f"daemon cache {sys.argv[2]}\n")
print("| mix | ops/s daemon / tgtd | read p99 tgtd / daemon | update p99 tgtd / daemon | daemon ops/s | tgtd ops/s |")
print("|---|---|---|---|---|---|")
for m in sorted({k[1] for k in med}):
    d, t = med.get(("daemon", m)), med.get(("tgtd", m))
    if not d or not t:
        continue
    ratio = lambda a, b: f"{a / b:.2f}" if b else "-"
    print(f"| {m} | {ratio(d['ops_s'], t['ops_s'])} | {ratio(t['read_p99_us'], d['read_p99_us'])} | "
          f"{ratio(t['update_p99_us'], d['update_p99_us'])} | {d['ops_s']:.1f} | {t['ops_s']:.1f} |")
PY
cat "$OUT/table.md"
