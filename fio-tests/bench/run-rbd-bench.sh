#!/usr/bin/env bash
# run-rbd-bench.sh - an RBD image three ways on one throw-away Ceph cluster (fio-tests/ceph/test-cluster.sh: one mon,
# one memstore OSD, loopback), in one run: librbd directly (rbd bench), through this daemon (backing: rbd) and through
# tgtd's bs_rbd (tgtadm --bstype rbd, Debian tgt-rbd), the targets read and written by fio's libiscsi engine over
# loopback TCP. Run as root on a quiet machine.
#
#   fio-tests/bench/run-rbd-bench.sh [--repeats N] [--runtime S] [--image-size SIZE] [--out DIR]
#
#   --repeats N        runs per cell and way, the order rotating each repeat (default 3); the median is reported
#   --runtime S        seconds per fio run (default 10); rbd bench runs a fixed number of I/Os sized to about as long
#   --warmup S         before the cells, every cell once per way for S seconds, discarded (JIT; default 5)
#   --image-size SIZE  each way's own image, filled sequentially before the cells (default 512M; memstore holds 4G)
#   --out DIR          results (default fio-tests/target/bench/rbd-<timestamp>/)
# Env: FIO (default /opt/fio-libiscsi/bin/fio), BENCH_BASE_PORT (default 14400; the cluster uses 14300..14339),
# JAVA_OPTS (daemon JVM options).
#
# librbd's cache is off for all three ways (a [client] section added to the cluster's ceph.conf), as the daemon always
# runs: every acknowledged write is on the OSD.
# Cells: 4K random read and 4K random write at 32 in flight, 128K sequential read at 8. Writes results.tsv (every run)
# and table.md (medians, and the ratios daemon/direct, tgtd/direct, daemon/tgtd). Needs the daemon built in this
# checkout (mvn -o -q -pl target-daemon -am package -DskipTests). Everything it started is stopped by PID (tgtd through
# tgtadm, the cluster through test-cluster.sh stop), also on errors.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=rbd-bench
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java
# shellcheck source=bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, require_tgtd_and_libiscsi_tools, stop_pid, stop_tgtd, start_tgtd_lun, free_port, wait_listen
BENCH_DEFAULT_BASE_PORT=14400
CEPH_PORT=14300

REPEATS=3 RUNTIME=10 WARMUP=5 IMAGE_SIZE=512M
OUT=$ROOT/fio-tests/target/bench/rbd-$(date +%Y%m%d-%H%M%S)
FIO=${FIO:-/opt/fio-libiscsi/bin/fio}
ARGS="$*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --repeats) REPEATS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --image-size) IMAGE_SIZE=$2; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd)"
command -v ceph-mon >/dev/null && command -v rbd >/dev/null && [[ -e /usr/lib/tgt/backing-store/bs_rbd.so ]] ||
  apt_install ceph-mon ceph-osd ceph-common librbd-dev tgt-rbd
IMAGE_BYTES=$(numfmt --from=iec "$IMAGE_SIZE") || die "bad --image-size $IMAGE_SIZE"
JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
LIB=$ROOT/target-daemon/target/lib
[[ -f $JAR && -d $LIB ]] || die "no daemon build in $ROOT: mvn -o -q -pl target-daemon -am package -DskipTests"
CLUSTER_SH=$ROOT/fio-tests/ceph/test-cluster.sh
TGT_IQN=iqn.2026-11.io.numaiscsi:bench-tgtd
OUR_IQN=iqn.2026-11.io.numaiscsi:bench

TGTD_PID= TGTD_PORT= TOOL_PID= DAEMON_PID= CLUSTER=
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM HUP
  stop_pid "$TOOL_PID" 5
  stop_pid "$DAEMON_PID" 20
  stop_tgtd
  [[ -n $CLUSTER ]] && "$CLUSTER_SH" stop "$CLUSTER"
  [[ $rc -ne 0 ]] && log "failed (exit $rc); logs in $OUT"
  exit "$rc"
}
trap_exits

require_tgtd_and_libiscsi_tools
find_java jdk
mkdir -p "$OUT/runs"
log "results in $OUT"

CLUSTER=$OUT/ceph
"$CLUSTER_SH" start "$CLUSTER" "$CEPH_PORT" > "$OUT/cluster-start.log" 2>&1 || die "cluster start failed: $OUT/cluster-start.log"
CONF=$CLUSTER/ceph.conf
# every way without librbd's write-back cache, as the daemon runs (an acknowledged write is on the OSD): rbd bench and
# tgtd's bs_rbd would otherwise acknowledge writes from client memory
printf '[client]\nrbd cache = false\n' >> "$CONF"
rbdc() { rbd -c "$CONF" "$@"; }
for img in direct daemon tgtd; do
  rbdc create --size "$((IMAGE_BYTES >> 20))M" "rbd/$img"
  rbdc bench --io-type write --io-pattern seq --io-size 4M --io-threads 4 --io-total "$IMAGE_BYTES" "rbd/$img" \
    > "$OUT/fill-$img.log" 2>&1
done
log "cluster on 127.0.0.1:$CEPH_PORT, 3 images of $IMAGE_SIZE filled"

# tgtd's bs_rbd reads ceph.conf (which names the admin keyring) from --bsopts
start_tgtd_lun "$TGT_IQN" rbd/tgtd rbd "conf=$CONF;id=admin"
log "tgtd pid $TGTD_PID on 127.0.0.1:$TGTD_PORT (bs_rbd)"

free_port DAEMON_PORT
cat > "$OUT/daemon.yaml" <<YAML
daemon:
  data-dir: $OUT/daemon-data
portals:
  - 127.0.0.1:$DAEMON_PORT
