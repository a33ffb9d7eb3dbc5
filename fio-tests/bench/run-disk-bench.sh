#!/usr/bin/env bash
# run-disk-bench.sh - a LUN on the machine's real disk, as a user replacing tgtd would measure it: the device itself
# (fio, libaio, O_DIRECT on the same file or block device: the ceiling), tgtd with its defaults and this daemon with
# its defaults, over loopback, both load generators (fio's libiscsi engine and iscsi-perf), the page cache dropped
# before every run and this daemon started afresh for every run (its cache as cold as tgtd's page cache; its JIT
# warmed on a null LUN first). Reports IOPS/bandwidth medians, this/tgtd and this/device ratios, and CPU per I/O.
# Root, on a quiet machine.
#
#   fio-tests/bench/run-disk-bench.sh [--mode file|block] [--lun-size SIZE] [--repeats N] [--runtime S] [--quick]
#                                     [--dir DIR] [--out DIR] [--cache-ab] [--fits SIZE] [--tmpfs]
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
#   --tmpfs        the LUN file on tmpfs instead (--dir defaults to /dev/shm); its device cells are fio with io_uring
#                  on the tmpfs file (buffered: tmpfs has no O_DIRECT), the ceiling of memory copies on this machine
#   --cache-ab     a fourth target, "off": this daemon with cache.mode off (its defaults otherwise), so the cache's
#                  worth is measured on and off in one run
#   --fits SIZE    one more cell, 4K random reads at 32 in flight over the first SIZE of the LUN (a working set that
#                  fits the cache), each target read through that range once before the timed run
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

MODE=file LUN_SIZE=4G REPEATS=3 RUNTIME=8 QUICK=0 DIR= ONLY= CACHE_AB=0 FITS= TMPFS=0
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
    --tmpfs) TMPFS=1; shift ;;
    --cache-ab) CACHE_AB=1; shift ;;
    --fits) FITS=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $MODE == file || $MODE == block ]] || die "--mode: file or block, got $MODE"
[[ $TMPFS -eq 0 || $MODE == file ]] || die "--tmpfs takes --mode file (a loop device over tmpfs measures the loop driver)"
DIR=${DIR:-$([[ $TMPFS -eq 1 ]] && echo /dev/shm || echo /var/tmp)}
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
if [[ $TMPFS -eq 0 ]]; then
  [[ $(stat -f -c %T "$WORK") != tmpfs ]] || die "$DIR is tmpfs: this benchmark measures a disk (--dir, or --tmpfs)"
else
  [[ $(stat -f -c %T "$WORK") == tmpfs ]] || die "--tmpfs: $DIR is not tmpfs"
fi
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

