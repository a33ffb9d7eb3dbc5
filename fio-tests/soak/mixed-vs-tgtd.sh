#!/usr/bin/env bash
# mixed-vs-tgtd.sh - the latency tail of a mixed load against tgtd: 70/30 4K random read/write at 4 and at 32 in
# flight (fio's libiscsi engine), on a LUN file on tmpfs (/dev/shm) and on one on the machine's disk (/var/tmp),
# this daemon with its defaults against tgtd with its own, alternating, over loopback. Reports IOPS, p99 and p99.9
# completion latency of reads and writes and their ratios to tgtd, the daemon's collector pauses during the measured
# runs (its GC log), CPU per I/O of each target, and bytes the daemon allocates per I/O (JFR, one extra run per
# cell). Root, on a quiet machine.
#
#   fio-tests/soak/mixed-vs-tgtd.sh [--runtime S] [--repeats N] [--lun-size SIZE] [--out DIR]
#                                   [--variant NAME=JVM_OPTIONS]... [--variant-config NAME=YAML]...
#
#   --runtime S      seconds per fio run (default 20)
#   --repeats N      runs per cell and target, the order rotating (default 3)
#   --lun-size SIZE  each LUN file, filled with random data once (default 1G)
#   --variant N=O    one more daemon, NAME, started with the JVM options O (e.g. "zgc=-XX:+UseZGC"); every variant is
#                    measured beside tgtd and the daemon with the launchers' default options ("defaults")
#   --variant-config N=Y  one more daemon, NAME, with the launchers' JVM options and the config sections Y added to
#                    its config (e.g. "wb=cache: {write-policy: write-back}"): an experiment, not the defaults
#   --out DIR        results (default fio-tests/target/bench/mixed-<timestamp>/)
# Env: FIO (default /opt/fio-libiscsi/bin/fio), BENCH_BASE_PORT (default 13600).
#
# Outputs: table.md (the cells, the ratios, the pauses, allocation), results.tsv (every run), fio/ (job files and
# JSON), gc-NAME.log, daemon-NAME.log/.yaml, tgtd.log, alloc-*.json. Every process it starts is stopped by PID (tgtd
# through tgtadm) and its LUN files are removed, also on errors and signals.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=mixed-vs-tgtd
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"   # log, die, apt_install, find_java
# shellcheck source=../bench/bench-lib.sh
source "$ROOT/fio-tests/bench/bench-lib.sh"   # trap_exits, stop_pid, stop_tgtd, free_port, wait_listen, cpu_ticks
BENCH_DEFAULT_BASE_PORT=13600

RUNTIME=20 REPEATS=3 LUN_SIZE=1G
FIO=${FIO:-/opt/fio-libiscsi/bin/fio}
OUT=$ROOT/fio-tests/target/bench/mixed-$(date +%Y%m%d-%H%M%S)
# the JVM options bin/numa-iscsi-target and the Debian package give the daemon (keep in step with them)
DEFAULT_JVM_OPTS=$(sed -n 's/^DEFAULT_JAVA_OPTS="\(.*\)"$/\1/p' "$ROOT/bin/numa-iscsi-target")
VARIANTS=("defaults=$DEFAULT_JVM_OPTS")
declare -A EXTRA_YAML
while [[ $# -gt 0 ]]; do
  case $1 in
    --runtime) RUNTIME=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --lun-size) LUN_SIZE=$2; shift 2 ;;
    --variant) [[ $2 == *=* ]] || die "--variant NAME=JVM_OPTIONS"; VARIANTS+=("$2"); shift 2 ;;
    --variant-config)
      [[ $2 == *=* ]] || die "--variant-config NAME=YAML"
      VARIANTS+=("${2%%=*}=$DEFAULT_JVM_OPTS"); EXTRA_YAML[${2%%=*}]=${2#*=}; shift 2 ;;
    --out) OUT=$(readlink -m "$2"); shift 2 ;;
    -h|--help) print_header_help "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[[ $EUID -eq 0 ]] || die "run as root (tgtd, /dev/shm)"