targets:
  - name: $OUR_IQN
    luns:
      - {id: 0, backing: rbd, pool: rbd, image: daemon, ceph-conf: $CONF, rbd-user: admin,
         keyring: $CLUSTER/ceph.client.admin.keyring}
YAML
# shellcheck disable=SC2086  # JAVA_OPTS is a list of options
setsid "$JAVA" -Dchronicle.analytics.disable=true ${JAVA_OPTS:-} -cp "$JAR:$LIB/*" io.numaiscsi.daemon.Main \
  --config "$OUT/daemon.yaml" > "$OUT/daemon.log" 2>&1 < /dev/null &
DAEMON_PID=$!
wait_listen "$DAEMON_PORT" "$DAEMON_PID" daemon
log "daemon pid $DAEMON_PID on 127.0.0.1:$DAEMON_PORT"

url() { # WAY
  if [[ $1 == tgtd ]]; then echo "iscsi://127.0.0.1:$TGTD_PORT/$TGT_IQN/1"; else echo "iscsi://127.0.0.1:$DAEMON_PORT/$OUR_IQN/0"; fi
}

# cell: name fio-rw rbd-bench-type rbd-bench-pattern bs depth
CELLS=("4k-randread randread read rand 4k 32" "4k-randwrite randwrite write rand 4k 32"
       "128k-seqread read read seq 128k 8")
declare -A LAST_IOPS
RESULTS=$OUT/results.tsv
printf 'cell\tway\trepeat\tiops\n' > "$RESULTS"
run_cell() { # CELL WAY REPEAT
  local name rw type pattern bs depth out iops total
  read -r name rw type pattern bs depth <<< "$1"
  out=$OUT/runs/$name-$2-$3
  if [[ $2 == direct ]]; then
    # as many I/Os as the daemon did in RUNTIME seconds (or 20000 before it ran), so the run takes about as long
    total=$(( ${LAST_IOPS[$name]:-2000} * RUNTIME * $(numfmt --from=iec "${bs^^}") ))
    rbdc bench --io-type "$type" --io-pattern "$pattern" --io-size "${bs^^}" --io-threads "$depth" --io-total "$total" \
      rbd/direct > "$out.log" 2>&1 & TOOL_PID=$!
    wait "$TOOL_PID" || die "rbd bench failed: $out.log"
    TOOL_PID=
    iops=$(grep -o 'ops/sec: *[0-9.]*' "$out.log" | tail -1 | awk '{printf "%d", $2}')
    [[ -n $iops ]] || die "no ops/sec in $out.log"
  else
    printf '[global]\nioengine=libiscsi\nfilename=%s\ntime_based=1\nruntime=%s\n[%s]\nrw=%s\nbs=%s\niodepth=%s\n' \
      "$(url "$2" | sed 's/:/\\:/g')" "$RUNTIME" "$name" "$rw" "$bs" "$depth" > "$out.fio"
    "$FIO" --output-format=json --output="$out.json" "$out.fio" > "$out.log" 2>&1 & TOOL_PID=$!
    wait "$TOOL_PID" || die "fio failed: $out.log"
    TOOL_PID=
    iops=$(jq '[.jobs[] | .read.iops + .write.iops] | add | floor' "$out.json")
    [[ $2 == daemon ]] && LAST_IOPS[$name]=$iops
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$2" "$3" "$iops" >> "$RESULTS"
  log "$name $2 #$3: $iops IOPS"
}

WAYS=(daemon direct tgtd)
if [[ $WARMUP -gt 0 ]]; then # JIT and connections: every cell once per way, discarded
  RESULTS=$OUT/warmup.tsv SAVED=$RUNTIME RUNTIME=$WARMUP
  for cell in "${CELLS[@]}"; do for way in "${WAYS[@]}"; do run_cell "$cell" "$way" 0; done; done
  RESULTS=$OUT/results.tsv RUNTIME=$SAVED
fi
for ((rep = 1; rep <= REPEATS; rep++)); do
  for cell in "${CELLS[@]}"; do
    for ((k = 0; k < ${#WAYS[@]}; k++)); do
      # the daemon first in repeat 1 (it sizes rbd bench's runs), then the order rotates
      run_cell "$cell" "${WAYS[$(( (k + rep - 1) % ${#WAYS[@]} ))]}" "$rep"
    done
  done
done

python3 - "$OUT" "$ARGS" "$IMAGE_SIZE" "$(rbd --version | awk '{print $3}')" "$(dpkg-query -W -f '${Version}' tgt-rbd)" <<'PY'
import csv, statistics, sys, platform
out, args, size, ceph, tgt = sys.argv[1:6]
runs = {}
for r in csv.DictReader(open(out + "/results.tsv"), delimiter="\t"):
    runs.setdefault((r["cell"], r["way"]), []).append(int(r["iops"]))
cells = list(dict.fromkeys(c for c, _ in runs))
med = {k: statistics.median(v) for k, v in runs.items()}
lines = [f"RBD image three ways on one memstore cluster (Ceph {ceph}, tgt-rbd {tgt}, {size} images, {platform.node()},"
         f" args: {args or '(defaults)'}); median IOPS of {len(next(iter(runs.values())))} runs", "",
         "| cell | rbd bench (direct) | daemon | tgtd bs_rbd | daemon/direct | tgtd/direct | daemon/tgtd |",
         "|---|---:|---:|---:|---:|---:|---:|"]
for c in cells:
    d, o, t = med[(c, "direct")], med[(c, "daemon")], med[(c, "tgtd")]
    lines.append(f"| {c} | {d:.0f} | {o:.0f} | {t:.0f} | {o / d:.2f} | {t / d:.2f} | {o / t:.2f} |")
open(out + "/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
