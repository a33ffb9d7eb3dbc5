# lib.sh - helpers for the guest test scripts (run-vm.sh copies this to /vmrun/lib.sh on every
# run, so editing it needs no image rebuild). Usage in a guest script: . /vmrun/lib.sh
# Env: PORTAL (10.0.2.100:3260, the guestfwd to the target), VM_* from the host's GUEST_*.

OUT=/vmrun/out
_passed=0
_failed=0

uptime_s() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[guest $(uptime_s)] $*"; }

# check NAME CMD...: run CMD, count and print PASS/FAIL; returns CMD's status, never exits
check() {
  local name=$1 rc
  shift
  "$@"
  rc=$?
  if [ "$rc" = 0 ]; then
    _passed=$((_passed + 1))
    log "PASS $name"
    return 0
  fi
  _failed=$((_failed + 1))
  log "FAIL $name (status $rc)"
  return "$rc"
}

# summary: the line the host parses; non-zero status if any check failed
summary() {
  echo "vmtest: $_passed passed, $_failed failed"
  [ "$_failed" = 0 ]
}

# abort: a step later steps depend on failed: summary, and the script ends with status 1
abort() {
  log "ABORT: $*"
  summary
  exit 1
}

# The DefaultTime2Wait the guest offers (the session gets the larger of the two sides' values): how
# long iscsid waits before it reconnects a failed connection. With open-iscsi 2.1.8's default of 2 s,
# a reconnect that reaches the forward while the target is down (socat accepts, then closes at once)
# could leave iscsid looping on "can't bind conn ... retcode -107" for good; with 10 s, 15 of 15
# kill-and-restart cycles recovered at the first try (issue 20). VM_TIME2WAIT overrides it.
TIME2WAIT=${VM_TIME2WAIT:-10}

# iscsi_time2wait: DefaultTime2Wait=$TIME2WAIT in iscsid.conf, for a script that starts iscsid itself
iscsi_time2wait() {
  sed -i '/^node\.session\.iscsi\.DefaultTime2Wait/d' /etc/iscsi/iscsid.conf
  echo "node.session.iscsi.DefaultTime2Wait = $TIME2WAIT" >>/etc/iscsi/iscsid.conf
}

# iscsi_start: iscsi_tcp + iscsid, with DefaultTime2Wait=$TIME2WAIT in iscsid.conf (so every node
# record created from now on has it; the rootfs is a snapshot, the edit dies with the guest). There
# is no udev: sd_mod and sg must be loaded by hand, or the LUN shows in dmesg but never gets a /dev/sdX
iscsi_start() {
  iscsi_time2wait
  modprobe -a iscsi_tcp sd_mod sg || return 1
  pgrep -x iscsid >/dev/null || iscsid || return 1
  for _ in $(seq 50); do [ -f /run/iscsid.pid ] && return 0; sleep 0.1; done
  return 1
}

# iscsi_discover: SendTargets discovery at PORTAL; prints "portal,tpgt iqn" lines
iscsi_discover() { iscsiadm -m discovery -t sendtargets -p "$PORTAL"; }

# iscsi_node IQN: the node record of IQN at PORTAL. SendTargets reports the target's own address
# (127.0.0.1:PORT on the host), which the guest cannot reach: records of IQN at any other portal
# are deleted, and the one at PORTAL is created. (Plain `iscsiadm -m node` prints "portal,tpgt
# iqn" lines; with -T it prints whole records.)
iscsi_node() {
  local iqn=$1 p
  for p in $(iscsiadm -m node 2>/dev/null | awk -v q="$iqn" '$2 == q { sub(/,[0-9]+$/, "", $1); print $1 }' | sort -u); do
    [ "$p" = "$PORTAL" ] || iscsiadm -m node -T "$iqn" -p "$p" -o delete >/dev/null
  done
  iscsiadm -m node -T "$iqn" -p "$PORTAL" >/dev/null 2>&1 \
    || iscsiadm -m node -T "$iqn" -p "$PORTAL" -o new >/dev/null
}

iscsi_login() { iscsi_node "$1" && iscsiadm -m node -T "$1" -p "$PORTAL" --login; }
iscsi_logout() { iscsiadm -m node -T "$1" -p "$PORTAL" --logout; }

