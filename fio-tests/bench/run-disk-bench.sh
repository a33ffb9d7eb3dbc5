#!/usr/bin/env bash
# run-disk-bench.sh - a LUN on the machine's real disk, as a user replacing tgtd would measure it: the device itself
# (fio, libaio, O_DIRECT on the same file or block device: the ceiling), tgtd with its defaults and this daemon with
# its defaults, over loopback, both load generators (fio's libiscsi engine and iscsi-perf), the page cache dropped
# before every run and this daemon started afresh for every run (its cache as cold as tgtd's page cache; its JIT
# warmed on a null LUN first). Reports IOPS/bandwidth medians, this/tgtd and this/device ratios, and CPU per I/O.
# Root, on a quiet machine.
#
#   fio-tests/bench/run-disk-bench.sh [--mode file|block] [--lun-size SIZE] [--repeats N] [--runtime S] [--quick]
#                                     [--dir DIR] [--out DIR]
#
#   --mode file    the LUN is a file on the disk (tgtd: rdwr, this daemon: backing file)          (default)
#   --mode block   the LUN is a loop device (--direct-io=on) over that file (tgtd: rdwr on the device, this daemon:
#                  backing block)
#   --lun-size     the LUN file, filled with random data once (default 4G)
#   --repeats N    runs per cell and target, the targets' order rotating (default 3)
#   --runtime S    seconds per run (default 8)
#   --quick        4K random read at 1 and 32 in flight only, one repeat
#   --only CELLS   only these cells (comma-separated names, e.g. 4k-randwrite-qd32)
#   --dir DIR      where the LUN file goes (default /var/tmp: the disk, not tmpfs)
#   --out DIR      results (default fio-tests/target/bench/disk-<mode>-<timestamp>/)
# Env: FIO (default /opt/fio-libiscsi/bin/fio), BENCH_BASE_PORT (default 13800), BENCH_JVM_OPTS (more JVM
# options for this daemon, after the launcher's) and BENCH_DAEMON_YAML (sections added to its config, e.g.
# "cache: {write-policy: write-back}") and BENCH_DAEMON_KEYS (one key of its daemon section, e.g. "io-poll: 1ms"):
# experiments, not the defaults.
#
# Outputs: table.md (medians and ratios), results.tsv (every run), runs/ (job files, JSON, iscsi-perf logs),
# daemon-*.log, tgtd.log. Every process it starts is stopped by PID (tgtd through tgtadm); the LUN file and the loop
# device are removed on every exit.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=disk-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, stop_pid, stop_tgtd, start_tgtd_lun, free_port, wait_listen, cpu_ticks, run_matrix
BENCH_DEFAULT_BASE_PORT=13800

MODE=file LUN_SIZE=4G REPEATS=3 RUNTIME=8 QUICK=0 DIR=/var/tmp ONLY=
FIO=${FIO:-/opt/fio-libiscsi/bin/fio}
ARGS="$*"
OUT=
while [[ $# -gt 0 ]]; do
  case $1 in
    --mode) MODE=$2; shift 2 ;;
    --lun-size) LUN_SIZE=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --quick) QUICK=1; REPEATS=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $MODE == file || $MODE == block ]] || die "--mode: file or block, got $MODE"
[[ $EUID -eq 0 ]] || die "run as root (tgtd, drop_caches, losetup)"
OUT=${OUT:-$ROOT/fio-tests/target/bench/disk-$MODE-$(date +%Y%m%d-%H%M%S)}
# the JVM options bin/numa-iscsi-target and the Debian package give the daemon (the launcher's default)
DEFAULT_JVM_OPTS=$(sed -n 's/^DEFAULT_JAVA_OPTS="\(.*\)"$/\1/p' "$ROOT/bin/numa-iscsi-target")
TGT_IQN=iqn.2026-11.io.numaiscsi:disk-tgtd
OUR_IQN=iqn.2026-11.io.numaiscsi:disk
WARM_IQN=iqn.2026-11.io.numaiscsi:disk-warmup
WARMUP=0   # run_matrix's warm-up pass: this daemon warms its JIT on a null LUN before every run instead

WORK= LOOP= DAEMON_PID= DAEMON_PORT= TGTD_PID= TGTD_PORT=
TOOL_PIDS=()
cleanup() {
  local rc=$? p
  set +e
  trap - EXIT INT TERM HUP
  # fio's libiscsi engine ignores SIGTERM, and fio runs each job in a child process of its own: both go
  for p in "${TOOL_PIDS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  stop_pid "$DAEMON_PID" 20
  stop_tgtd
  [[ -n $LOOP ]] && losetup -d "$LOOP"
  [[ -n $WORK && -d $WORK ]] && rm -rf "$WORK"
  [[ $rc -ne 0 ]] && log "failed (exit $rc); logs in $OUT"
  exit "$rc"
}
trap_exits

