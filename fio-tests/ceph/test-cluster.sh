#!/bin/bash
# A throw-away single-node Ceph cluster for tests: one ceph-mon and one ceph-osd on memstore, loopback only, cephx on,
# no systemd, no mgr; everything (config, keyrings, data, logs, sockets, PIDs) under DIR.
#
#   test-cluster.sh start DIR PORTBASE [POOL]   up in ~2 s; creates pool POOL (default rbd) and rbd-inits it
#   test-cluster.sh stop DIR                    stops the OSD, then the mon (by the PIDs kept in DIR)
#
# Ports: the mon listens on PORTBASE (v2) and PORTBASE+1 (v1); the OSD binds inside PORTBASE+10..PORTBASE+39.
# After start, DIR/ceph.conf and DIR/ceph.client.admin.keyring reach the cluster as client.admin
# (e.g. rbd -c DIR/ceph.conf create --size 64M rbd/img). memstore keeps nothing: a stopped cluster is gone.
# Why the settings (measured here): memstore with a page set keeps the OSD near 400 MB under random 4K writes (2 GB
# without); paxos propose interval 0.1 s brings start-up to ~2 s (8 s with the default 1 s); "mon data avail warn = 1"
# and a long "mon mgr mkfs grace" keep a disk 30% full and the missing mgr from turning the cluster HEALTH_WARN.
set -euo pipefail

usage() { echo "usage: $0 start DIR PORTBASE [POOL] | stop DIR" >&2; exit 2; }

wait_gone() { # pid seconds
  local pid=$1 n=$(( $2 * 10 ))
  while kill -0 "$pid" 2>/dev/null && (( n-- > 0 )); do sleep 0.1; done
  ! kill -0 "$pid" 2>/dev/null
}

stop() {
  local dir=$1
  for d in osd mon; do
    local f="$dir/$d.pid"
    [[ -f $f ]] || continue
    local pid; pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      wait_gone "$pid" 10 || { kill -9 "$pid" 2>/dev/null || true; wait_gone "$pid" 5 || true; }
    fi
    rm -f "$f"
  done
}

start() {
  local dir port pool
  dir=$(realpath -m "$1"); port=$2; pool=${3:-rbd}
  [[ $port =~ ^[0-9]+$ ]] || usage
  mkdir -p "$dir"
  if [[ -f $dir/mon.pid || -f $dir/osd.pid ]]; then
    # left by a run that was killed before it could stop it: the directory is the test's own, so is that cluster
    echo "$0: stopping the cluster a previous run left in $dir" >&2
    stop "$dir"
  fi
  rm -rf "$dir/mon" "$dir/osd" "$dir/run" "$dir/log" "$dir"/*.keyring "$dir/monmap"
  mkdir -p "$dir/mon" "$dir/osd" "$dir/run" "$dir/log" "$dir/crash"
  local fsid; fsid=$(cat /proc/sys/kernel/random/uuid)
  local conf=$dir/ceph.conf
  cat > "$conf" <<CONF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$port,v1:127.0.0.1:$((port + 1))]
public network = 127.0.0.0/8
ms bind ipv4 = true
ms bind ipv6 = false
ms bind port min = $((port + 10))
ms bind port max = $((port + 39))
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $dir/ceph.client.admin.keyring
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
pid file = $dir/run/\$name.pid
crash dir = $dir/crash
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd pool default pg autoscale mode = off
mon data avail warn = 1
mon data avail crit = 0
mon mgr mkfs grace = 100000000
[mon]
mon data = $dir/mon/\$name
paxos propose interval = 0.1
keyring = $dir/mon/\$name/keyring
[osd]
osd data = $dir/osd/\$name
osd objectstore = memstore
memstore device bytes = 4294967296
memstore page set = true
memstore page size = 4096
keyring = $dir/osd/\$name/keyring
CONF
  ceph-authtool --create-keyring "$dir/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$dir/ceph.client.admin.keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool "$dir/mon.keyring" --import-keyring "$dir/ceph.client.admin.keyring" >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$port,v1:127.0.0.1:$((port + 1))]" "$dir/monmap" >/dev/null
  ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/mon.keyring"
  ceph-mon -c "$conf" -i a -f >"$dir/log/mon.out" 2>&1 &
  echo $! > "$dir/mon.pid"

  local osd_key uuid
  osd_key=$(ceph-authtool --gen-print-key)
  uuid=$(cat /proc/sys/kernel/random/uuid)
  mkdir -p "$dir/osd/osd.0"
  local id
  id=$(echo "{\"cephx_secret\": \"$osd_key\"}" | timeout 30 ceph -c "$conf" osd new "$uuid" -i -)
  [[ $id == 0 ]] || { echo "$0: expected osd id 0, got '$id'" >&2; stop "$dir"; exit 1; }
  ceph-authtool --create-keyring "$dir/osd/osd.0/keyring" --name osd.0 --add-key "$osd_key" >/dev/null
  ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$uuid" >"$dir/log/osd-mkfs.out" 2>&1
  ceph-osd -c "$conf" -i 0 -f >"$dir/log/osd.out" 2>&1 &
  echo $! > "$dir/osd.pid"

  local n=300
  until ceph -c "$conf" osd dump 2>/dev/null | grep -q '^osd.0 up *in'; do
    (( n-- > 0 )) || { echo "$0: osd.0 not up after 30 s (see $dir/log)" >&2; stop "$dir"; exit 1; }
    kill -0 "$(cat "$dir/osd.pid")" 2>/dev/null || { echo "$0: ceph-osd exited (see $dir/log)" >&2; stop "$dir"; exit 1; }
    sleep 0.1
  done
  ceph -c "$conf" osd pool create "$pool" 8 8 >/dev/null 2>&1
  timeout 60 rbd -c "$conf" pool init "$pool"   # returns once the PGs are active: the readiness signal
}

case ${1:-} in
  start) [[ $# -ge 3 ]] || usage; start "$2" "$3" "${4:-}" ;;
  stop) [[ $# -eq 2 ]] || usage; stop "$(realpath -m "$2")" ;;
  *) usage ;;
esac
