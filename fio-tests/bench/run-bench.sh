#!/usr/bin/env bash
# run-bench.sh - side-by-side benchmark: numa-iscsi-target (per-LUN and centralized event model)
# against tgtd, over loopback TCP with fio's libiscsi engine. Run as root on a quiet machine.
#
#   fio-tests/bench/run-bench.sh [--quick] [--repeats N] [--runtime S] [--warmup S]
#                                [--lun-size SIZE] [--matrix FILE] [--out DIR] [--no-centralized]
#                                [--backing file|null] [--cache MODE] [--cache-size S] [--cache-ab]
#
#   --quick          1 repeat x 5 s per cell (smoke test of the harness; numbers mean little)
#   --repeats N      runs per cell and target, alternating targets (default 3)
#   --runtime S      seconds per fio run (default 20)
#   --warmup S       discarded runs per target before the matrix, S seconds each: a sequential read of
#                    both LUNs, then each workload of the matrix once (default 5)
#   --lun-size SIZE  size of every LUN file on /dev/shm, written fully once (default 1G)
#   --matrix FILE    workloads (default fio-tests/bench/matrix.txt)
#   --out DIR        results (default fio-tests/target/bench/<timestamp>/)
#   --no-centralized skip the third target (the daemon with --event-model CENTRALIZED)
#   --cache MODE     the daemons' cache.mode: numa (default; each LUN gets a cache that holds it whole), page-cache or off
#   --cache-size S   cache.size-per-node instead (the node's memory, shared by both LUNs); "default": the daemon's
#                    own default (auto), with the cache's default block size: LUNs larger than the cache
#   --backing KIND   file (default): LUN files on /dev/shm; null: no storage at all (tgtd --bstype null, our
#                    backing: null: reads return zeroes, writes are dropped), so only the protocol path is measured
#   --cache-ab       the third target is the same daemon with the cache off (instead of the centralized event
#                    model): cache on and off measured in one run, alternating with tgtd
# Env: JAVA_OPTS (daemon JVM options), DAEMON_KEYS (more keys of the daemons' daemon section, e.g.
#      "event-spin: 0; backing-io: threads"), TGTD_THREADS (tgtd -t, default tgtd's own),
#      FIO (default /opt/fio-libiscsi/bin/fio), BENCH_BASE_PORT (default 13300).
#
# What it does: installs/builds what is missing (fio with libiscsi, tgt, iperf3, the daemon, the
# driver); starts tgtd and the daemon(s) on 127.0.0.1 only, each with two LUN files of the same
# size on /dev/shm (preconditioned with random data); measures the loopback TCP ceiling with
# iperf3 (1 and 2 streams); then the Java driver (io.numaiscsi.fiotests.bench.BenchMain) runs the
# matrix, alternating the targets, and writes results.json, table.txt, table.md and ratios.png.
# Every process it started is stopped by PID (tgtd through tgtadm) and /dev/shm is cleaned, also
# on errors and signals.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=run-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java, ensure_build_tools
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, stop_pid, stop_tgtd, free_port, wait_listen
BENCH_DEFAULT_BASE_PORT=13300

REPEATS=3 RUNTIME=20 WARMUP=5 IPERF_SECONDS=5 LUN_SIZE=1G CENTRALIZED=1 CACHE_MODE=numa CACHE_SIZE= CACHE_AB=0 BACKING=file
MATRIX=$ROOT/fio-tests/bench/matrix.txt
OUT=$ROOT/fio-tests/target/bench/$(date +%Y%m%d-%H%M%S)
FIO=${FIO:-/opt/fio-libiscsi/bin/fio}
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) REPEATS=1 RUNTIME=5 WARMUP=2 IPERF_SECONDS=2; shift ;;
    --cache) CACHE_MODE=$2; shift 2 ;;
    --cache-size) CACHE_SIZE=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --lun-size) LUN_SIZE=$2; shift 2 ;;
    --matrix) MATRIX=$(readlink -f "$2"); shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    --no-centralized) CENTRALIZED=0; shift ;;
    --cache-ab) CACHE_AB=1 CENTRALIZED=0; shift ;;
    --backing) BACKING=$2; shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd, apt, /dev/shm)"
