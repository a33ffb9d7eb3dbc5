#!/usr/bin/env bash
# run-queue-bench.sh - the protocol path under a queue: commands kept in flight by libiscsi-bin's iscsi-perf (and
# fio's libiscsi engine for writes) against null backing stores, so no storage is measured: tgtd --bstype null,
# this daemon with its defaults (epoll, per-LUN event threads), and the daemon with each choice of
# daemon.tcp-transport under the centralized event model (io_uring works only there), in one run over loopback.
# Run as root on a quiet machine.
#
#   fio-tests/bench/run-queue-bench.sh [--repeats N] [--runtime S] [--warmup S] [--quick] [--out DIR]
#
#   --repeats N   runs per cell and target, the targets' order rotating each repeat (default 3)
#   --runtime S   seconds per run (default 8)
#   --warmup S    every cell once per target for S seconds before measuring, discarded (JIT; default 3)
#   --quick       the 4K random read cells at 1 and 32 in flight only (a smoke run)
#   --out DIR     results (default fio-tests/target/bench/queue-<timestamp>/)
# Env: FIO (default /opt/fio-libiscsi/bin/fio), BENCH_BASE_PORT (default 13700), JAVA_OPTS (daemon JVM options).
#
# Cells (iscsi-perf reads; -m in flight, -b blocks of 512 bytes): 4K random read at 1, 8, 32 and 128 in flight;
# 64K and 512K sequential read at 8 in flight; 4K random read from 4 sessions at 8 in flight each (4 iscsi-perf
# processes with their own initiator names); 4K random write by fio (4 jobs, one command in flight each: fio's
# libiscsi engine keeps one). Per run: IOPS and CPU per I/O = the target process's utime+stime (/proc/PID/stat,
# all threads) over the run divided by the I/Os done. Writes results.tsv (every run) and table.md (medians, ratios to
# tgtd and to the default). Needs the daemon built in this checkout (mvn -o -q -pl target-daemon -am package
# -DskipTests); never installs it. Every process it started is stopped by PID (tgtd through tgtadm).
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=queue-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, require_tgtd_and_libiscsi_tools, stop_pid, stop_tgtd, start_tgtd_lun, free_port, wait_listen, cpu_ticks, run_matrix
BENCH_DEFAULT_BASE_PORT=13700

REPEATS=3 RUNTIME=8 WARMUP=3 QUICK=0
OUT=$ROOT/fio-tests/target/bench/queue-$(date +%Y%m%d-%H%M%S)
FIO=${FIO:-/opt/fio-libiscsi/bin/fio}
ARGS="$*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --repeats) REPEATS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd)"
JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
LIB=$ROOT/target-daemon/target/lib
[[ -f $JAR && -d $LIB ]] || die "no daemon build in $ROOT: mvn -o -q -pl target-daemon -am package -DskipTests"
TGT_IQN=iqn.2026-11.io.numaiscsi:queue-tgtd
OUR_IQN=iqn.2026-11.io.numaiscsi:queue
LUN_BYTES=$((1 << 30))

TGTD_PID= TGTD_PORT= DATA=
TOOL_PIDS=() DAEMON_PIDS=()
cleanup() {
  local rc=$? p
  set +e
  trap - EXIT INT TERM HUP
  for p in "${TOOL_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done # fio's libiscsi engine ignores SIGTERM
  for p in "${DAEMON_PIDS[@]}"; do stop_pid "$p" 20; done
  stop_tgtd
  [[ -n $DATA && -d $DATA ]] && rm -rf "$DATA"
  [[ $rc -ne 0 ]] && log "failed (exit $rc); logs in $OUT"
  exit "$rc"
}
trap_exits

require_tgtd_and_libiscsi_tools
find_java jdk
mkdir -p "$OUT/runs"
DATA=$(mktemp -d /tmp/nit-queue-bench.XXXXXX)
log "results in $OUT"
CLK_TCK=$(getconf CLK_TCK)

declare -A PORT PID
start_tgtd_lun "$TGT_IQN" "$DATA/tgtd-null" null
PORT[tgtd]=$TGTD_PORT PID[tgtd]=$TGTD_PID

# name: daemon section lines (empty: the defaults)
declare -A DAEMON_YAML=(
  [default]=""
  [epoll-central]=$'  event-model: centralized\n  tcp-transport: epoll'
  [io_uring-central]=$'  event-model: centralized\n  tcp-transport: io_uring'
)
start_daemon() { # NAME
  local name=$1 port cfg pid
  free_port port; cfg=$OUT/daemon-$name.yaml
  {
    printf 'daemon:\n  data-dir: %s\n' "$DATA/data-$name"
    [[ -n ${DAEMON_YAML[$name]} ]] && printf '%s\n' "${DAEMON_YAML[$name]}"
    printf 'portals:\n  - 127.0.0.1:%s\ntargets:\n  - name: %s\n    luns:\n' "$port" "$OUR_IQN"
    printf '      - {id: 0, backing: null, size: %s, block-size: 512}\n' "$LUN_BYTES"
  } > "$cfg"
  # shellcheck disable=SC2086  # JAVA_OPTS is a list of options
  setsid "$JAVA" -Dchronicle.analytics.disable=true ${JAVA_OPTS:-} -cp "$JAR:$LIB/*" io.numaiscsi.daemon.Main \
    --config "$cfg" --admin-socket off > "$OUT/daemon-$name.log" 2>&1 < /dev/null &
  pid=$!
  DAEMON_PIDS+=("$pid")
  wait_listen "$port" "$pid" "daemon $name"
  PORT[$name]=$port PID[$name]=$pid
  log "daemon $name pid $pid on 127.0.0.1:$port: $(grep -o 'network I/O: [^ ]*' "$OUT/daemon-$name.log" | head -1)"
}
NAMES=(tgtd default epoll-central io_uring-central)
for n in "${NAMES[@]:1}"; do start_daemon "$n"; done
url() { # NAME
  if [[ $1 == tgtd ]]; then echo "iscsi://127.0.0.1:${PORT[tgtd]}/$TGT_IQN/1"
  else echo "iscsi://127.0.0.1:${PORT[$1]}/$OUR_IQN/0"; fi
}

