#!/usr/bin/env bash
# peer-tgtd.sh - tgtd (Debian's tgt, the incumbent user-space target) on a loopback port with one file LUN, for
# comparing by hand with this daemon (the benchmarks start their own through bench-lib.sh).
#
#   fio-tests/tools/peer-tgtd.sh start PORT SIZE FILE [BSTYPE]   e.g. start 13261 1G /tmp/tgt.img
#   fio-tests/tools/peer-tgtd.sh stop PORT
#
# start: creates FILE of SIZE when it does not exist, starts tgtd on 127.0.0.1:PORT (its PID in
# /tmp/peer-tgtd.PORT.pid, its log beside it) with target iqn.2026-11.io.numaiscsi:peer, LUN 1 on FILE (BSTYPE:
# tgtd's --bstype, e.g. null; default its rdwr), open to all initiators; then prints its iscsi:// URL.
# stop: stops that tgtd (tgtd ignores SIGTERM: offline, delete the target and the system, as tgt.service does).
# Installs tgt when it is missing. Root (tgtd's control socket is under /var/run/tgtd).
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
LOG_TAG=peer-tgtd
# shellcheck source=../../bin/lib/setup.sh
source "$ROOT/bin/lib/setup.sh"
IQN=iqn.2026-11.io.numaiscsi:peer

usage() { sed -n '2,11p' "$0"; exit 2; }
[[ $# -ge 2 ]] || usage
cmd=$1 port=$2
[[ $port =~ ^[0-9]+$ ]] || usage
pidfile=/tmp/peer-tgtd.$port.pid
tg=(tgtadm -C "$port")

case $cmd in
  start)
    [[ $# -ge 4 ]] || usage
    size=$3 file=$4 bstype=${5:-}
    command -v tgtd >/dev/null || apt_install tgt
    [[ -e $file ]] || truncate -s "$size" "$file"
    setsid tgtd -f -C "$port" --iscsi "portal=127.0.0.1:$port" > "/tmp/peer-tgtd.$port.log" 2>&1 < /dev/null &
    echo $! > "$pidfile"
    for _ in $(seq 50); do "${tg[@]}" --lld iscsi --mode target --op show >/dev/null 2>&1 && break; sleep 0.1; done
    "${tg[@]}" --lld iscsi --mode target --op new --tid 1 --targetname "$IQN"
    lu=(--lld iscsi --mode logicalunit --op new --tid 1 --lun 1 --backing-store "$file")
    [[ -n $bstype ]] && lu+=(--bstype "$bstype")
    "${tg[@]}" "${lu[@]}"
    "${tg[@]}" --lld iscsi --mode target --op bind --tid 1 --initiator-address ALL
    echo "iscsi://127.0.0.1:$port/$IQN/1"
    ;;
  stop)
    [[ -f $pidfile ]] || die "no tgtd started by this script on port $port ($pidfile missing)"
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      "${tg[@]}" --op update --mode sys --name State -v offline >/dev/null 2>&1 || true
      "${tg[@]}" --lld iscsi --op delete --mode target --tid 1 --force >/dev/null 2>&1 || true
      "${tg[@]}" --op delete --mode system >/dev/null 2>&1 || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile" "/var/run/tgtd/socket.$port" "/var/run/tgtd/socket.$port.lock"
    ;;
  *) usage ;;
esac