[[ -f $MATRIX ]] || die "no matrix file $MATRIX"
[[ $BACKING == file || $BACKING == null ]] || die "--backing must be file or null: $BACKING"
LUN_BYTES=$(numfmt --from=iec "$LUN_SIZE") || die "bad --lun-size $LUN_SIZE"

JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
LIB=$ROOT/target-daemon/target/lib
TGT_IQN=iqn.2026-11.io.numaiscsi:bench-tgtd
OUR_IQN=iqn.2026-11.io.numaiscsi:bench

# --- state for cleanup: only these PIDs are ever signalled -------------------------------------
SHM= TGTD_PID= TGTD_PORT= DRIVER_PID= IPERF_PID=
DAEMON_PIDS=()

cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM HUP ERR
  stop_pid "$DRIVER_PID" 15
  stop_pid "$IPERF_PID" 2
  local p
  for p in "${DAEMON_PIDS[@]}"; do stop_pid "$p" 20; done
  stop_tgtd
  [[ -n $SHM && -d $SHM ]] && rm -rf "$SHM"
  [[ $rc -ne 0 ]] && log "failed (exit $rc); logs in $OUT"
  exit "$rc"
}
trap_exits
trap 'log "error at line $LINENO: $BASH_COMMAND"' ERR

# --- tools --------------------------------------------------------------------------------------
missing=()
command -v tgtd >/dev/null && command -v tgtadm >/dev/null || missing+=(tgt)
command -v iperf3 >/dev/null || missing+=(iperf3)
command -v ss >/dev/null || missing+=(iproute2)
apt_install "${missing[@]}"
if ! "$FIO" --enghelp 2>/dev/null | grep -qw libiscsi; then
  log "building fio with the libiscsi engine (1-2 minutes)"
  PREFIX=$(dirname "$(dirname "$FIO")") bash "$ROOT/fio-tests/tools/build-fio-libiscsi.sh" >&2
fi
find_java jdk || ensure_build_tools
if [[ ! -f $JAR || ! -d $LIB ]]; then
  log "building the daemon (mvn -B -q -DskipTests install)"
  (cd "$ROOT" && mvn -B -q -DskipTests install) >&2
fi
CLASSES=$ROOT/fio-tests/target/classes
CP_FILE=$ROOT/fio-tests/target/bench-classpath.txt
if [[ ! -f $CLASSES/io/numaiscsi/fiotests/bench/BenchMain.class ||
      -n $(find "$ROOT/fio-tests/src/main" "$ROOT/fio-tests/pom.xml" -newer "$CLASSES/io/numaiscsi/fiotests/bench/BenchMain.class" -type f -print -quit) ]]; then
  log "compiling the benchmark driver (fio-tests)"
  (cd "$ROOT" && { mvn -B -q -o -pl fio-tests compile || mvn -B -q -pl fio-tests compile; }) >&2
  rm -f "$CP_FILE"
fi
if [[ ! -s $CP_FILE ]]; then
  cp_args=(-B -q -pl fio-tests dependency:build-classpath -Dmdep.outputFile="$CP_FILE" -Dmdep.includeScope=runtime)
  (cd "$ROOT" && { mvn -o "${cp_args[@]}" || mvn "${cp_args[@]}"; }) >&2
fi

mkdir -p "$OUT"
log "results in $OUT"
JAVA_VERSION=$("$JAVA" -version 2>&1 | head -1)
FIO_VERSION=$("$FIO" --version)
TGT_VERSION=$(dpkg-query -W -f='${Version}' tgt 2>/dev/null || echo unknown)

# --- ports and LUN files ----------------------------------------------------------------------

loopback_only() { # PID NAME: every listening socket of PID is on 127.0.0.1 (a JVM shows it IPv4-mapped)
  local bad
  bad=$(ss -Hltnp | grep "pid=$1," | awk '{print $4}' | grep -vE '^(127\.0\.0\.1|\[::ffff:127\.0\.0\.1\]):' || true)
  [[ -z $bad ]] || die "$2 listens on non-loopback $bad"
}

