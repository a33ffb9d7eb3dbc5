# bench-lib.sh - what the benchmark scripts share: stopping what they started by PID (tgtd through tgtadm), and
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
