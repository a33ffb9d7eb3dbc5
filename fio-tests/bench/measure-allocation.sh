#!/usr/bin/env bash
# measure-allocation.sh - bytes the daemon's threads allocate per I/O at steady state, under a queue of reads or
# writes. Starts the daemon built in this checkout with its defaults and one LUN (null, or a file behind the default
# NUMA cache) on a free loopback port, warms it with the same load, then records Java Flight Recorder's per-thread
# allocation counters (jdk.ThreadAllocationStatistics, at the start and end of the recording) around one measured
# run, and prints bytes allocated per I/O by thread with the allocation sites JFR sampled
# (jdk.ObjectAllocationSample, weighted).
#
#   fio-tests/bench/measure-allocation.sh [--blocks N] [--depth N] [--seconds S] [--write] [--file SIZE [--dir DIR]]
#                                         [--out DIR]
#
#   --blocks N    512-byte blocks per command (default 8: 4K)
#   --depth N     commands in flight (default 32)
#   --write       random writes by fio's libiscsi engine (iodepth N) instead of iscsi-perf's random reads
#   --file SIZE   the LUN is a file of SIZE (in /dev/shm) with the daemon's default cache (e.g. 128M: every read a hit
#                 once warm) instead of a null store
#   --dir DIR     with --file: the file in DIR instead of /dev/shm, filled with random data first (a directory on a
#                 disk: reads and writes reach the device through the io_uring engine)
#   --seconds S   measured run (default 10; the warmup is 5 s)
#   --out DIR     results (default fio-tests/target/bench/allocation-<timestamp>/)
# Env: JAVA_OPTS (daemon JVM options), BENCH_BASE_PORT (default 13800).
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=allocation
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, stop_pid, free_port, wait_listen
BENCH_DEFAULT_BASE_PORT=13800

BLOCKS=8 DEPTH=32 SECONDS_MEASURED=10 WRITE=0 FILE_SIZE= FILE_DIR=/dev/shm
FIO=${FIO:-/opt/fio-libiscsi/bin/fio}
OUT=$ROOT/fio-tests/target/bench/allocation-$(date +%Y%m%d-%H%M%S)
while [[ $# -gt 0 ]]; do
  case $1 in
    --blocks) BLOCKS=$2; shift 2 ;;
    --depth) DEPTH=$2; shift 2 ;;
    --seconds) SECONDS_MEASURED=$2; shift 2 ;;
    --write) WRITE=1; shift ;;
    --file) FILE_SIZE=$2; shift 2 ;;
    --dir) FILE_DIR=$(readlink -m "$2"); shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
LIB=$ROOT/target-daemon/target/lib
[[ -f $JAR && -d $LIB ]] || die "no daemon build in $ROOT: mvn -o -q -pl target-daemon -am package -DskipTests"
command -v iscsi-perf >/dev/null || apt_install libiscsi-bin
[[ $WRITE -eq 0 ]] || "$FIO" --enghelp 2>/dev/null | grep -qw libiscsi || die "--write needs fio with libiscsi at $FIO"
command -v ss >/dev/null || apt_install iproute2
find_java jdk
JDK_BIN=${JAVA%/java} # jcmd and jfr of the JDK that runs the daemon
mkdir -p "$OUT"
IQN=iqn.2026-11.io.numaiscsi:allocation

DAEMON_PID= DATA=
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM HUP
  stop_pid "$DAEMON_PID" 20
  [[ -n $DATA && -d $DATA ]] && rm -rf "$DATA"
  exit "$rc"
}
trap_exits

[[ -d $FILE_DIR ]] || die "--dir $FILE_DIR: no such directory"
DATA=$(mktemp -d "$FILE_DIR/nit-allocation.XXXXXX")
free_port PORT
if [[ -n $FILE_SIZE ]]; then
  if [[ $FILE_DIR != /dev/shm ]]; then # data, not holes: a read of a hole never reaches the device
    head -c "$(numfmt --from=iec "$FILE_SIZE")" /dev/urandom > "$DATA/lun0.img"
  fi
  LUN="{id: 0, backing: file, path: $DATA/lun0.img, size: $FILE_SIZE, block-size: 512}"
else
  LUN="{id: 0, backing: null, size: 1G, block-size: 512}"
fi
printf 'targets:\n  - name: %s\n    luns:\n      - %s\n' "$IQN" "$LUN" > "$OUT/daemon.yaml"
# shellcheck disable=SC2086  # JAVA_OPTS is a list of options
setsid "$JAVA" -Dchronicle.analytics.disable=true ${JAVA_OPTS:-} -cp "$JAR:$LIB/*" io.numaiscsi.daemon.Main \
  --config "$OUT/daemon.yaml" --data-dir "$DATA" --portal "127.0.0.1:$PORT" --admin-socket off \
  > "$OUT/daemon.log" 2>&1 < /dev/null &