SHM=$(mktemp -d /dev/shm/nit-bench.XXXXXX)
names=(tgtd per-lun)
[[ $CENTRALIZED -eq 1 ]] && names+=(centralized)
[[ $CACHE_AB -eq 1 ]] && names+=(cache-off)
if [[ $BACKING == file ]]; then
  log "writing $((${#names[@]} * 2)) LUN files of $LUN_SIZE with random data on $SHM"
  head -c "$LUN_BYTES" /dev/urandom > "$SHM/seed.img"
  for n in "${names[@]}"; do cp "$SHM/seed.img" "$SHM/$n-a.img"; cp "$SHM/seed.img" "$SHM/$n-b.img"; done
  rm -f "$SHM/seed.img"
fi

# --- tgtd: LUN 0 is its controller, the disks are LUN 1 and 2 -----------------------------------
free_port TGTD_PORT
targs=(-f -C "$TGTD_PORT" --iscsi "portal=127.0.0.1:$TGTD_PORT")
[[ -n ${TGTD_THREADS:-} ]] && targs+=(-t "$TGTD_THREADS")
setsid tgtd "${targs[@]}" > "$OUT/tgtd.log" 2>&1 < /dev/null &
TGTD_PID=$!
tg=(tgtadm -C "$TGTD_PORT" --lld iscsi)
for _ in $(seq 50); do "${tg[@]}" --mode target --op show >/dev/null 2>&1 && break; sleep 0.1; done
[[ $(cat "/proc/$TGTD_PID/comm" 2>/dev/null) == tgtd ]] || die "tgtd did not start; see $OUT/tgtd.log"
"${tg[@]}" --mode target --op new --tid 1 --targetname "$TGT_IQN"
tgtd_bstype=(); [[ $BACKING == null ]] && tgtd_bstype=(--bstype null)
"${tg[@]}" --mode logicalunit --op new --tid 1 --lun 1 --backing-store "$SHM/tgtd-a.img" "${tgtd_bstype[@]}"
"${tg[@]}" --mode logicalunit --op new --tid 1 --lun 2 --backing-store "$SHM/tgtd-b.img" "${tgtd_bstype[@]}"
"${tg[@]}" --mode target --op bind --tid 1 --initiator-address ALL
wait_listen "$TGTD_PORT" "$TGTD_PID" tgtd
loopback_only "$TGTD_PID" tgtd
TARGET_ARGS=(--target "name=tgtd,portal=127.0.0.1:$TGTD_PORT,iqn=$TGT_IQN,luns=1+2,pid=$TGTD_PID")
log "tgtd pid $TGTD_PID on 127.0.0.1:$TGTD_PORT"

# --- the daemon, once per event model ---------------------------------------------------------
cache_keys() { # MODE: the cache section's keys: both LUNs held whole, a given size, or the daemon's defaults
  echo "  mode: $1"
  [[ $1 == off ]] && return 0
  case $CACHE_SIZE in
    '') echo "  size-per-node: $(( 2 * LUN_BYTES + (128 << 20) ))"; echo "  block-size: 128K" ;;
    default) ;;
    *) echo "  size-per-node: $CACHE_SIZE" ;;
  esac
}