require_tgtd_and_libiscsi_tools
require_daemon_build
mkdir -p "$OUT/runs"
WORK=$(mktemp -d "$DIR/nit-disk-bench.XXXXXX")
[[ $(stat -f -c %T "$WORK") != tmpfs ]] || die "$DIR is tmpfs: this benchmark measures a disk (--dir)"
CLK_TCK=$(getconf CLK_TCK)
LUN_BYTES=$(numfmt --from=iec "$LUN_SIZE")
log "results in $OUT; a $LUN_SIZE LUN file of random data in $WORK ($(df --output=source "$WORK" | tail -1))"
head -c "$LUN_BYTES" /dev/urandom > "$WORK/lun.img"
sync
STORE=$WORK/lun.img
if [[ $MODE == block ]]; then
  LOOP=$(losetup --find --show --direct-io=on "$WORK/lun.img")
  STORE=$LOOP
  log "block mode: $LOOP over $WORK/lun.img (direct I/O)"
fi

start_tgtd_lun "$TGT_IQN" "$STORE"
log "tgtd pid $TGTD_PID on 127.0.0.1:$TGTD_PORT (bstype rdwr: its default)"

start_daemon() { # this daemon with its defaults: no cache, daemon or iscsi section; a null LUN to warm the JIT on
  free_port DAEMON_PORT
  local backing="{id: 0, backing: file, path: $STORE, size: $LUN_BYTES}"
  [[ $MODE == block ]] && backing="{id: 0, backing: block, path: $STORE}"
  rm -rf "$WORK/data"
  mkdir -m 0700 "$WORK/data"
  cat > "$OUT/daemon.yaml" <<YAML
daemon:
  data-dir: $WORK/data
${BENCH_DAEMON_KEYS:+  $BENCH_DAEMON_KEYS}
portals:
  - 127.0.0.1:$DAEMON_PORT
targets:
  - name: $OUR_IQN
    luns:
      - $backing
  - name: $WARM_IQN
    luns:
      - {id: 0, backing: null, size: 1G}
${BENCH_DAEMON_YAML:-}
YAML
  # shellcheck disable=SC2086  # the launcher's options are a list
  setsid "$JAVA" $DEFAULT_JVM_OPTS ${BENCH_JVM_OPTS:-} -cp "$DAEMON_JAR:$DAEMON_LIB/*" io.numaiscsi.daemon.Main --config "$OUT/daemon.yaml" \
    --admin-socket off >> "$OUT/daemon.log" 2>&1 < /dev/null &
  DAEMON_PID=$!
  wait_listen "$DAEMON_PORT" "$DAEMON_PID" daemon
  iscsi-perf -m 32 -b 8 -r -t 3 "iscsi://127.0.0.1:$DAEMON_PORT/$WARM_IQN/0" > /dev/null 2>&1 \
    || die "the JIT warm-up on the null LUN failed"
}

url() { # TARGET
  if [[ $1 == tgtd ]]; then echo "iscsi://127.0.0.1:$TGTD_PORT/$TGT_IQN/1"; else echo "iscsi://127.0.0.1:$DAEMON_PORT/$OUR_IQN/0"; fi
}