# iscsi_disk IQN [TIMEOUT] [LUN]: wait for the block device of IQN's logged-in session (of LUN, or the
# first one found); prints /dev/sdX
iscsi_disk() {
  local end=$((SECONDS + ${2:-30})) lun=${3:-*} s d
  while [ "$SECONDS" -lt "$end" ]; do
    for s in /sys/class/iscsi_session/session*; do
      [ "$(cat "$s/targetname" 2>/dev/null)" = "$1" ] || continue
      for d in "$s"/device/target*/*:$lun/block/*; do  # $lun unquoted: its default is a glob
        [ -e "$d" ] || continue
        d=/dev/${d##*/}
        [ -b "$d" ] && { echo "$d"; return 0; }
      done
    done
    sleep 0.2
  done
  return 1
}

# iscsi_session_state IQN: the kernel's state of IQN's session (LOGGED_IN, FAILED, FREE), empty if none
iscsi_session_state() {
  local s
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$1" ] && { cat "$s/state"; return 0; }
  done
  return 1
}

# iscsi_wait_logged_in IQN SECONDS: until IQN's session is LOGGED_IN (e.g. recovered after the target
# came back); prints the seconds it took
iscsi_wait_logged_in() {
  local t0=$SECONDS end=$((SECONDS + $2))
  while [ "$SECONDS" -lt "$end" ]; do
    [ "$(iscsi_session_state "$1")" = LOGGED_IN ] && { echo $((SECONDS - t0)); return 0; }
    sleep 0.5
  done
  return 1
}

# forward_probe: opens a connection to PORTAL and prints how many bytes arrive in 3 s without
# sending any. The target never speaks first, so anything but 0 is not the target's (run-vm.sh's
# forward once passed socat's error messages on to the guest).
forward_probe() {
  timeout 3 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1#*:}" && cat <&3' _ "$PORTAL" 2>/dev/null | wc -c
}

# ask_host WHAT [TIMEOUT]: ask the host (the JUnit test) to do WHAT, e.g. restart-daemon; waits for
# its answer. Request and answer are files in the 9p dir, each written under a temporary name and
# renamed, so neither side reads half a file. The answer starts with "ok" or "error: ...".
_asked=0
ask_host() {
  local what=$1 end=$((SECONDS + ${2:-180})) n answer
  _asked=$((_asked + 1))
  n=$_asked
  echo "$what" >"$OUT/.host-request-$n"
  mv "$OUT/.host-request-$n" "$OUT/host-request-$n"
  log "asked the host: $what (request $n)"
  while [ "$SECONDS" -lt "$end" ]; do
    if [ -f "$OUT/host-answer-$n" ]; then
      answer=$(cat "$OUT/host-answer-$n")
      log "host answered: $answer"
      case $answer in ok*) return 0 ;; *) return 1 ;; esac
    fi
    sleep 0.5
  done
  log "no answer from the host within ${2:-180} s"
  return 1
}

# For guest tests that run the daemon in the guest; DPID is its process id.
# wait_port HOST PORT SECONDS: until something accepts there (fails at once if the daemon died)
wait_port() {
  local end=$((SECONDS + $3))
  while [ "$SECONDS" -lt "$end" ]; do
    kill -0 "$DPID" 2>/dev/null || return 2
    (echo >"/dev/tcp/$1/$2") 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}

# stop_daemon: SIGTERM, SIGKILL after 60 s; returns the daemon's exit status
stop_daemon() {
  kill -TERM "$DPID" 2>/dev/null
  for _ in $(seq 120); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$DPID" 2>/dev/null && { log "daemon still running 60 s after SIGTERM: SIGKILL"; kill -KILL "$DPID"; }
  wait "$DPID"
}

# metrics FILE FAMILY: GET /metrics from the daemon at $METRICS into FILE (busybox wget; bash /dev/tcp with
# HTTP/1.0 if that fails); true when FAMILY is in it
metrics() {
  rm -f "$1"
  if ! busybox wget -q -T 30 -O "$1" "http://$METRICS/metrics" 2>/dev/null; then
    timeout 30 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1#*:}" && printf "GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n" "$1" >&3 && cat <&3' \
      _ "$METRICS" | sed '1,/^\r\{0,1\}$/d' >"$1"
  fi
  grep -q "^$2" "$1"
}

# ---- several gateways under one target name, through dm-multipath (ha-multipath.sh, group-multipath.sh) ----

# mp_sg_of /dev/sdX: its sg device
mp_sg_of() { local s; for s in /sys/block/"${1#/dev/}"/device/scsi_generic/*; do echo "/dev/${s##*/}"; return 0; done; return 1; }