LUN_BYTES=$(numfmt --from=iec "$LUN_SIZE") || die "bad --lun-size $LUN_SIZE"
require_tgtd_and_libiscsi_tools
require_daemon_build
JDK_BIN=${JAVA%/java}
[[ -x $JDK_BIN/jcmd && -x $JDK_BIN/jfr ]] || die "no jcmd/jfr next to $JAVA (a JDK is needed for the allocation runs)"
mkdir -p "$OUT/fio"
TGT_IQN=iqn.2026-11.io.numaiscsi:mixed-tgtd
OUR_IQN=iqn.2026-11.io.numaiscsi:mixed

SHM= DISK= TGTD_PID= TGTD_PORT=
DAEMON_PIDS=()
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM HUP
  local p
  for p in "${DAEMON_PIDS[@]}"; do stop_pid "$p" 30; done
  stop_tgtd
  [[ -n $SHM && -d $SHM ]] && rm -rf "$SHM"
  [[ -n $DISK && -d $DISK ]] && rm -rf "$DISK"
  [[ $rc -ne 0 ]] && log "failed (exit $rc); logs in $OUT"
  exit "$rc"
}
trap_exits

SHM=$(mktemp -d /dev/shm/nit-mixed.XXXXXX)
DISK=$(mktemp -d /var/tmp/nit-mixed.XXXXXX)
NAMES=(tgtd)
for v in "${VARIANTS[@]}"; do NAMES+=("${v%%=*}"); done
log "writing $((${#NAMES[@]} * 2)) LUN files of $LUN_SIZE with random data (tmpfs $SHM, disk $DISK)"
head -c "$LUN_BYTES" /dev/urandom > "$SHM/seed.img"
for n in "${NAMES[@]}"; do cp "$SHM/seed.img" "$SHM/$n.img"; cp "$SHM/seed.img" "$DISK/$n.img"; done
rm -f "$SHM/seed.img"
sync

# tgtd: LUN 1 on tmpfs, LUN 2 on disk (LUN 0 is its controller); its default backing store (rdwr: buffered I/O)
start_tgtd_lun "$TGT_IQN" "$SHM/tgtd.img"
tgtadm -C "$TGTD_PORT" --lld iscsi --mode logicalunit --op new --tid 1 --lun 2 --backing-store "$DISK/tgtd.img"
declare -A PORT PID LUN_OF
PORT[tgtd]=$TGTD_PORT PID[tgtd]=$TGTD_PID
LUN_OF[tgtd:tmpfs]=1 LUN_OF[tgtd:disk]=2
log "tgtd pid $TGTD_PID on 127.0.0.1:$TGTD_PORT"