# cell: name tool random(-r|-) blocks-of-512 in-flight sessions
if [[ $QUICK -eq 1 ]]; then
  CELLS=("4k-rand-qd1 perf -r 8 1 1" "4k-rand-qd32 perf -r 8 32 1")
else
  CELLS=("4k-rand-qd1 perf -r 8 1 1" "4k-rand-qd8 perf -r 8 8 1" "4k-rand-qd32 perf -r 8 32 1"
         "4k-rand-qd128 perf -r 8 128 1" "64k-seq-qd8 perf - 128 8 1" "512k-seq-qd8 perf - 1024 8 1"
         "4k-rand-4sess-qd8 perf -r 8 8 4" "4k-randwrite-4jobs fio -r 8 1 4")
fi
RESULTS=$OUT/results.tsv
run_cell() { # CELL TARGET REPEAT SECONDS -> appends to $RESULTS
  local cell=$1 target=$2 rep=$3 secs=$4 name tool rnd blocks depth sessions before after ios=0 iops=0 out s v
  read -r name tool rnd blocks depth sessions <<< "$cell"
  out=$OUT/runs/$name-$target-$rep
  before=$(cpu_ticks "${PID[$target]}")
  TOOL_PIDS=()
  if [[ $tool == fio ]]; then
    printf '[global]\nioengine=libiscsi\nfilename=%s\ntime_based=1\nruntime=%s\nnumjobs=%s\ngroup_reporting=1\n' \
      "$(url "$target" | sed 's/:/\\:/g')" "$secs" "$sessions" > "$out.fio"
    printf '[w]\nrw=randwrite\nbs=%s\nsize=%s\n' "$((blocks * 512))" "$LUN_BYTES" >> "$out.fio"
    "$FIO" --output-format=json --output="$out.json" "$out.fio" > "$out.log" 2>&1 & TOOL_PIDS=($!)
    wait "${TOOL_PIDS[0]}" || die "fio failed: $out.log"
    ios=$(jq '[.jobs[].write.total_ios] | add' "$out.json")
    iops=$(jq '[.jobs[].write.iops] | add | floor' "$out.json")
  else
    local random=(); [[ $rnd == -r ]] && random=(-r)
    for ((s = 0; s < sessions; s++)); do
      iscsi-perf -i "iqn.2026-11.io.numaiscsi:queue-bench-$s" -m "$depth" -b "$blocks" "${random[@]}" -t "$secs" \
        "$(url "$target")" > "$out-$s.log" 2>&1 & TOOL_PIDS+=($!)
    done
    for ((s = 0; s < sessions; s++)); do
      wait "${TOOL_PIDS[$s]}" || die "iscsi-perf failed: $out-$s.log"
      v=$(tr '\r' '\n' < "$out-$s.log" | grep -o 'iops average [0-9]*' | tail -1 | awk '{print $3}')
      [[ -n $v ]] || die "no 'iops average' in $out-$s.log"
      iops=$((iops + v))
    done
    ios=$((iops * secs))
  fi
  TOOL_PIDS=()
  after=$(cpu_ticks "${PID[$target]}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$target" "$rep" "$iops" "$ios" "$((after - before))" \
    "$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$ios" 'BEGIN {printf "%.2f", n ? t * 1e6 / hz / n : 0}')" \
    >> "$RESULTS"
  log "$name $target #$rep: $iops IOPS, $(tail -1 "$RESULTS" | cut -f7) us CPU per I/O"
}

run_matrix

python3 - "$OUT" "$ARGS" <<'PY'
import csv, json, statistics, sys, platform
out, args = sys.argv[1:3]
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
cells = list(dict.fromkeys(r["cell"] for r in rows))
targets = ["tgtd", "default", "epoll-central", "io_uring-central"]
med = lambda c, t, k: statistics.median(float(r[k]) for r in rows if r["cell"] == c and r["target"] == t)
lines = ["# Under a queue, no storage: null backing stores", "",
         f"`fio-tests/bench/run-queue-bench.sh {args}`; kernel {platform.release()}; medians of the repeats "
         "(every run in results.tsv). default = the daemon's defaults (epoll, per-LUN event threads); *-central = "
         "event-model centralized with that tcp-transport. CPU = the target process's CPU time per I/O.", "",
         "| cell | IOPS tgtd | default | epoll-central | io_uring-central | default/tgtd | io_uring/epoll (central) "
         "| CPU us/IO tgtd | default | epoll-central | io_uring-central | CPU default/tgtd |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
summary = {}
for c in cells:
    i = {t: med(c, t, "iops") for t in targets}
    u = {t: med(c, t, "cpu_us_per_io") for t in targets}
    summary[c] = {"iops": i, "cpu_us_per_io": u}
    lines.append(f"| {c} | {i['tgtd']:.0f} | {i['default']:.0f} | {i['epoll-central']:.0f} | "
                 f"{i['io_uring-central']:.0f} | {i['default'] / i['tgtd']:.2f} | "
                 f"{i['io_uring-central'] / i['epoll-central']:.2f} | {u['tgtd']:.2f} | {u['default']:.2f} | "
                 f"{u['epoll-central']:.2f} | {u['io_uring-central']:.2f} | {u['default'] / u['tgtd']:.2f} |")
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)
print("\n".join(lines))
PY
log "done: $OUT/table.md"
