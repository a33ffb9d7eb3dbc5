#!/usr/bin/env bash
# run-wiredtiger-bench.sh - WiredTiger (fio-tests/src/test/c/wtload.c: journaling, an fsync per commit,
# YCSB mixes on zipfian keys, 1 KiB records) on XFS through the kernel initiator in the qemu guest, against
# tgtd and this daemon with its NUMA cache off, on with write-through and on with write-back, in the same run;
# reports ops/s, p99 latencies and the LUN's reads per mix, medians over the repeats, the ratios to tgtd and a
# chart. The guest is emulated (TCG): only the ratios mean anything.
#
#   fio-tests/bench/run-wiredtiger-bench.sh [--mixes "A B C F"] [--records N] [--seconds S] [--repeats R]
#       [--variants "tgtd cache-off write-through write-back"] [--guest-mem MiB] [--lun-size BYTES] [--out DIR]
#
# Defaults: mixes A B C F, 1,100,000 records (about 1.2 GB: 1.5 times the guest's 768 MiB, so mix C reads the
# LUN), 20 s a mix, 2 repeats, all four variants, guest memory 768 MiB, WiredTiger's cache 16 MB. The table
# is loaded once per run on the host (same wiredtiger 3.2.1 as the guest) into a 3 GiB XFS image (loop-mounted);
# every boot gets a fresh copy of it as a file LUN on /dev/shm behind a target started for that boot (tgtd, or
# a daemon: cache off, or 256M per node, 64K blocks, 2 pretend nodes as CacheModesTest), the variants' order
# rotating between repeats. Each boot also times a fixed CPU job (sha256 of 64 MiB) as a control of the
# guest's own speed. Needs the daemon built (mvn -o -q -pl target-daemon -am package -DskipTests), gcc,
# libwiredtiger-dev, xfsprogs and tgt. Output: DIR/table.md, DIR/results.tsv, DIR/wiredtiger-ratios.png,
# each boot's run dir.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=run-wiredtiger-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"
BENCH_DEFAULT_BASE_PORT=13900

MIXES="A B C F" RECORDS=1100000 SECONDS_PER_MIX=20 REPEATS=2 VARIANTS=$DB_VARIANTS_DEFAULT GUEST_MEM=768
LUN_BYTES=3221225472
OUT=$ROOT/fio-tests/target/bench-wiredtiger/$(date +%Y%m%d-%H%M%S)
while [[ $# -gt 0 ]]; do
  case $1 in
    --mixes) MIXES=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --seconds) SECONDS_PER_MIX=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --variants) VARIANTS=$2; shift 2 ;;
    --guest-mem) GUEST_MEM=$2; shift 2 ;;
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
SHM= TGTD_PID= TGTD_PORT= DAEMON_PID= DAEMON_PORT=
trap_exits
mkdir -p "$OUT"
SHM=$(mktemp -d /dev/shm/wt-bench.XXXXXX)
log "results in $OUT"

gcc -O2 -Wall -o "$OUT/wtload" "$ROOT/fio-tests/src/test/c/wtload.c" -lwiredtiger -lm
IMAGE=$("$ROOT/fio-tests/vm/build-image.sh" | tail -n 1)

# the table, loaded once on the host and put into an XFS image that every boot gets a copy of
mkdir -p "$SHM/fs/wt"
"$OUT/wtload" load "$SHM/fs/wt" "$RECORDS" "$SHM/load-commits.log" | tee "$OUT/load.txt"
rm -f "$SHM/load-commits.log"
DATA_MB=$(du -cm --apparent-size "$SHM/fs/wt/"*.wt | tail -n 1 | cut -f1)
log "database: tables $DATA_MB MiB, all files $(du -sm "$SHM/fs/wt" | cut -f1) MiB (journal preallocated); guest memory $GUEST_MEM MiB"
xfs_image_from_dir "$SHM/fs" "$SHM/golden.img" "$LUN_BYTES"
rm -rf "$SHM/fs"