# mp_login IQN PORTAL: a node record of IQN at PORTAL (no discovery: SendTargets would name the host's loopback
# addresses), a short replacement timeout so a dead gateway's path fails over in seconds, then login
mp_login() {
  iscsiadm -m node -T "$1" -p "$2" -o new >/dev/null || return 1
  iscsiadm -m node -T "$1" -p "$2" -o update -n node.session.timeo.replacement_timeout -v 5 || return 1
  iscsiadm -m node -T "$1" -p "$2" -o update -n node.conn[0].timeo.noop_out_interval -v 2 || return 1
  iscsiadm -m node -T "$1" -p "$2" -o update -n node.conn[0].timeo.noop_out_timeout -v 2 || return 1
  iscsiadm -m node -T "$1" -p "$2" --login
}

# mp_disk PORTAL [LUN]: the sd device of LUN (default 0) of the session at PORTAL (persistent_address is
# "10.0.2.100" for every forward: the port tells them apart)
mp_disk() {
  local port=${1#*:} lun=${2:-0} end=$((SECONDS + 30)) s c d
  while [ "$SECONDS" -lt "$end" ]; do
    for s in /sys/class/iscsi_session/session*; do
      c=$(ls -d "$s"/device/connection*/iscsi_connection/connection* 2>/dev/null | head -n 1)
      [ -n "$c" ] && [ "$(cat "$c/persistent_port" 2>/dev/null)" = "$port" ] || continue
      for d in "$s"/device/target*/*:"$lun"/block/*; do
        [ -e "$d" ] && { echo "/dev/${d##*/}"; return 0; }
      done
    done
    sleep 0.2
  done
  return 1
}

# mp_start: iscsid in the foreground with its log in out/iscsid.log (it would log to a syslog the guest does not
# run), udevd (multipath finds paths through udev and takes the WWID from its ID_SERIAL; the guest boots without
# it) and the ALUA and multipath modules
mp_start() {
  iscsi_time2wait
  modprobe -a iscsi_tcp sd_mod sg
  iscsid -f -d 2 >"$OUT/iscsid.log" 2>&1 &
  local rc up=1 udevd
  for _ in $(seq 50); do
    iscsiadm -m session >/dev/null 2>&1
    rc=$?
    [ "$rc" = 20 ] || { up=0; break; }  # 20: cannot connect to iscsid; 21: no sessions yet
    sleep 0.2
  done
  check iscsid test "$up" = 0 || { cat "$OUT/iscsid.log"; abort "iscsid does not start"; }
  udevd=$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)
  check udevd "$udevd" --daemon || abort "no udevd"
  udevadm trigger --action=add >/dev/null 2>&1
  udevadm settle --timeout=30
  modprobe -a scsi_dh_alua dm_multipath dm_service_time dm_round_robin
}

# mp_multipathd [POLICY]: multipath.conf for this target (ALUA priorities, failback to the optimized path), then
# multipathd and the maps. POLICY: group_by_prio (default: a pair, one standby path) or failover (a group of three or
# more: one path per path group, so when the optimized path fails multipath activates one other path and exactly
# one gateway gets SET TARGET PORT GROUPS; with several standby paths in one group each would send one, and the
# gateways would take the image from each other in turn)
mp_multipathd() {
  local policy=${1:-group_by_prio}
  cat >/etc/multipath.conf <<'CONF'
defaults {
    user_friendly_names no
    find_multipaths     no
}
devices {
    device {
        vendor                "NUMAISCS"
        product               "NUMA-iSCSI Disk"
        hardware_handler      "1 alua"
        prio                  "alua"
        path_grouping_policy  "POLICY"
        path_selector         "service-time 0"
        path_checker          "tur"
        failback              "immediate"
        no_path_retry         12
        detect_prio           "yes"
    }
}
CONF
  sed -i "s/\"POLICY\"/\"$policy\"/" /etc/multipath.conf
  multipathd >"$OUT/multipathd.txt" 2>&1
  sleep 2
  multipath -v2 >>"$OUT/multipathd.txt" 2>&1
  sleep 2
}

# mp_active_has WWID /dev/sdX: the map's active path group (status=active: the highest priority) holds the disk
mp_active_has() { multipath -ll "$1" | awk '/status=active/ { a = 1; next } /policy=/ { a = 0 } a' | grep -q " ${2#/dev/} "; }
# mp_path WWID /dev/sdX: the line multipath shows for the disk
mp_path() { multipath -ll "$1" | grep " ${2#/dev/} "; }
# mp_wait SECONDS CMD...: true once CMD succeeds
mp_wait() { local n=$1; shift; for _ in $(seq "$n"); do "$@" && return 0; sleep 1; done; return 1; }
