#!/bin/bash
# Guest test (IserGuestTest): the daemon runs IN the guest with an iSER portal on the guest's address over
# Soft-RoCE (rdma_rxe on eth0) beside a TCP portal on the same address; the guest's kernel initiator runs
# SendTargets discovery over iSER more times in a row than the portal has connection slots (each discovery
# connection must give its slot back as soon as it ends), then logs in over iSER (iscsiadm -I iser, ib_iser),
# mkfs, mount, writes files and checks their checksums after a remount, runs fio with crc32c verify on a file
# in the filesystem, logs out; then the same fio run over TCP for a functional comparison (emulated RDMA is not
# a speed measure).
# After the iSER run, the daemon's /metrics go to metrics-iser.prom: iser_touched_bytes_total says which node's memory
# the RDMA device read and wrote (and from which node, when the system names the device's node).
# Files in /vmrun/out: daemon.log, fio-iser.txt, fio-tcp.txt, sums-*.txt, dmesg-iser.txt, metrics-iser.prom.
# Env from the host: VM_IQN.
. /vmrun/lib.sh
IQN=$VM_IQN
IP=10.0.2.15
PORTAL=$IP:3260
METRICS=127.0.0.1:9100
JAVA_FLAGS=(-XX:TieredStopAtLevel=1 "-XX:ErrorFile=$OUT/hs_err_%p.log" -Dchronicle.analytics.disable=true)
# iSER discoveries in a row: more than the portal's connections (4 in IserGuestTest's config)
ISER_DISCOVERIES=20
FIO_ARGS=(--size=24m --bs=64k --rw=randrw --direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c
  --verify_fatal=1 --do_verify=1 --runtime=20 --time_based=0 --eta=never)

# files_and_sums MOUNTPOINT NAME: a small tree of random files and its sha256 list in $OUT/sums-NAME.txt
files_and_sums() {
  mkdir -p "$1/tree" && for i in $(seq 8); do head -c $((i * 300 * 1024 + 4097)) /dev/urandom >"$1/tree/f$i"; done \
    && (cd "$1/tree" && sha256sum f*) >"$OUT/sums-$2.txt"
}
verify_sums() { (cd "$1/tree" && sha256sum -c --quiet "$OUT/sums-$2.txt"); }

# fs_run IFACE TRANSPORT: login through iscsiadm iface IFACE, mkfs, files, remount, checksums, fio verify,
# logout; checks are named after TRANSPORT
fs_run() {
  local iface=$1 name=$2 disk
  iscsiadm -m node -T "$IQN" -p "$PORTAL" -I "$iface" >/dev/null 2>&1 \
    || iscsiadm -m node -o new -T "$IQN" -p "$PORTAL" -I "$iface" >/dev/null
  local t0=$SECONDS
  check "$name-login" iscsiadm -m node -T "$IQN" -p "$PORTAL" -I "$iface" --login || return 1
  log "$name login took $((SECONDS - t0)) s"
  disk=$(iscsi_disk "$IQN" 60) || { check "$name-disk" false; return 1; }
  check "$name-session-transport" sh -c "iscsiadm -m session -P 1 | grep -q 'Iface Transport: $name'"
  check "$name-mkfs" mkfs.ext4 -q -F "$disk"
  mkdir -p /mnt/nit
  check "$name-mount" mount "$disk" /mnt/nit
  check "$name-files" files_and_sums /mnt/nit "$name"
  check "$name-umount" umount /mnt/nit
  echo 3 >/proc/sys/vm/drop_caches
  check "$name-remount" mount "$disk" /mnt/nit
  check "$name-checksums" verify_sums /mnt/nit "$name"
  check "$name-fio-verify" fio --name="$name" --filename=/mnt/nit/fio.dat "${FIO_ARGS[@]}" --output="$OUT/fio-$name.txt"
  grep -E '^\s+(read|write):' "$OUT/fio-$name.txt"
  check "$name-umount-2" umount /mnt/nit
  check "$name-logout" iscsiadm -m node -T "$IQN" -p "$PORTAL" -I "$iface" --logout
}

modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0
modprobe -a rdma_ucm ib_iser sd_mod sg
check rxe-device sh -c "ibv_devices | grep -q rxe0" || abort "no rxe0 RDMA device"
check rdma-cm-device test -e /dev/infiniband/rdma_cm || abort "no /dev/infiniband/rdma_cm (rdma_ucm)"