# boot VARIANT REPEAT: a fresh copy of the image behind the variant's target, one guest run of every mix
boot() {
  local dir=$OUT/$1-$2
  mkdir -p "$dir"
  cp "$OUT/wtload" "$dir/wtload"
  cp --sparse=always "$SHM/golden.img" "$SHM/lun.img"
  chmod 600 "$SHM/lun.img"   # the daemon warns about a disk others may read
  start_variant "$1" "$SHM/lun.img" "$LUN_BYTES" "$dir" wt
  GUEST_IQN=$VARIANT_IQN GUEST_LUN=$VARIANT_LUN GUEST_RECORDS=$RECORDS GUEST_MIXES=$MIXES GUEST_SECONDS=$SECONDS_PER_MIX \
    VM_IMAGE=$IMAGE VM_QUIET=1 VM_MEM=$GUEST_MEM VM_TIMEOUT=$((600 + 4 * SECONDS_PER_MIX)) \
    bash "$ROOT/fio-tests/vm/run-vm.sh" "$VARIANT_PORT" "$dir" "$ROOT/fio-tests/vm/guest/wiredtiger-bench.sh" \
    || die "guest run $1 repeat $2 failed: $dir/serial.log"
  stop_variant
  rm -f "$SHM/lun.img"
  local control
  control=$(sed -n 's/.*guest-control: sha256 \([0-9.]*\) MB\/s.*/\1/p' "$dir/serial.log" | head -n 1)
  [[ -n $control ]] || die "no guest-control line: $dir/serial.log"
  sed -n 's/.*wtload-run: mix \([A-Z]\), .* \([0-9.]*\) ops\/s, read p50\/p99 [0-9]*\/\([0-9]*\) us, update p50\/p99 [0-9]*\/\([0-9]*\) us.*/\1\t\2\t\3\t\4/p' \
    "$dir/serial.log" | while IFS=$'\t' read -r mix ops rp99 up99; do
      local io
      io=$(sed -n "s/.*mix-io: mix $mix, LUN reads \([0-9]*\) KiB, writes \([0-9]*\) KiB.*/\1\t\2/p" "$dir/serial.log" | head -n 1)
      [[ -n $io ]] || die "no mix-io line for mix $mix: $dir/serial.log"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$mix" "$ops" "$rp99" "$up99" "$io" "$control"
    done >>"$OUT/results.tsv"
  log "$1 repeat $2: $(grep -c "^$1	$2	" "$OUT/results.tsv") mixes, guest control $control MB/s"
}
printf 'variant\trepeat\tmix\tops_s\tread_p99_us\tupdate_p99_us\tlun_read_kib\tlun_write_kib\tcontrol_mb_s\n' >"$OUT/results.tsv"
for r in $(seq "$REPEATS"); do
  for v in $(variant_order "$VARIANTS" "$r"); do boot "$v" "$r"; done
done

# medians per variant and mix, ratios to tgtd (for p99 lower is better, so tgtd / variant > 1 means faster)
python3 - "$OUT/results.tsv" "$RECORDS" "$DATA_MB" "$GUEST_MEM" "$SECONDS_PER_MIX" "$REPEATS" >"$OUT/table.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
keys = ("ops_s", "read_p99_us", "update_p99_us", "lun_read_kib", "control_mb_s")
variants = list(dict.fromkeys(r["variant"] for r in rows))
mixes = sorted({r["mix"] for r in rows})
med = {}
for v in variants:
    for m in mixes:
        sel = [r for r in rows if r["variant"] == v and r["mix"] == m]
        if sel:
            med[v, m] = {k: statistics.median(float(r[k]) for r in sel) for k in keys}
print(f"WiredTiger on XFS in the TCG guest ({sys.argv[4]} MiB), {int(sys.argv[2]):,} records ({sys.argv[3]} MiB of tables), "
      f"{sys.argv[5]} s per mix, median of {sys.argv[6]} repeats\n")
ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
print("| mix | variant | ops/s / tgtd | read p99 tgtd / variant | update p99 tgtd / variant | ops/s | read p99 ms | update p99 ms | LUN reads MiB | guest control / tgtd |")
print("|---|---|---|---|---|---|---|---|---|---|")
for m in mixes:
    t = med.get(("tgtd", m))
    for v in variants:
        d = med.get((v, m))
        if not d:
            continue
        up99 = f"{d['update_p99_us'] / 1000:.1f}" if d["update_p99_us"] else "-"
        print(f"| {m} | {v} | {ratio(d['ops_s'], t and t['ops_s'])} | {ratio(t and t['read_p99_us'], d['read_p99_us'])} | "
              f"{ratio(t and t['update_p99_us'], d['update_p99_us'])} | {d['ops_s']:.1f} | {d['read_p99_us'] / 1000:.1f} | "
              f"{up99} | {d['lun_read_kib'] / 1024:.0f} | {ratio(d['control_mb_s'], t and t['control_mb_s'])} |")
PY
db_ratio_chart "$OUT/results.tsv" "$OUT/wiredtiger-ratios.png" \
  "WiredTiger in the TCG guest: ratio to tgtd per variant (medians; >1 is better)" \
  --group mix --metric "ops_s:up:ops/s" --metric "read_p99_us:down:read p99" --metric "update_p99_us:down:update p99"
cat "$OUT/table.md"
