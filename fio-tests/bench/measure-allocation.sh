#!/usr/bin/env bash
# measure-allocation.sh - bytes the daemon's threads allocate per I/O at steady state, under a queue of reads.
# Starts the daemon built in this checkout with its defaults and one null LUN on a free loopback port, warms it with
# iscsi-perf, then records Java Flight Recorder's per-thread allocation counters (jdk.ThreadAllocationStatistics, at
# the start and end of the recording) around one measured iscsi-perf run, and prints bytes allocated per I/O by
# thread with the allocation sites JFR sampled (jdk.ObjectAllocationSample, weighted).
#
#   fio-tests/bench/measure-allocation.sh [--blocks N] [--depth N] [--seconds S] [--out DIR]
#
#   --blocks N    512-byte blocks per read (default 8: 4K)
#   --depth N     reads in flight (default 32)
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

BLOCKS=8 DEPTH=32 SECONDS_MEASURED=10
OUT=$ROOT/fio-tests/target/bench/allocation-$(date +%Y%m%d-%H%M%S)
while [[ $# -gt 0 ]]; do
  case $1 in
    --blocks) BLOCKS=$2; shift 2 ;;
    --depth) DEPTH=$2; shift 2 ;;
    --seconds) SECONDS_MEASURED=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
LIB=$ROOT/target-daemon/target/lib
[[ -f $JAR && -d $LIB ]] || die "no daemon build in $ROOT: mvn -o -q -pl target-daemon -am package -DskipTests"
command -v iscsi-perf >/dev/null || apt_install libiscsi-bin
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

DATA=$(mktemp -d /tmp/nit-allocation.XXXXXX)
free_port PORT
printf 'targets:\n  - name: %s\n    luns:\n      - {id: 0, backing: null, size: 1G, block-size: 512}\n' "$IQN" \
  > "$OUT/daemon.yaml"
# shellcheck disable=SC2086  # JAVA_OPTS is a list of options
setsid "$JAVA" -Dchronicle.analytics.disable=true ${JAVA_OPTS:-} -cp "$JAR:$LIB/*" io.numaiscsi.daemon.Main \
  --config "$OUT/daemon.yaml" --data-dir "$DATA" --portal "127.0.0.1:$PORT" --admin-socket off \
  > "$OUT/daemon.log" 2>&1 < /dev/null &
DAEMON_PID=$!
wait_listen "$PORT" "$DAEMON_PID" daemon
URL=iscsi://127.0.0.1:$PORT/$IQN/0
log "warmup: iscsi-perf -m $DEPTH -b $BLOCKS -r for 5 s"
iscsi-perf -m "$DEPTH" -b "$BLOCKS" -r -t 5 "$URL" > "$OUT/warmup.log" 2>&1
"$JDK_BIN/jcmd" "$DAEMON_PID" JFR.start name=allocation settings=profile > "$OUT/jcmd.log" 2>&1 ||
  die "jcmd JFR.start failed: $(cat "$OUT/jcmd.log")"
iscsi-perf -m "$DEPTH" -b "$BLOCKS" -r -t "$SECONDS_MEASURED" "$URL" > "$OUT/perf.log" 2>&1
"$JDK_BIN/jcmd" "$DAEMON_PID" JFR.stop name=allocation filename="$OUT/allocation.jfr" >> "$OUT/jcmd.log" 2>&1
IOPS=$(tr '\r' '\n' < "$OUT/perf.log" | grep -o 'iops average [0-9]*' | tail -1 | awk '{print $3}')
[[ -n $IOPS ]] || die "no 'iops average' in $OUT/perf.log"
"$JDK_BIN/jfr" print --json --events jdk.ThreadAllocationStatistics "$OUT/allocation.jfr" > "$OUT/threads.json"
"$JDK_BIN/jfr" print --json --stack-depth 10 --events jdk.ObjectAllocationSample "$OUT/allocation.jfr" \
  > "$OUT/samples.json"
python3 - "$OUT" "$IOPS" "$SECONDS_MEASURED" "$BLOCKS" "$DEPTH" <<'PY' | tee "$OUT/summary.md"
import collections, json, sys
out, iops, secs, blocks, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ios = iops * secs
first, last = {}, {}
for e in json.load(open(f"{out}/threads.json"))["recording"]["events"]:
    v = e["values"]
    name = (v["thread"] or {}).get("javaName") or "?"
    first.setdefault(name, v["allocated"])
    last[name] = v["allocated"]
print(f"# Allocation per I/O: iscsi-perf -m {depth} -b {blocks} -r, {iops} IOPS for {secs} s ({ios} reads)\n")
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