mkdir -p /tmp/nit-data
log "starting the daemon: java ${JAVA_FLAGS[*]} @/vmrun/java/args"
java "${JAVA_FLAGS[@]}" @/vmrun/java/args io.numaiscsi.daemon.Main --config /vmrun/target.yaml \
  --metrics "$METRICS" >"$OUT/daemon.log" 2>&1 &
DPID=$!
if ! check daemon-tcp-portal wait_port "$IP" 3260 240; then
  tail -n 40 "$OUT/daemon.log"
  abort "the daemon's TCP portal is not up"
fi
# wait_log PATTERN SECONDS: until the daemon log has PATTERN (jnr-ffi needs 5-10 s to bind the shim under TCG)
wait_log() {
  local end=$((SECONDS + $2))
  while [ "$SECONDS" -lt "$end" ]; do
    grep -q "$1" "$OUT/daemon.log" && return 0
    kill -0 "$DPID" 2>/dev/null || return 2
    sleep 0.5
  done
  return 1
}
check daemon-iser-portal wait_log "(iSER" 180 || { tail -n 40 "$OUT/daemon.log"; abort "no iSER portal"; }

check iscsid iscsi_start || abort "iscsid does not start"
check discovery sh -c "iscsiadm -m discovery -t sendtargets -p $PORTAL | grep -q ' $IQN\$'"

# iser_discoveries N: N SendTargets discoveries over iSER, one after the other; each must find the target
iser_discoveries() {
  local i t0=$SECONDS
  for i in $(seq "$1"); do
    iscsiadm -m discovery -t sendtargets -p "$PORTAL" -I iser | grep -q " $IQN\$" \
      || { log "iSER discovery $i of $1 failed"; return 1; }
  done
  log "$1 iSER discoveries took $((SECONDS - t0)) s"
}
# iser_connections_closed N: the daemon logged the close of every iSER connection it was asked for (at least N),
# each queue pair destroyed within 1 s of its disconnect, and refused none for want of a slot; waits up to 10 s
iser_connections_closed() {
  local end=$((SECONDS + 10)) requests closed slow
  while :; do
    requests=$(grep -c "iSER connect request from" "$OUT/daemon.log")
    closed=$(grep -c "iSER connection from .* closed .*queue pair destroyed" "$OUT/daemon.log")
    [ "$requests" -ge "$1" ] && [ "$closed" = "$requests" ] && break
    [ "$SECONDS" -ge "$end" ] && break
    sleep 0.5
  done
  slow=$(grep -o "queue pair destroyed [0-9]* ms" "$OUT/daemon.log" | awk '$4 >= 1000' | wc -l)
  log "iSER connections: $requests connect requests, $closed closed, $slow destroyed 1 s or more after the disconnect"
  grep "iSER connection from .* closed" "$OUT/daemon.log" | tail -2
  if grep "connection slots are in use" "$OUT/daemon.log"; then
    return 1
  fi
  [ "$requests" -ge "$1" ] && [ "$closed" = "$requests" ] && [ "$slow" = 0 ]
}
check iser-discoveries iser_discoveries "$ISER_DISCOVERIES"
check iser-discovery-connections-closed iser_connections_closed "$ISER_DISCOVERIES"
fs_run iser iser
dmesg | grep -iE 'iser|rxe' | tail -20 >"$OUT/dmesg-iser.txt"
# the daemon's closing line of the iSER connection: data really moved by RDMA Write (reads) and Read (writes)
check iser-rdma-writes wait_log " [1-9][0-9]* RDMA Writes" 30
check iser-rdma-reads wait_log " [1-9][0-9]* RDMA Reads" 30
# reads served from the NUMA cache leave by RDMA Write straight from its registered blocks, no staging copy
check iser-rdma-writes-in-place wait_log " [1-9][0-9]* of them in place" 30
check iser-cache-registered wait_log "MiB of cache memory in [1-9][0-9]* regions registered" 5
grep "iSER connection from" "$OUT/daemon.log" | tail -2
# where the RDMA device and the staging copies touched memory (the host test reads and reports the figures)
check metrics-iser metrics "$OUT/metrics-iser.prom" iser_touched_bytes_total
grep -E '^iser_touched_bytes_total.* [1-9][0-9.E]*$' "$OUT/metrics-iser.prom"
fs_run default tcp

stop_daemon
rc=$?
log "daemon exit status $rc"
check daemon-clean-exit test "$rc" = 0
grep -E 'iSER|iser' "$OUT/daemon.log" | tail -20
summary