DAEMON_PID=$!
wait_listen "$PORT" "$DAEMON_PID" daemon
URL=iscsi://127.0.0.1:$PORT/$IQN/0
load() { # SECONDS NAME: the load for SECONDS, output in OUT/NAME.*; sets IOS (commands done) and LOAD (what ran)
  if [[ $WRITE -eq 1 ]]; then
    LOAD="fio libiscsi randwrite bs=$((BLOCKS * 512)) iodepth=$DEPTH"
    printf '[w]\nioengine=libiscsi\nfilename=%s\nrw=randwrite\nbs=%s\niodepth=%s\ntime_based=1\nruntime=%s\n' \
      "$(sed 's/:/\\:/g' <<< "$URL")" "$((BLOCKS * 512))" "$DEPTH" "$1" > "$OUT/$2.fio"
    "$FIO" --output-format=json --output="$OUT/$2.json" "$OUT/$2.fio" > "$OUT/$2.log" 2>&1 || die "fio failed: $OUT/$2.log"
    IOS=$(jq '.jobs[0].write.total_ios' "$OUT/$2.json")
  else
    LOAD="iscsi-perf -m $DEPTH -b $BLOCKS -r"
    iscsi-perf -m "$DEPTH" -b "$BLOCKS" -r -t "$1" "$URL" > "$OUT/$2.log" 2>&1
    IOS=$(tr '\r' '\n' < "$OUT/$2.log" | grep -o 'iops average [0-9]*' | tail -1 | awk '{print $3 * '"$1"'}')
    [[ -n $IOS ]] || die "no 'iops average' in $OUT/$2.log"
  fi
}
log "warmup: 5 s"
load 5 warmup
"$JDK_BIN/jcmd" "$DAEMON_PID" JFR.start name=allocation settings=profile > "$OUT/jcmd.log" 2>&1 ||
  die "jcmd JFR.start failed: $(cat "$OUT/jcmd.log")"
load "$SECONDS_MEASURED" measured
"$JDK_BIN/jcmd" "$DAEMON_PID" JFR.stop name=allocation filename="$OUT/allocation.jfr" >> "$OUT/jcmd.log" 2>&1
"$JDK_BIN/jfr" print --json --events jdk.ThreadAllocationStatistics "$OUT/allocation.jfr" > "$OUT/threads.json"
"$JDK_BIN/jfr" print --json --stack-depth 10 --events jdk.ObjectAllocationSample "$OUT/allocation.jfr" \
  > "$OUT/samples.json"
python3 - "$OUT" "$IOS" "$SECONDS_MEASURED" "$LOAD" "${FILE_SIZE:-null}" "$FILE_DIR" <<'PY' | tee "$OUT/summary.md"
import collections, json, sys
out, ios, secs, load, lun, where = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
lun = "a null LUN" if lun == "null" else f"a {lun} file LUN in {where} behind the default cache"
first, last = {}, {}
for e in json.load(open(f"{out}/threads.json"))["recording"]["events"]:
    v = e["values"]
    name = (v["thread"] or {}).get("javaName") or "?"
    first.setdefault(name, v["allocated"])
    last[name] = v["allocated"]
print(f"# Allocation per I/O: {load} on {lun}, {ios} commands in {secs} s ({ios // secs} IOPS)\n")
print("| thread | bytes allocated | per I/O |\n|---|--:|--:|")
total = 0
for name in sorted(last, key=lambda n: first[n] - last[n]):
    d = last[name] - first[name]
    if d > 0:
        total += d
        print(f"| {name} | {d} | {d / ios:.1f} |")
print(f"| all threads | {total} | {total / ios:.1f} |\n")
sites, weight = collections.Counter(), 0
for e in json.load(open(f"{out}/samples.json"))["recording"]["events"]:
    v = e["values"]
    frames = v["stackTrace"]["frames"] if v["stackTrace"] else []
    site = next((f"{f['method']['type']['name']}.{f['method']['name']}:{f['lineNumber']}" for f in frames
                 if f["method"]["type"]["name"].startswith("io/numaiscsi")), "(outside the daemon's code)")
    sites[(v["objectClass"]["name"], site)] += v["weight"]
    weight += v["weight"]
print("| sampled class | first daemon frame | share |\n|---|---|--:|")
for (cls, site), w in sites.most_common(12):
    print(f"| {cls} | {site} | {w / weight:.1%} |")
PY
log "done: $OUT/summary.md"
