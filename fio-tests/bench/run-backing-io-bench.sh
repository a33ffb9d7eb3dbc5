#!/usr/bin/env bash
# run-backing-io-bench.sh - companion of run-bench.sh: the same daemon with daemon.backing-io: io_uring and with
# daemon.backing-io: threads (cache.mode off, so every read reaches the backing store), and tgtd as the baseline,
# in one run over loopback TCP. Run as root on a quiet machine.
#
#   fio-tests/bench/run-backing-io-bench.sh [--repeats N] [--runtime S] [--lun-size SIZE] [--out DIR]
#                                           [--backing file | --backing block --device DEV_TGTD,DEV_URING,DEV_THREADS]
#
#   --repeats N      runs per cell and target, the targets' order rotating each repeat (default 3)
#   --runtime S      seconds per run (default 10)
#   --warmup S       before the cells, every cell once per target for S seconds, discarded (JIT; default 5)
#   --lun-size SIZE  file LUNs: size of each LUN file, filled with random data (default 1G)
#   --dir DIR        file LUNs: where the LUN files go (default /dev/shm; e.g. an ext4 directory to see the page
#                    cache and a real disk instead of tmpfs)
#   --backing KIND   file (default): one LUN file per target in --dir; block: each target serves its own block
#                    device of --device, three of them in the order tgtd, io_uring, threads (daemon LUN
#                    "backing: block" opens its device exclusively, so two daemons cannot share one; three loop
#                    devices over one file of random data hold the same bytes)
#   --cache MODE     the daemons' cache.mode: off (default: every read reaches the backing store, aligned ones
#                    through O_DIRECT) or page-cache (every read buffered: with --dir on ext4/xfs, reads of cached
#                    pages that io_uring completes during submission)
#   --out DIR        results (default fio-tests/target/bench/backing-io-<timestamp>/)
# Env: FIO (default /opt/fio-libiscsi/bin/fio), BENCH_BASE_PORT (default 13600), JAVA_OPTS (daemon JVM options).
#
# Cells: fio's libiscsi engine, 4K random read at iodepth 32 and 512K sequential read at iodepth 8; libiscsi-bin's
# iscsi-perf, 4K random at 32 in flight (-m 32 -b 8 -r) and 512K sequential at 8 in flight (-m 8 -b 1024), on
# 512-byte-block LUNs. Per run: IOPS, and CPU per I/O = the target process's utime+stime (/proc/PID/stat, all its
# threads, io_uring's kernel workers included) over the run divided by the I/Os done. Writes results.tsv (every
# run), table.md (medians and ratios) and the daemons' logs, whose "backing I/O:" line is checked.
# Needs the daemon built in this checkout (mvn -o -q -pl target-daemon -am package -DskipTests); never installs it.
# Every process it started is stopped by PID (tgtd through tgtadm) and its /dev/shm directory removed, also on errors.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=backing-io-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, require_tgtd_and_libiscsi_tools, stop_pid, stop_tgtd, start_tgtd_lun, free_port, wait_listen, cpu_ticks, run_matrix
BENCH_DEFAULT_BASE_PORT=13600

REPEATS=3 RUNTIME=10 WARMUP=5 LUN_SIZE=1G BACKING=file DEVICE= LUN_DIR=/dev/shm CACHE_MODE=off
OUT=$ROOT/fio-tests/target/bench/backing-io-$(date +%Y%m%d-%H%M%S)
FIO=${FIO:-/opt/fio-libiscsi/bin/fio}
ARGS="$*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --repeats) REPEATS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --cache) CACHE_MODE=$2; shift 2 ;;
    --dir) LUN_DIR=$(readlink -f "$2"); shift 2 ;;
    --lun-size) LUN_SIZE=$2; shift 2 ;;
    --backing) BACKING=$2; shift 2 ;;
    --device) DEVICE=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd, /dev/shm)"
