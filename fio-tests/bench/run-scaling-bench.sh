#!/usr/bin/env bash
# run-scaling-bench.sh - the event models' scaling on paper (issue 17): this machine has 2 cores, so how the per-LUN
# model scales with cores cannot be shown by running it. Instead this measures, per thread, the CPU each I/O costs
# in the per-LUN model (an event thread per LUN) and the centralized one (one event thread for everything, as
# tgtd), with 1, 2 and 4 null LUNs each driven by its own iscsi-perf (4K random reads, DEPTH in flight), the daemon
# pinned to one core (the load generators on the other) and then to both. From the event threads' CPU per I/O
# follows what each model needs per 100K IOPS and where one event thread saturates. Run as root on a quiet machine.
#
#   fio-tests/bench/run-scaling-bench.sh [--seconds S] [--depth N] [--out DIR]
#
#   --seconds S   measured seconds per run (default 8; each run is warmed 3 s first)
#   --depth N     reads in flight per LUN (default 16)
#   --out DIR     results (default fio-tests/target/bench/scaling-<timestamp>/): results.tsv, table.md, the logs
# Env: BENCH_BASE_PORT (default 14000), JAVA_OPTS (daemon JVM options).
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=scaling-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, stop_pid, free_port, wait_listen
BENCH_DEFAULT_BASE_PORT=14000

SECONDS_MEASURED=8 DEPTH=16
OUT=$ROOT/fio-tests/target/bench/scaling-$(date +%Y%m%d-%H%M%S)
ARGS="$*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) SECONDS_MEASURED=$2; shift 2 ;;
    --depth) DEPTH=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root"
(( $(nproc) >= 2 )) || die "needs 2 cores (the daemon on one, the load on the other)"
JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
LIB=$ROOT/target-daemon/target/lib
[[ -f $JAR && -d $LIB ]] || die "no daemon build in $ROOT: mvn -o -q -pl target-daemon -am package -DskipTests"
command -v iscsi-perf >/dev/null || apt_install libiscsi-bin
find_java jdk
IQN=iqn.2026-11.io.numaiscsi:scaling
LAST_CPU=$(( $(nproc) - 1 ))

DAEMON_PID= DATA=
LOAD_PIDS=()
cleanup() {
  local rc=$? p
  set +e
  trap - EXIT INT TERM HUP
  for p in "${LOAD_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  stop_pid "$DAEMON_PID" 20
  [[ -n $DATA && -d $DATA ]] && rm -rf "$DATA"
  [[ $rc -ne 0 ]] && log "failed (exit $rc); logs in $OUT"
  exit "$rc"
}
trap_exits
mkdir -p "$OUT"
DATA=$(mktemp -d /tmp/nit-scaling.XXXXXX)

# thread_ticks PID: "tid name ticks" per thread (utime+stime; the name is comm, cut at 15 characters)
thread_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    awk -v tid="${t##*/}" -v name="$(cat "$t/comm" 2>/dev/null)" '{ sub(/^.*\) /, ""); print tid, name, $12 + $13 }' \
      "$t/stat" 2>/dev/null
  done
}