daemon_keys() { # DAEMON_KEYS ("key: value; key: value"): more keys of the daemon section, for an A/B of one setting
  local kv k
  IFS=';' read -ra kv <<< "${DAEMON_KEYS:-}"
  for k in "${kv[@]}"; do [[ -n ${k// /} ]] && echo "  $(sed 's/^ *//' <<< "$k")"; done
  return 0
}

lun_yaml() { # ID FILE: one LUN of the config, on FILE or (--backing null) on no storage
  printf '      - id: %s\n        backing: %s\n' "$1" "$BACKING"
  [[ $BACKING == file ]] && printf '        path: %s\n' "$2"
  printf '        size: %s\n' "$LUN_BYTES"
}

start_daemon() { # NAME MODEL CACHE_MODE
  local name=$1 model=$2 cache=$3 port mport cfg pid
  free_port port; free_port mport; cfg=$OUT/daemon-$name.yaml
  # a data directory each: it holds the daemon's admin socket, which one daemon at a time may own
  mkdir -p -m 0700 "$SHM/$name.data"
  cat > "$cfg" <<EOF
daemon:
  data-dir: $SHM/$name.data
$(daemon_keys)
portals:
  - 127.0.0.1:$port
cache:
$(cache_keys "$cache")
targets:
  - name: $OUR_IQN
    luns:
$(lun_yaml 0 "$SHM/$name-a.img")
$(lun_yaml 1 "$SHM/$name-b.img")
EOF
  # shellcheck disable=SC2086  # JAVA_OPTS is a list of options
  setsid "$JAVA" -Dchronicle.analytics.disable=true ${JAVA_OPTS:-} -cp "$JAR:$LIB/*" io.numaiscsi.daemon.Main \
    --config "$cfg" --event-model "$model" --metrics "127.0.0.1:$mport" > "$OUT/daemon-$name.log" 2>&1 < /dev/null &
  pid=$!
  DAEMON_PIDS+=("$pid")
  wait_listen "$port" "$pid" "daemon $name"
  wait_listen "$mport" "$pid" "daemon $name (metrics)"
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == java ]] || die "pid $pid is not the JVM"
  loopback_only "$pid" "daemon $name"
  TARGET_ARGS+=(--target "name=$name,portal=127.0.0.1:$port,iqn=$OUR_IQN,luns=0+1,pid=$pid")
  METRICS+=("$name=$mport")
  log "daemon $name ($model) pid $pid on 127.0.0.1:$port, metrics 127.0.0.1:$mport"
}
METRICS=()
start_daemon per-lun PER_LUN "$CACHE_MODE"
[[ $CENTRALIZED -eq 1 ]] && start_daemon centralized CENTRALIZED "$CACHE_MODE"
[[ $CACHE_AB -eq 1 ]] && start_daemon cache-off PER_LUN off

# --- loopback TCP ceiling ---------------------------------------------------------------------
CEILING_ARGS=()
free_port IPORT
for streams in 1 2; do
  setsid iperf3 -s -1 -B 127.0.0.1 -p "$IPORT" > "$OUT/iperf3-server-P$streams.log" 2>&1 < /dev/null &
  IPERF_PID=$!
  wait_listen "$IPORT" "$IPERF_PID" "iperf3 server"
  if iperf3 -c 127.0.0.1 -p "$IPORT" -t "$IPERF_SECONDS" -P "$streams" -J > "$OUT/iperf3-P$streams.json" 2>&1; then
    CEILING_ARGS+=(--ceiling "$streams=$OUT/iperf3-P$streams.json")
  else
    log "iperf3 with $streams stream(s) failed; see $OUT/iperf3-P$streams.json"
  fi
  stop_pid "$IPERF_PID" 3; IPERF_PID=
done

if [[ $BACKING == file ]]; then LUN_DESCRIPTION="$LUN_SIZE files on /dev/shm"
else LUN_DESCRIPTION="null stores of $LUN_SIZE (tgtd --bstype null: its own size), no storage"; fi
# --- the matrix ---------------------------------------------------------------------------------
log "matrix: $(grep -cvE '^\s*(#|$)' "$MATRIX") cells x ${#names[@]} targets x $REPEATS repeat(s) x ${RUNTIME}s"
"$JAVA" -Djava.awt.headless=true -cp "$CLASSES:$(cat "$CP_FILE")" io.numaiscsi.fiotests.bench.BenchMain \
  --out "$OUT" --matrix "$MATRIX" --repeats "$REPEATS" --runtime "$RUNTIME" --warmup "$WARMUP" \
  --fio "$FIO" --clk-tck "$(getconf CLK_TCK)" --lun-size "$LUN_DESCRIPTION" \
  --java-version "$JAVA_VERSION" --fio-version "$FIO_VERSION" --tgtd-version "$TGT_VERSION" \
  "${TARGET_ARGS[@]}" "${CEILING_ARGS[@]}" &
DRIVER_PID=$!
wait "$DRIVER_PID"
DRIVER_PID=

# --- daemon metrics and log check ---------------------------------------------------------------
for m in "${METRICS[@]}"; do
  curl -s --max-time 5 "http://127.0.0.1:${m#*=}/metrics" > "$OUT/metrics-${m%%=*}.prom" ||
    log "no metrics from ${m%%=*}"
done
for n in "${names[@]:1}"; do
  c=$(grep -ciE 'error|exception|warn' "$OUT/daemon-$n.log" || true)
  [[ $c -gt 0 ]] && log "daemon-$n.log has $c error/warning line(s), e.g.: $(grep -iE 'error|exception|warn' "$OUT/daemon-$n.log" | head -1)"
done
log "done: $OUT/{table.txt,table.md,results.json,ratios.png}"