# the daemon, once per variant: LUN 0 on tmpfs, LUN 1 on disk, its defaults otherwise (no cache, numa, daemon keys)
for v in "${VARIANTS[@]}"; do
  name=${v%%=*} opts=${v#*=}
  free_port port
  mkdir -m 0700 "$DISK/$name.data"
  cat > "$OUT/daemon-$name.yaml" <<YAML
daemon:
  data-dir: $DISK/$name.data
portals:
  - 127.0.0.1:$port
targets:
  - name: $OUR_IQN
    luns:
      - {id: 0, backing: file, path: $SHM/$name.img, size: $LUN_BYTES}
      - {id: 1, backing: file, path: $DISK/$name.img, size: $LUN_BYTES}
${EXTRA_YAML[$name]:-}
YAML
  # shellcheck disable=SC2086  # the variant's options are a list
  setsid "$JAVA" -Dchronicle.analytics.disable=true $opts \
    -Xlog:gc,safepoint:file="$OUT/gc-$name.log":time,level,tags \
    -cp "$DAEMON_JAR:$DAEMON_LIB/*" io.numaiscsi.daemon.Main --config "$OUT/daemon-$name.yaml" \
    > "$OUT/daemon-$name.log" 2>&1 < /dev/null &
  PID[$name]=$!
  DAEMON_PIDS+=("${PID[$name]}")
  wait_listen "$port" "${PID[$name]}" "daemon $name"
  PORT[$name]=$port
  LUN_OF[$name:tmpfs]=0 LUN_OF[$name:disk]=1
  log "daemon $name pid ${PID[$name]} on 127.0.0.1:$port, JVM options: ${opts:-(none)}${EXTRA_YAML[$name]:+, config: ${EXTRA_YAML[$name]}}"
done

iqn_of() { [[ $1 == tgtd ]] && echo "$TGT_IQN" || echo "$OUR_IQN"; }

job() { # TARGET PLACE DEPTH SECONDS: the fio job file
  local url="iscsi://127.0.0.1:${PORT[$1]}/$(iqn_of "$1")/${LUN_OF[$1:$2]}"
  printf '[global]\nioengine=libiscsi\nthread=1\nfilename=%s\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=%s\n' \
    "${url//:/\\:}" "$3"
  printf 'time_based=1\nruntime=%s\nrandrepeat=0\nnorandommap=1\npercentile_list=50:99:99.9\n[mixed]\n' "$4"
}

printf 'cell\ttarget\trepeat\tread_iops\twrite_iops\tread_p99_us\tread_p999_us\twrite_p99_us\twrite_p999_us\tcpu_us_per_io\tstart\tend\n' \
  > "$OUT/results.tsv"
run() { # TARGET PLACE DEPTH REPEAT SECONDS
  local t=$1 place=$2 depth=$3 rep=$4 secs=$5 name ticks0 ticks1 start end
  name=$place-qd$depth.$t.r$rep
  job "$t" "$place" "$depth" "$secs" > "$OUT/fio/$name.fio"
  ticks0=$(cpu_ticks "${PID[$t]}"); start=$(date +%s.%N)
  "$FIO" --output-format=json --output="$OUT/fio/$name.json" "$OUT/fio/$name.fio" > "$OUT/fio/$name.log" 2>&1 ||
    die "fio failed: $OUT/fio/$name.log"
  end=$(date +%s.%N); ticks1=$(cpu_ticks "${PID[$t]}")
  python3 - "$OUT/fio/$name.json" "$place-qd$depth" "$t" "$rep" "$((ticks1 - ticks0))" "$(getconf CLK_TCK)" \
    "$start" "$end" >> "$OUT/results.tsv" <<'PY'
import json, sys
f, cell, target, rep, ticks, hz, start, end = sys.argv[1:]
text = open(f).read()
j = json.loads(text[text.index("{"):])["jobs"][0]  # fio may print a note before its JSON
def pct(d, p):
    return d["clat_ns"].get("percentile", {}).get(p, 0) / 1000
ios = j["read"]["total_ios"] + j["write"]["total_ios"]
cpu_us = int(ticks) / int(hz) * 1e6 / max(ios, 1)
print("\t".join(str(x) for x in [cell, target, rep, round(j["read"]["iops"]), round(j["write"]["iops"]),
      round(pct(j["read"], "99.000000")), round(pct(j["read"], "99.900000")), round(pct(j["write"], "99.000000")),
      round(pct(j["write"], "99.900000")), round(cpu_us, 1), start, end]))
PY
  log "$(tail -1 "$OUT/results.tsv" | cut -f1-10)"
}

CELLS=("tmpfs 4" "tmpfs 32" "disk 4" "disk 32")
log "warm-up: 5 s per cell and target"
for c in "${CELLS[@]}"; do for t in "${NAMES[@]}"; do
  read -r place depth <<< "$c"; run "$t" "$place" "$depth" 0 5
done; done
log "${#CELLS[@]} cells x ${#NAMES[@]} targets x $REPEATS repeats x ${RUNTIME}s"
for c in "${CELLS[@]}"; do
  read -r place depth <<< "$c"
  for ((rep = 1; rep <= REPEATS; rep++)); do
    for ((k = 0; k < ${#NAMES[@]}; k++)); do
      run "${NAMES[$(((k + rep - 1) % ${#NAMES[@]}))]}" "$place" "$depth" "$rep" "$RUNTIME"
    done
  done
done

# bytes allocated per I/O: JFR's per-thread allocation counters around one more run per cell (not in the table's
# latency figures: recording costs a little)
for v in "${VARIANTS[@]}"; do
  name=${v%%=*}
  for c in "${CELLS[@]}"; do
    read -r place depth <<< "$c"
    "$JDK_BIN/jcmd" "${PID[$name]}" JFR.start name=alloc settings=default > /dev/null
    run "$name" "$place" "$depth" alloc "$RUNTIME"
    "$JDK_BIN/jcmd" "${PID[$name]}" JFR.stop name=alloc filename="$OUT/alloc-$name-$place-qd$depth.jfr" > /dev/null
    "$JDK_BIN/jfr" print --json --events jdk.ThreadAllocationStatistics "$OUT/alloc-$name-$place-qd$depth.jfr" \
      > "$OUT/alloc-$name-$place-qd$depth.json"
    rm -f "$OUT/alloc-$name-$place-qd$depth.jfr"
  done
done

python3 - "$OUT" "$RUNTIME" "$REPEATS" "$LUN_SIZE" "${NAMES[@]}" <<'PY' | tee "$OUT/table.md"
import csv, datetime, json, re, statistics, sys
out, runtime, repeats, lun_size, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
measured = [r for r in rows if r["repeat"] not in ("0", "alloc")]
cells = list(dict.fromkeys(r["cell"] for r in measured))
keys = ["read_iops", "write_iops", "read_p99_us", "read_p999_us", "write_p99_us", "write_p999_us", "cpu_us_per_io"]
def med(cell, target, key):
    return statistics.median(float(r[key]) for r in measured if r["cell"] == cell and r["target"] == target)
print(f"# 70/30 4K random read/write against tgtd ({datetime.date.today()})\n")
print(f"fio libiscsi `rw=randrw rwmixread=70 bs=4k`, {runtime} s per run, median of {repeats} runs per cell and "
      f"target (order rotating); LUN files of {lun_size} with random data. Latency is fio's completion latency "
      f"(us); x = ratio to tgtd (below 1 is better for latency, above 1 for IOPS).\n")
print("| cell | target | read IOPS | write IOPS | read p99 | read p99.9 | write p99 | write p99.9 | CPU us/IO |")
print("|---|---|--:|--:|--:|--:|--:|--:|--:|")
for c in cells:
    base = {k: med(c, "tgtd", k) for k in keys}
    for t in names:
        v = {k: med(c, t, k) for k in keys}
        def cellfmt(k):
            if t == "tgtd" or base[k] == 0:
                return f"{v[k]:.0f}"
            return f"{v[k]:.0f} ({v[k] / base[k]:.2f}x)"
        print(f"| {c} | {t} | " + " | ".join(cellfmt(k) for k in keys) + " |")
print("\n## The daemon's collector pauses during the measured runs (GC log: safepoints of the collector)\n")
print("| daemon | pauses | longest (ms) | all (ms) | longest other safepoint (ms) | allocation stalls |")
print("|---|--:|--:|--:|--:|--:|")
spans = [(float(r["start"]), float(r["end"])) for r in measured]
def when(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
for t in names[1:]:
    pauses, other, stalls = [], [], 0
    for line in open(f"{out}/gc-{t}.log"):
        m = re.match(r"\[([^]]+)\]\[\w+\s*\]\[([\w,+ ]+)\]\s?(.*)", line)
        if not m:
            continue
        at = when(m.group(1))
        if not any(a <= at <= b for a, b in spans):
            continue
        s = re.search(r'Safepoint "([^"]+)".*Total: (\d+) ns', m.group(3))
        if s:
            op = s.group(1)
            gc = op.startswith(("G1", "Z", "Shenandoah")) or "GC" in op or "Collect" in op
            (pauses if gc else other).append(int(s.group(2)) / 1e6)
        if "Allocation Stall" in m.group(3):
            stalls += 1
    print(f"| {t} | {len(pauses)} | {max(pauses, default=0):.2f} | {sum(pauses):.1f} | {max(other, default=0):.2f} | {stalls} |")
print("\n## Bytes the daemon allocated per I/O (JFR, one extra run per cell, all threads)\n")
print("| daemon | " + " | ".join(cells) + " |\n|---|" + "--:|" * len(cells))
for t in names[1:]:
    line = []
    for c in cells:
        text = open(f"{out}/fio/{c}.{t}.ralloc.json").read()
        j = json.loads(text[text.index("{"):])["jobs"][0]
        ios = j["read"]["total_ios"] + j["write"]["total_ios"]
        first, last = {}, {}
        for e in json.load(open(f"{out}/alloc-{t}-{c}.json"))["recording"]["events"]:
            v = e["values"]
            n = (v["thread"] or {}).get("javaName") or "?"
            first.setdefault(n, v["allocated"])
            last[n] = v["allocated"]
        total = sum(last[n] - first[n] for n in last if n != "Attach Listener")
        line.append(f"{total / ios:.1f}")
    print(f"| {t} | " + " | ".join(line) + " |")
print("\n(JFR's own Attach Listener thread left out; the session's login is in the count.)")
PY
log "done: $OUT/table.md"