printf 'model\tluns\tdaemon_cpus\tiops\tevent_threads\tevent_ticks\tall_ticks\tbusiest_event_ticks\n' > "$OUT/results.tsv"
run_one() { # MODEL LUNS CPUS
  local model=$1 luns=$2 cpus=$3 port cfg l iops=0 v gen_cpus name
  free_port port
  cfg=$OUT/daemon-$model-$luns-$cpus.yaml
  {
    printf 'daemon:\n  data-dir: %s\n  event-model: %s\n' "$DATA/$model-$luns-$cpus" "$model"
    printf 'portals:\n  - 127.0.0.1:%s\ntargets:\n  - name: %s\n    luns:\n' "$port" "$IQN"
    for ((l = 0; l < luns; l++)); do
      printf '      - {id: %s, backing: null, size: 1G, block-size: 512}\n' "$l"
    done
  } > "$cfg"
  # shellcheck disable=SC2086  # JAVA_OPTS is a list of options
  setsid taskset -c "$cpus" "$JAVA" -Dchronicle.analytics.disable=true ${JAVA_OPTS:-} -cp "$JAR:$LIB/*" \
    io.numaiscsi.daemon.Main --config "$cfg" --admin-socket off > "$OUT/daemon-$model-$luns-$cpus.log" 2>&1 < /dev/null &
  DAEMON_PID=$!
  wait_listen "$port" "$DAEMON_PID" "daemon $model"
  # the load generators: on the other core when the daemon has one, else anywhere
  if [[ $cpus == "$LAST_CPU" ]]; then gen_cpus="0-$((LAST_CPU - 1))"; else gen_cpus="0-$LAST_CPU"; fi
  load() { # SECONDS TAG
    LOAD_PIDS=()
    for ((l = 0; l < luns; l++)); do
      taskset -c "$gen_cpus" iscsi-perf -i "iqn.2026-11.io.numaiscsi:scaling-$l" -m "$DEPTH" -b 8 -r -t "$1" \
        "iscsi://127.0.0.1:$port/$IQN/$l" > "$OUT/perf-$model-$luns-$cpus-$2-$l.log" 2>&1 & LOAD_PIDS+=($!)
    done
  }
  load 3 warmup
  for p in "${LOAD_PIDS[@]}"; do wait "$p"; done
  load "$SECONDS_MEASURED" run
  sleep 1 # every session logged in
  thread_ticks "$DAEMON_PID" > "$OUT/ticks-before.txt"
  sleep "$((SECONDS_MEASURED - 2))"
  thread_ticks "$DAEMON_PID" > "$OUT/ticks-after.txt"
  for p in "${LOAD_PIDS[@]}"; do wait "$p" || die "iscsi-perf failed (see $OUT/perf-$model-$luns-$cpus-run-*.log)"; done
  LOAD_PIDS=()
  for ((l = 0; l < luns; l++)); do
    v=$(tr '\r' '\n' < "$OUT/perf-$model-$luns-$cpus-run-$l.log" | grep -o 'iops average [0-9]*' | tail -1 | awk '{print $3}')
    [[ -n $v ]] || die "no 'iops average' in $OUT/perf-$model-$luns-$cpus-run-$l.log"
    iops=$((iops + v))
  done
  # per-thread deltas over the middle SECONDS-2 s; event threads: lun-event-* (per-LUN) and event-* (centralized)
  python3 - "$OUT/ticks-before.txt" "$OUT/ticks-after.txt" "$model" "$luns" "$cpus" "$iops" >> "$OUT/results.tsv" <<'PY'
import collections, sys
def read(p):
    d = {}
    for line in open(p):
        tid, rest = line.split(" ", 1)
        name, t = rest.rsplit(" ", 1)
        d[tid] = (name, int(t))
    return d
before, after = read(sys.argv[1]), read(sys.argv[2])
model, luns, cpus, iops = sys.argv[3:7]
delta = {tid: (name, t - before.get(tid, (name, 0))[1]) for tid, (name, t) in after.items()}
event = {tid: t for tid, (name, t) in delta.items() if name.startswith("lun-event") or name.startswith("event-")}
delta = {tid: t for tid, (name, t) in delta.items()}
print("\t".join([model, luns, cpus, iops, str(len(event)), str(sum(event.values())), str(sum(delta.values())),
                 str(max(event.values(), default=0))]))
PY
  log "$model, $luns LUN(s), daemon on CPU(s) $cpus: $iops IOPS; $(tail -1 "$OUT/results.tsv" | cut -f5-8)"
  stop_pid "$DAEMON_PID" 20
  DAEMON_PID=
}

for cpus in "$LAST_CPU" "0-$LAST_CPU"; do
  for luns in 1 2 4; do
    for model in per-lun centralized; do
      run_one "$model" "$luns" "$cpus"
    done
  done
done

python3 - "$OUT" "$SECONDS_MEASURED" "$ARGS" "$(getconf CLK_TCK)" "$DEPTH" <<'PY' | tee "$OUT/table.md"
import csv, sys
out, secs, args, hz, depth = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
window = secs - 2
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
print("# Event models per thread: CPU per I/O, 4K random reads from null LUNs\n")
print(f"`fio-tests/bench/run-scaling-bench.sh {args}`: one iscsi-perf per LUN, {depth} reads in flight each; "
      f"CPU from /proc/PID/task over the middle {window} s of each run. us/IO = CPU microseconds per read.\n")
print("| model | LUNs | daemon CPUs | IOPS | event threads | event threads us/IO | whole daemon us/IO "
      "| busiest event thread, share of a core | one event thread saturates at |")
print("|---|--:|---|--:|--:|--:|--:|--:|--:|")
for r in rows:
    ios = int(r["iops"]) * window
    ev = int(r["event_ticks"]) * 1e6 / hz / ios
    allt = int(r["all_ticks"]) * 1e6 / hz / ios
    busiest = int(r["busiest_event_ticks"]) / hz / window
    # the busiest thread's share of the I/Os: all of them (centralized) or its LUN's (per-LUN, LUNs driven alike)
    share = 1 if r["model"] == "centralized" else 1 / int(r["luns"])
    per_thread = int(r["busiest_event_ticks"]) * 1e6 / hz / (ios * share)
    print(f"| {r['model']} | {r['luns']} | {r['daemon_cpus']} | {int(r['iops']):,} | {r['event_threads']} | "
          f"{ev:.2f} | {allt:.2f} | {busiest:.2f} | {1e6 / per_thread:,.0f} IOPS |")
PY
log "done: $OUT/table.md"
