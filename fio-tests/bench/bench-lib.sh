# bench-lib.sh - what the benchmark scripts share: exit traps (and the database benchmarks' cleanup), starting tgtd (and this
# daemon on a file LUN, its NUMA cache off, write-through or write-back), the database benchmarks' variants and their
# prebuilt XFS images, their ratio chart (DbRatioChart), the rotating matrix of runs, CPU ticks of a
# process, stopping what they started by PID (tgtd through tgtadm), and
# free loopback ports. Sourced after bin/lib/setup.sh (log, die). Uses TGTD_PID and TGTD_PORT of the caller, and
# BENCH_DEFAULT_BASE_PORT as the first port tried unless BENCH_BASE_PORT is set.

stop_pid() { # PID SECONDS: SIGTERM, wait, SIGKILL
  local pid=$1 secs=$2
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq $((secs * 10))); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  log "pid $pid ignored SIGTERM for ${secs}s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

stop_tgtd() {
  [[ -n $TGTD_PID ]] || return 0
  if kill -0 "$TGTD_PID" 2>/dev/null; then
    # tgtd ignores SIGTERM: offline, delete the target, delete the system (as tgt.service does)
    local tg=(tgtadm -C "$TGTD_PORT")
    "${tg[@]}" --op update --mode sys --name State -v offline >/dev/null 2>&1 || true
    "${tg[@]}" --lld iscsi --op delete --mode target --tid 1 --force >/dev/null 2>&1 || true
    "${tg[@]}" --op delete --mode system >/dev/null 2>&1 || true
    for _ in $(seq 50); do kill -0 "$TGTD_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$TGTD_PID" 2>/dev/null && { log "tgtd $TGTD_PID still running: SIGKILL"; kill -KILL "$TGTD_PID" 2>/dev/null || true; }
  fi
  rm -f "/var/run/tgtd/socket.$TGTD_PORT" "/var/run/tgtd/socket.$TGTD_PORT.lock"
  TGTD_PID=
}

USED_PORTS=" "
free_port() { # VAR: sets VAR to a free port (not in a $(...) subshell: USED_PORTS must stick)
  local p base=${BENCH_BASE_PORT:-$BENCH_DEFAULT_BASE_PORT}
  for ((p = base; p < base + 500; p++)); do
    [[ $USED_PORTS == *" $p "* ]] && continue
    ss -Hltn "sport = :$p" | grep -q . && continue
    USED_PORTS+="$p "; printf -v "$1" %s "$p"; return 0
  done
  die "no free port from $base"
}

wait_listen() { # PORT PID NAME: up to 90 s
  for _ in $(seq 900); do
    ss -Hltn "sport = :$1" | grep -q . && return 0
    kill -0 "$2" 2>/dev/null || die "$3 (pid $2) died during start; see its log in $OUT"
    sleep 0.1
  done
  die "$3 does not listen on 127.0.0.1:$1 after 90 s"
}

cpu_ticks() { # PID: utime+stime of every thread of the process (kernel workers it owns included)
  sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'
}

start_tgtd_lun() { # IQN BACKING_STORE [BSTYPE [BSOPTS]]: tgtd on a free loopback port, target tid 1 with LUN 1, open
  # to all; sets TGTD_PID and TGTD_PORT, logs to ${TGTD_LOG_DIR:-$OUT}/tgtd.log
  local iqn=$1 store=$2 bstype=${3:-} bsopts=${4:-} tg lu
  free_port TGTD_PORT
  setsid tgtd -f -C "$TGTD_PORT" --iscsi "portal=127.0.0.1:$TGTD_PORT" > "${TGTD_LOG_DIR:-$OUT}/tgtd.log" 2>&1 < /dev/null &
  TGTD_PID=$!
  tg=(tgtadm -C "$TGTD_PORT" --lld iscsi)
  for _ in $(seq 50); do "${tg[@]}" --mode target --op show >/dev/null 2>&1 && break; sleep 0.1; done
  "${tg[@]}" --mode target --op new --tid 1 --targetname "$iqn"
  lu=(--mode logicalunit --op new --tid 1 --lun 1 --backing-store "$store")
  [[ -n $bstype ]] && lu+=(--bstype "$bstype")
  [[ -n $bsopts ]] && lu+=(--bsopts "$bsopts")
  "${tg[@]}" "${lu[@]}"
  "${tg[@]}" --mode target --op bind --tid 1 --initiator-address ALL
  wait_listen "$TGTD_PORT" "$TGTD_PID" tgtd
}