case $BACKING in
  file) [[ -z $DEVICE ]] || die "--device goes with --backing block" ;;
  block) IFS=, read -r -a DEVICES <<< "$DEVICE"
         [[ ${#DEVICES[@]} -eq 3 && -b ${DEVICES[0]} && -b ${DEVICES[1]} && -b ${DEVICES[2]} ]] \
           || die "--backing block needs --device DEV_TGTD,DEV_URING,DEV_THREADS, three block devices (got '${DEVICE}')" ;;
  *) die "--backing is file or block, not $BACKING" ;;
esac
LUN_BYTES=$(numfmt --from=iec "$LUN_SIZE") || die "bad --lun-size $LUN_SIZE"
[[ $BACKING == block ]] && LUN_BYTES=$(blockdev --getsize64 "${DEVICES[0]}")

JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
LIB=$ROOT/target-daemon/target/lib
[[ -f $JAR && -d $LIB ]] || die "no daemon build in $ROOT: mvn -o -q -pl target-daemon -am package -DskipTests"
TGT_IQN=iqn.2026-11.io.numaiscsi:bench-tgtd
OUR_IQN=iqn.2026-11.io.numaiscsi:bench

SHM= TGTD_PID= TGTD_PORT= TOOL_PID=
DAEMON_PIDS=()
cleanup() {
  local rc=$? p
  set +e
  trap - EXIT INT TERM HUP
  stop_pid "$TOOL_PID" 5
  for p in "${DAEMON_PIDS[@]}"; do stop_pid "$p" 20; done
  stop_tgtd
  [[ -n $SHM && -d $SHM ]] && rm -rf "$SHM"
  [[ $rc -ne 0 ]] && log "failed (exit $rc); logs in $OUT"
  exit "$rc"
}
trap_exits

require_tgtd_and_libiscsi_tools
find_java jdk
mkdir -p "$OUT"
log "results in $OUT"
CLK_TCK=$(getconf CLK_TCK)


SHM=$(mktemp -d "$LUN_DIR/nit-backing-io.XXXXXX")
NAMES=(tgtd io_uring threads)
lun_path() { # NAME
  if [[ $BACKING == block ]]; then
    case $1 in tgtd) echo "${DEVICES[0]}" ;; io_uring) echo "${DEVICES[1]}" ;; *) echo "${DEVICES[2]}" ;; esac
  else echo "$SHM/$1.img"; fi
}
if [[ $BACKING == file ]]; then
  log "writing 3 LUN files of $LUN_SIZE with random data in $SHM ($(stat -f -c %T "$SHM"))"
  head -c "$LUN_BYTES" /dev/urandom > "$SHM/tgtd.img"
  cp "$SHM/tgtd.img" "$SHM/io_uring.img"; cp "$SHM/tgtd.img" "$SHM/threads.img"
  chmod 600 "$SHM"/*.img
fi

declare -A PORT PID
start_tgtd_lun "$TGT_IQN" "$(lun_path tgtd)"
PORT[tgtd]=$TGTD_PORT PID[tgtd]=$TGTD_PID
URL_tgtd="iscsi://127.0.0.1:$TGTD_PORT/$TGT_IQN/1"

start_daemon() { # NAME (= the backing-io value)
  local name=$1 port cfg pid
  free_port port; cfg=$OUT/daemon-$name.yaml
  cat > "$cfg" <<YAML
daemon:
  data-dir: $SHM/data-$name
  backing-io: $name
portals:
  - 127.0.0.1:$port
cache:
  mode: $CACHE_MODE
targets:
  - name: $OUR_IQN
    luns:
      - id: 0
        backing: $BACKING
        path: $(lun_path "$name")
        size: $LUN_BYTES
YAML
  # shellcheck disable=SC2086  # JAVA_OPTS is a list of options
  setsid "$JAVA" -Dchronicle.analytics.disable=true ${JAVA_OPTS:-} -cp "$JAR:$LIB/*" io.numaiscsi.daemon.Main \
    --config "$cfg" > "$OUT/daemon-$name.log" 2>&1 < /dev/null &
  pid=$!
  DAEMON_PIDS+=("$pid")
  wait_listen "$port" "$pid" "daemon $name"
  grep -q "backing I/O: $name " "$OUT/daemon-$name.log" ||
    die "daemon $name does not say 'backing I/O: $name': $(grep 'backing I/O' "$OUT/daemon-$name.log")"
  PORT[$name]=$port PID[$name]=$pid
  log "daemon $name pid $pid on 127.0.0.1:$port: $(grep -o 'backing I/O: .*' "$OUT/daemon-$name.log")"
}
start_daemon io_uring
start_daemon threads
url() { # NAME
  if [[ $1 == tgtd ]]; then echo "iscsi://127.0.0.1:${PORT[tgtd]}/$TGT_IQN/1"
  else echo "iscsi://127.0.0.1:${PORT[$1]}/$OUR_IQN/0"; fi
}

# cell: name tool rw-or-flags bs depth
CELLS=("fio-4k-randread fio randread 4k 32" "fio-512k-seqread fio read 512k 8"
       "perf-4k-randread perf -r 8 32" "perf-512k-seqread perf - 1024 8")
RESULTS=$OUT/results.tsv
run_cell() { # CELL TARGET REPEAT SECONDS -> appends to $RESULTS
  local cell=$1 target=$2 rep=$3 secs=$4 name tool a b depth before after ios iops out
  read -r name tool a b depth <<< "$cell"
  out=$OUT/runs/$name-$target-$rep
  mkdir -p "$OUT/runs"
  before=$(cpu_ticks "${PID[$target]}")
  if [[ $tool == fio ]]; then
    printf '[global]\nioengine=libiscsi\nfilename=%s\ntime_based=1\nruntime=%s\n[%s]\nrw=%s\nbs=%s\niodepth=%s\n' \
      "$(url "$target" | sed 's/:/\\:/g')" "$secs" "$name" "$a" "$b" "$depth" > "$out.fio"
    "$FIO" --output-format=json --output="$out.json" "$out.fio" > "$out.log" 2>&1 & TOOL_PID=$!
    wait "$TOOL_PID" || die "fio failed: $out.log"
    TOOL_PID=
    ios=$(jq '[.jobs[].read.total_ios] | add' "$out.json")
    iops=$(jq '[.jobs[].read.iops] | add | floor' "$out.json")
  else
    local random=(); [[ $a == -r ]] && random=(-r)
    iscsi-perf -m "$depth" -b "$b" "${random[@]}" -t "$secs" "$(url "$target")" > "$out.log" 2>&1 & TOOL_PID=$!
    wait "$TOOL_PID" || die "iscsi-perf failed: $out.log"
    TOOL_PID=
    iops=$(tr '\r' '\n' < "$out.log" | grep -o 'iops average [0-9]*' | tail -1 | awk '{print $3}')
    [[ -n $iops ]] || die "no 'iops average' in $out.log"
    ios=$((iops * secs))
  fi
  after=$(cpu_ticks "${PID[$target]}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$target" "$rep" "$iops" "$ios" "$((after - before))" \
    "$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$ios" 'BEGIN {printf "%.2f", n ? t * 1e6 / hz / n : 0}')" \
    >> "$RESULTS"
  log "$name $target #$rep: $iops IOPS, $(tail -1 "$RESULTS" | cut -f7) us CPU per I/O"
}

run_matrix

for n in io_uring threads; do # where each daemon's CPU went, by thread (reaper, iou-wrk, backing-io, lun-event)
  for t in /proc/"${PID[$n]}"/task/*; do
    printf '%s\t%s\n' "$(cat "$t/comm")" "$(sed 's/^.*) //' "$t/stat" | awk '{print $12 + $13}')"
  done | awk -F'\t' '{sub(/-[0-9]+$/, "", $1); c[$1] += $2} END {for (k in c) if (c[k]) print c[k] "\t" k}' |
    sort -rn > "$OUT/thread-cpu-ticks-$n.txt"
done

python3 - "$OUT" "$ARGS" "$BACKING" "$LUN_SIZE" "$DEVICE" "$LUN_DIR ($(stat -f -c %T "$SHM"))" "$CACHE_MODE" <<'PY'
import csv, statistics, sys, platform
out, args, backing, size, device, where, cache = sys.argv[1:8]
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
cells = list(dict.fromkeys(r["cell"] for r in rows))
med = lambda c, t, k: statistics.median(float(r[k]) for r in rows if r["cell"] == c and r["target"] == t)
lines = [f"# backing I/O: io_uring against the thread pool (and tgtd)", "",
         f"`fio-tests/bench/run-backing-io-bench.sh {args}`; backing {backing}"
         + (f" {device}" if device else f", LUN files of {size} in {where}") + f", cache.mode {cache}; "
         f"kernel {platform.release()}; medians of the repeats (every run in results.tsv).", "",
         "| cell | IOPS tgtd | IOPS threads | IOPS io_uring | io_uring/threads | io_uring/tgtd "
         "| CPU us/IO tgtd | threads | io_uring | io_uring/threads | io_uring/tgtd |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for c in cells:
    i = {t: med(c, t, "iops") for t in ("tgtd", "threads", "io_uring")}
    u = {t: med(c, t, "cpu_us_per_io") for t in ("tgtd", "threads", "io_uring")}
    lines.append(f"| {c} | {i['tgtd']:.0f} | {i['threads']:.0f} | {i['io_uring']:.0f} | "
                 f"{i['io_uring'] / i['threads']:.2f} | {i['io_uring'] / i['tgtd']:.2f} | {u['tgtd']:.2f} | "
                 f"{u['threads']:.2f} | {u['io_uring']:.2f} | {u['io_uring'] / u['threads']:.2f} | "
                 f"{u['io_uring'] / u['tgtd']:.2f} |")
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
log "done: $OUT/table.md"