start_daemon() { # TARGET: this daemon with its defaults (no cache, daemon or iscsi section; "off": the cache off) and a
  # null LUN to warm the JIT on
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
  [[ $1 == off ]] && printf 'cache:\n  mode: off\n' >> "$OUT/daemon.yaml"
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

fio_job() { # RW BLOCKS DEPTH SIZE SECONDS TARGET: a job file on stdout (SECONDS 0: one pass over SIZE)
  local rw=$1 blocks=$2 depth=$3 size=$4 secs=$5 target=$6
  printf '[global]\nrandrepeat=0\nnorandommap=1\n'
  [[ $secs -gt 0 ]] && printf 'time_based=1\nruntime=%s\n' "$secs"
  printf 'rw=%s\nbs=%s\niodepth=%s\nsize=%s\n' "$rw" "$((blocks * 512))" "$depth" "$size"
  if [[ $target == device && $TMPFS -eq 1 ]]; then
    printf 'ioengine=io_uring\ndirect=0\nfilename=%s\n' "$STORE"
  elif [[ $target == device ]]; then
    printf 'ioengine=libaio\ndirect=1\nfilename=%s\n' "$STORE"
  else
    printf 'ioengine=libiscsi\nfilename=%s\n' "$(url "$target" | sed 's/:/\\:/g')"
  fi
  printf '[job]\n'
}

is_daemon() { # TARGET: whether it is this daemon (with its defaults, or "off")
  [[ $1 == this || $1 == off ]]
}

run_cell() { # CELL TARGET REPEAT SECONDS -> appends to $RESULTS
  local cell=$1 target=$2 rep=$3 secs=$4 name tool rw blocks depth wset out pid before after ios iops
  read -r name tool rw blocks depth wset <<< "$cell"
  wset=${wset:-$LUN_BYTES}
  if [[ $target == device && $tool == perf ]]; then
    return 0 # iscsi-perf speaks iSCSI: the device's ceiling is its fio cell
  fi
  out=$OUT/runs/$name-$target-$rep
  pid=$TGTD_PID
  if is_daemon "$target"; then
    start_daemon "$target"
    pid=$DAEMON_PID
  fi
  sync
  echo 3 > /proc/sys/vm/drop_caches
  if [[ $wset -ne $LUN_BYTES && $target != device ]]; then # the working set read once: what the cache may hold
    fio_job read 1024 8 "$wset" 0 "$target" > "$out.warm.fio"
    "$FIO" "$out.warm.fio" > "$out.warm.log" 2>&1 & TOOL_PIDS=($!)
    wait "${TOOL_PIDS[0]}" || die "fio failed: $out.warm.log"
  fi
  before=0
  [[ $target != device ]] && before=$(cpu_ticks "$pid")
  if [[ $tool == fio ]]; then
    fio_job "$rw" "$blocks" "$depth" "$wset" "$secs" "$target" > "$out.fio"
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
  if is_daemon "$target"; then
    stop_pid "$DAEMON_PID" 20
    DAEMON_PID=
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$target" "$rep" "$iops" "$ios" "$((after - before))" \
    "$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$ios" 'BEGIN {printf "%.2f", n ? t * 1e6 / hz / n : 0}')" \
    >> "$RESULTS"
  log "$name $target #$rep: $iops IOPS"
}

# cell: name tool rw(fio rw | -r random / - sequential for iscsi-perf) blocks-of-512 in-flight [working-set bytes]
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
if [[ -n $FITS ]]; then
  FITS_BYTES=$(numfmt --from=iec "$FITS") || die "bad --fits $FITS"
  CELLS+=("4k-randread-qd32-fits fio randread 8 32 $FITS_BYTES")
fi
NAMES=(device tgtd this)
[[ $CACHE_AB -eq 1 ]] && NAMES+=(off)
run_matrix

python3 - "$OUT" "$ARGS" "$MODE" "$LUN_SIZE" "$TMPFS" <<'PY'
import csv, statistics, sys, platform
out, args, mode, size, tmpfs = sys.argv[1:6]
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
cells = list(dict.fromkeys(r["cell"] for r in rows))
ab = any(r["target"] == "off" for r in rows)
def med(c, t, k):
    v = [float(r[k]) for r in rows if r["cell"] == c and r["target"] == t]
    return statistics.median(v) if v else None
def pairs(c):  # this / off per repeat: the runs of one repeat are back to back
    on = {r["repeat"]: float(r["iops"]) for r in rows if r["cell"] == c and r["target"] == "this"}
    off = {r["repeat"]: float(r["iops"]) for r in rows if r["cell"] == c and r["target"] == "off"}
    return [on[k] / off[k] for k in sorted(on) if k in off and off[k]]
def kb(c):
    return 512 if "512k" in c else 4
where = "on tmpfs" if tmpfs == "1" else "on the machine's disk"
lines = [f"# A LUN {where} ({mode} mode, {size})", "",
         f"`fio-tests/bench/run-disk-bench.sh {args}`; kernel {platform.release()}; medians of the repeats (every run "
         "in results.tsv). device = fio on the same store (" + ("io_uring, buffered: memory copies"
         if tmpfs == "1" else "libaio, O_DIRECT") + "): the ceiling; tgtd and this = each "
         "target with its defaults over loopback (this daemon started afresh for every run, its cache cold; the "
         "page cache dropped before every run)" + ("; off = this daemon with `cache.mode: off`" if ab else "") +
         ". *-perf cells are iscsi-perf, the others fio's libiscsi engine; *-fits reads a working set that fits "
         "the cache, read through once before the timed run. CPU = the target process's CPU time per I/O.", "",
         "| cell | device | tgtd | this | this/tgtd | this/device | MB/s this | CPU us/IO tgtd | this |"
         + (" off | CPU us/IO off | this/off per repeat (median) |" if ab else ""),
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---|" if ab else "")]
fmt = lambda v, f: "-" if v is None else f.format(v)
for c in cells:
    d, t, s = (med(c, x, "iops") for x in ("device", "tgtd", "this"))
    dev = d if d is not None else med(c.replace("-perf", ""), "device", "iops")
    ut, us = med(c, "tgtd", "cpu_us_per_io"), med(c, "this", "cpu_us_per_io")
    line = (f"| {c} | {fmt(dev, '{:.0f}')} | {fmt(t, '{:.0f}')} | {fmt(s, '{:.0f}')} | "
            f"{fmt(s / t if s and t else None, '{:.2f}')} | {fmt(s / dev if s and dev else None, '{:.2f}')} | "
            f"{fmt(s * kb(c) / 1024 if s else None, '{:.0f}')} | {fmt(ut, '{:.1f}')} | {fmt(us, '{:.1f}')} |")
    if ab:
        p = pairs(c)
        line += (f" {fmt(med(c, 'off', 'iops'), '{:.0f}')} | {fmt(med(c, 'off', 'cpu_us_per_io'), '{:.1f}')} | "
                 + " / ".join(f"{x:.2f}" for x in p) + (f" (**{statistics.median(p):.2f}**)" if p else "") + " |")
    lines.append(line)
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
log "table: $OUT/table.md"