run_matrix() { # every cell of CELLS on every target of NAMES: once for WARMUP s into $OUT/warmup.tsv (discarded),
  # then REPEATS times for RUNTIME s into $OUT/results.tsv, the targets' order rotating each repeat; calls the
  # caller's run_cell CELL TARGET REPEAT SECONDS, which appends to $RESULTS
  local cell rep k t
  printf 'cell\ttarget\trepeat\tiops\tios\tcpu_ticks\tcpu_us_per_io\n' | tee "$OUT/warmup.tsv" > "$OUT/results.tsv"
  if [[ $WARMUP -gt 0 ]]; then
    RESULTS=$OUT/warmup.tsv
    for cell in "${CELLS[@]}"; do for t in "${NAMES[@]}"; do run_cell "$cell" "$t" 0 "$WARMUP"; done; done
  fi
  RESULTS=$OUT/results.tsv
  log "${#CELLS[@]} cells x ${#NAMES[@]} targets x $REPEATS repeats x ${RUNTIME}s"
  for cell in "${CELLS[@]}"; do
    for ((rep = 1; rep <= REPEATS; rep++)); do
      for ((k = 0; k < ${#NAMES[@]}; k++)); do
        run_cell "$cell" "${NAMES[$(((k + rep - 1) % ${#NAMES[@]}))]}" "$rep" "$RUNTIME"
      done
    done
  done
}

trap_exits() { # the caller's cleanup runs on every exit; INT, TERM and HUP exit with 128 + the signal number
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
}

require_tgtd_and_libiscsi_tools() { # tgtd, iscsi-perf, ss and jq (installed when missing), and $FIO's libiscsi engine
  local missing=()
  command -v tgtd >/dev/null && command -v tgtadm >/dev/null || missing+=(tgt)
  command -v iscsi-perf >/dev/null || missing+=(libiscsi-bin)
  command -v ss >/dev/null || missing+=(iproute2)
  command -v jq >/dev/null || missing+=(jq)
  apt_install "${missing[@]}"
  "$FIO" --enghelp 2>/dev/null | grep -qw libiscsi ||
    die "$FIO has no libiscsi engine: fio-tests/tools/build-fio-libiscsi.sh (or run-bench.sh once) builds it"
}

require_daemon_build() { # the daemon's jar and lib dir (sets DAEMON_JAR, DAEMON_LIB) and a java (JAVA, from setup.sh's find_java)
  DAEMON_JAR=$ROOT/target-daemon/target/target-daemon-0.1.0-SNAPSHOT.jar
  DAEMON_LIB=$ROOT/target-daemon/target/lib
  [[ -f $DAEMON_JAR && -d $DAEMON_LIB ]] || die "no daemon build: mvn -o -q -pl target-daemon -am package -DskipTests"
  find_java jdk || find_java || die "no java"
}

start_daemon_file_lun() { # IQN FILE BYTES WRITE_POLICY DATA_DIR [LOG_DIR]: this daemon (after require_daemon_build) on a
  # free loopback port, target IQN with LUN 0 on FILE (BYTES), the NUMA cache with WRITE_POLICY (256M per node, 64K blocks,
  # 2 pretend nodes, as CacheModesTest), or no cache when WRITE_POLICY is "off" (cache.mode off: the file with O_DIRECT);
  # config LOG_DIR/daemon.yaml, log LOG_DIR/daemon.log (LOG_DIR default $OUT); sets DAEMON_PID and DAEMON_PORT
  local iqn=$1 file=$2 bytes=$3 policy=$4 data=$5 dir=${6:-$OUT} cache
  free_port DAEMON_PORT
  mkdir -m 0700 "$data"
  if [[ $policy == off ]]; then
    cache="{mode: off}"
  else
    cache="{mode: numa, size-per-node: 256M, block-size: 64K, write-policy: $policy}"
  fi
  cat >"$dir/daemon.yaml" <<YAML
daemon:
  data-dir: $data
portals:
  - 127.0.0.1:$DAEMON_PORT
cache: $cache
numa: {pretend-nodes: 2}
targets:
  - name: $iqn
    luns:
      - id: 0
        backing: file
        path: $file
        size: $bytes
YAML
  setsid "$JAVA" -Dchronicle.analytics.disable=true -cp "$DAEMON_JAR:$DAEMON_LIB/*" io.numaiscsi.daemon.Main \
    --config "$dir/daemon.yaml" >"$dir/daemon.log" 2>&1 </dev/null &
  DAEMON_PID=$!
  wait_listen "$DAEMON_PORT" "$DAEMON_PID" daemon
}


# ---- the database benchmarks (run-wiredtiger-bench.sh, run-pgbench-bench.sh): targets per variant, a prebuilt XFS image ----

cleanup() { # the exit trap of the scripts that set SHM, DAEMON_PID and TGTD_PID (trap_exits; scripts with more to stop
  # define their own cleanup after sourcing this file): the caller's cleanup_extra if defined, the daemon, tgtd, $SHM
  local rc=$?
  set +e
  trap - EXIT INT TERM HUP ERR
  declare -F cleanup_extra >/dev/null && cleanup_extra
  [[ -n ${SHM:-} ]] && mountpoint -q "$SHM/mnt" 2>/dev/null && umount "$SHM/mnt"
  stop_pid "${DAEMON_PID:-}" 20
  stop_tgtd
  [[ -n ${SHM:-} && -d $SHM ]] && rm -rf "$SHM"
  exit "$rc"
}

DB_VARIANTS_DEFAULT="tgtd cache-off write-through write-back"
check_variants() { # LIST: every word one of tgtd, cache-off, write-through, write-back
  local v
  [[ -n ${1// /} ]] || die "--variants is empty"
  for v in $1; do
    case $v in tgtd|cache-off|write-through|write-back) ;; *) die "unknown variant $v (tgtd, cache-off, write-through, write-back)" ;; esac
  done
}

variant_order() { # LIST REPEAT: LIST rotated by REPEAT-1, so that no variant always boots first
  local -a v=($1)
  local k n=${#v[@]}
  for ((k = 0; k < n; k++)); do printf '%s ' "${v[$(((k + $2 - 1) % n))]}"; done
}

start_variant() { # VARIANT FILE BYTES DIR NAME: a target serving FILE (BYTES): tgtd (LUN 1) or this daemon (LUN 0) with
  # the NUMA cache off, write-through or write-back; logs and config in DIR; sets VARIANT_PORT, VARIANT_IQN, VARIANT_LUN
  local variant=$1 file=$2 bytes=$3 dir=$4 name=$5
  if [[ $variant == tgtd ]]; then
    VARIANT_IQN=iqn.2026-11.io.numaiscsi:$name-tgtd VARIANT_LUN=1
    TGTD_LOG_DIR=$dir start_tgtd_lun "$VARIANT_IQN" "$file"
    VARIANT_PORT=$TGTD_PORT
  else
    VARIANT_IQN=iqn.2026-11.io.numaiscsi:$name VARIANT_LUN=0
    local policy=${variant#cache-}
    start_daemon_file_lun "$VARIANT_IQN" "$file" "$bytes" "$policy" "$SHM/daemon-data" "$dir"
    VARIANT_PORT=$DAEMON_PORT
  fi
}

stop_variant() { # the target start_variant started
  stop_pid "$DAEMON_PID" 20
  DAEMON_PID=
  stop_tgtd
  rm -rf "$SHM/daemon-data"
}

xfs_image_from_dir() { # SRC IMAGE BYTES: a new XFS file system of BYTES in IMAGE (sparse) holding a copy of the tree
  # under SRC (cp -a through a loop mount on $SHM/mnt; the guest chowns what it needs): the database is built on the
  # host, which is much faster than in the emulated guest. (mkfs.xfs -p, a prototype file, was tried first: xfsprogs
  # 6.1 wrote the small files' blocks wrong once a 1 GiB file was in the tree.)
  local src=$1 image=$2 bytes=$3
  rm -f "$image"
  truncate -s "$bytes" "$image"
  mkfs.xfs -q -f "$image" || die "mkfs.xfs failed for $image"
  mkdir -p "$SHM/mnt"
  mount -o loop "$image" "$SHM/mnt" || die "cannot loop-mount $image"
  cp -a --sparse=always "$src"/. "$SHM/mnt"/ || { umount "$SHM/mnt"; die "cannot copy $src into $image"; }
  umount "$SHM/mnt" || die "cannot unmount $SHM/mnt"
}

require_chart_driver() { # fio-tests' classes (compiled when older than their sources) and their runtime class path:
  # sets CHART_CP (needs JAVA: require_daemon_build)
  local classes=$ROOT/fio-tests/target/classes cp_file=$ROOT/fio-tests/target/bench-classpath.txt
  local main=$classes/io/numaiscsi/fiotests/bench/DbRatioChart.class
  if [[ ! -f $main || -n $(find "$ROOT/fio-tests/src/main" "$ROOT/fio-tests/pom.xml" -newer "$main" -type f -print -quit) ]]; then
    log "compiling the chart driver (fio-tests)"
    (cd "$ROOT" && mvn -B -q -o -pl fio-tests compile) >&2 || die "fio-tests does not compile"
    rm -f "$cp_file"
  fi
  if [[ ! -s $cp_file ]]; then
    (cd "$ROOT" && mvn -B -q -o -pl fio-tests dependency:build-classpath -Dmdep.outputFile="$cp_file" \
      -Dmdep.includeScope=runtime) >&2 || die "no class path for fio-tests"
  fi
  CHART_CP=$classes:$(cat "$cp_file")
}

db_ratio_chart() { # RESULTS_TSV PNG TITLE ARGS...: DbRatioChart's bar chart of the ratios to tgtd (after require_chart_driver)
  "$JAVA" -Djava.awt.headless=true -cp "$CHART_CP" io.numaiscsi.fiotests.bench.DbRatioChart \
    --results "$1" --out "$2" --title "$3" --baseline tgtd "${@:4}" || die "no chart $2"
  log "chart: $2"
}