run_cell() { # CELL TARGET REPEAT SECONDS -> appends to $RESULTS
  local cell=$1 target=$2 rep=$3 secs=$4 name tool rw blocks depth out pid before after ios iops
  read -r name tool rw blocks depth <<< "$cell"
  if [[ $target == device && $tool == perf ]]; then
    return 0 # iscsi-perf speaks iSCSI: the device's ceiling is its fio cell
  fi
  out=$OUT/runs/$name-$target-$rep
  [[ $target == this ]] && start_daemon
  pid=$TGTD_PID
  [[ $target == this ]] && pid=$DAEMON_PID
  sync
  echo 3 > /proc/sys/vm/drop_caches
  before=0
  [[ $target != device ]] && before=$(cpu_ticks "$pid")
  if [[ $tool == fio ]]; then
    {
      printf '[global]\ntime_based=1\nruntime=%s\nrandrepeat=0\nnorandommap=1\n' "$secs"
      printf 'rw=%s\nbs=%s\niodepth=%s\nsize=%s\n' "$rw" "$((blocks * 512))" "$depth" "$LUN_BYTES"
      if [[ $target == device ]]; then
        printf 'ioengine=libaio\ndirect=1\nfilename=%s\n' "$STORE"
      else
        printf 'ioengine=libiscsi\nfilename=%s\n' "$(url "$target" | sed 's/:/\\:/g')"
      fi
      printf '[job]\n'
    } > "$out.fio"
    "$FIO" --output-format=json --output="$out.json" "$out.fio" > "$out.log" 2>&1 & TOOL_PIDS=($!)
    wait "${TOOL_PIDS[0]}" || die "fio failed: $out.log"
    local dir=read
    [[ $rw == *write* ]] && dir=write
    ios=$(jq ".jobs[0].$dir.total_ios" "$out.json")
    iops=$(jq ".jobs[0].$dir.iops | floor" "$out.json")
  else
    local random=()
    [[ $rw == -r ]] && random=(-r)
    iscsi-perf -i iqn.2026-11.io.numaiscsi:disk-bench -m "$depth" -b "$blocks" "${random[@]}" -t "$secs" \
      "$(url "$target")" > "$out.log" 2>&1 & TOOL_PIDS=($!)
    wait "${TOOL_PIDS[0]}" || die "iscsi-perf failed: $out.log"
    iops=$(tr '\r' '\n' < "$out.log" | grep -o 'iops average [0-9]*' | tail -1 | awk '{print $3}')
    [[ -n $iops ]] || die "no 'iops average' in $out.log"
    ios=$((iops * secs))
  fi
  TOOL_PIDS=()
  after=0
  [[ $target != device ]] && after=$(cpu_ticks "$pid")
  if [[ $target == this ]]; then
    stop_pid "$DAEMON_PID" 20
    DAEMON_PID=
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$target" "$rep" "$iops" "$ios" "$((after - before))" \
    "$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$ios" 'BEGIN {printf "%.2f", n ? t * 1e6 / hz / n : 0}')" \
    >> "$RESULTS"
  log "$name $target #$rep: $iops IOPS"
}

# cell: name tool rw(fio rw | -r random / - sequential for iscsi-perf) blocks-of-512 in-flight
if [[ $QUICK -eq 1 ]]; then
  CELLS=("4k-randread-qd1 fio randread 8 1" "4k-randread-qd32 fio randread 8 32")
else
  CELLS=("4k-randread-qd1 fio randread 8 1" "4k-randread-qd32 fio randread 8 32" "4k-randwrite-qd32 fio randwrite 8 32"
         "512k-read-qd8 fio read 1024 8" "4k-randread-qd32-perf perf -r 8 32" "512k-read-qd8-perf perf - 1024 8")
fi
if [[ -n $ONLY ]]; then
  KEEP=()
  for c in "${CELLS[@]}"; do
    [[ ",$ONLY," == *",${c%% *},"* ]] && KEEP+=("$c")
  done
  [[ ${#KEEP[@]} -gt 0 ]] || die "--only $ONLY names no cell"
  CELLS=("${KEEP[@]}")
fi
NAMES=(device tgtd this)
run_matrix

python3 - "$OUT" "$ARGS" "$MODE" "$LUN_SIZE" <<'PY'
import csv, statistics, sys, platform
out, args, mode, size = sys.argv[1:5]
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
cells = list(dict.fromkeys(r["cell"] for r in rows))
def med(c, t, k):
    v = [float(r[k]) for r in rows if r["cell"] == c and r["target"] == t]
    return statistics.median(v) if v else None
def kb(c):
    return 512 if "512k" in c else 4
lines = [f"# A LUN on the machine's disk ({mode} mode, {size})", "",
         f"`fio-tests/bench/run-disk-bench.sh {args}`; kernel {platform.release()}; medians of the repeats (every run "
         "in results.tsv). device = fio (libaio, O_DIRECT) on the same store: the ceiling; tgtd and this = each "
         "target with its defaults over loopback (this daemon started afresh for every run, its cache cold; the "
         "page cache dropped before every run). *-perf cells are iscsi-perf, the others fio's libiscsi engine. "
         "CPU = the target process's CPU time per I/O.", "",
         "| cell | device | tgtd | this | this/tgtd | this/device | MB/s this | CPU us/IO tgtd | this |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
fmt = lambda v, f: "-" if v is None else f.format(v)
for c in cells:
    d, t, s = (med(c, x, "iops") for x in ("device", "tgtd", "this"))
    dev = d if d is not None else med(c.replace("-perf", ""), "device", "iops")
    ut, us = med(c, "tgtd", "cpu_us_per_io"), med(c, "this", "cpu_us_per_io")
    lines.append(f"| {c} | {fmt(dev, '{:.0f}')} | {fmt(t, '{:.0f}')} | {fmt(s, '{:.0f}')} | "
                 f"{fmt(s / t if s and t else None, '{:.2f}')} | {fmt(s / dev if s and dev else None, '{:.2f}')} | "
                 f"{fmt(s * kb(c) / 1024 if s else None, '{:.0f}')} | {fmt(ut, '{:.1f}')} | {fmt(us, '{:.1f}')} |")
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
log "table: $OUT/table.md"
