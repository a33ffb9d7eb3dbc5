#!/bin/bash
# Guest test (NumaGuestTest): the daemon runs IN the guest (2 emulated NUMA nodes, one vCPU and 1 GiB
# each) with its DEFAULTS (no cache or numa section: the NUMA cache on, size-per-node auto, placement
# spread, zero-copy-min 64K) and two targets of one RAM LUN each; the guest's own kernel initiator
# attaches them at 127.0.0.1:3260.
#   daemon -> login A -> sequential read of A -> phase one (A alone): 4K random read, 128k-1m random
#   read, 4K random write, a scrape after each -> login B -> sequential read of B -> phase two (A and
#   B at once): the same three loads on both disks -> numa_maps and every thread's Cpus_allowed_list
#   -> logout -> SIGTERM, exit 0
# The host (NumaGuestTest) computes the node-local share of every byte a CPU touched per phase, load
# and LUN from the scrapes (data_touched_bytes_total) and checks where the threads ran.
# Files in /vmrun/out: daemon.log, node-cpus.txt, numactl-H.txt, numa_maps.txt, threads.txt,
# metrics-<step>.prom, fio-<step>.txt.
# Env from the host: VM_IQN_A, VM_IQN_B, VM_RUNTIME (seconds per random load).
. /vmrun/lib.sh
PORTAL=127.0.0.1:3260
METRICS=127.0.0.1:9100
JAVA_FLAGS=(-XX:TieredStopAtLevel=1 "-XX:ErrorFile=$OUT/hs_err_%p.log" -Dchronicle.analytics.disable=true)

for n in /sys/devices/system/node/node[0-9]*; do echo "${n##*/} $(cat "$n/cpulist")"; done >"$OUT/node-cpus.txt"
numactl -H >"$OUT/numactl-H.txt" 2>&1
log "nodes: $(tr '\n' ';' <"$OUT/node-cpus.txt")"
check two-numa-nodes test "$(wc -l <"$OUT/node-cpus.txt")" = 2 || abort "the guest has no 2 NUMA nodes"

# load NAME RW BS DISK...: one fio run of VM_RUNTIME seconds, QD8, one job per disk, then a scrape
load() {
  local name=$1 rw=$2 bs=$3 jobs=() d
  shift 3
  for d in "$@"; do jobs+=(--name="${d##*/}" --filename="$d"); done
  log "fio $name: $rw $bs on $*"
  check "fio-$name" fio --rw="$rw" --bsrange="$bs" --direct=1 --ioengine=libaio --iodepth=8 --time_based \
    --runtime="$VM_RUNTIME" --group_reporting "${jobs[@]}" --output="$OUT/fio-$name.txt"
  check "metrics-$name" metrics "$OUT/metrics-$name.prom" data_touched_bytes_total
  grep -E 'IOPS' "$OUT/fio-$name.txt" | head -2
}

mkdir -p /tmp/nit-data
log "starting the daemon: java ${JAVA_FLAGS[*]} @/vmrun/java/args"
java "${JAVA_FLAGS[@]}" @/vmrun/java/args io.numaiscsi.daemon.Main --config /vmrun/target.yaml \
  --metrics "$METRICS" >"$OUT/daemon.log" 2>&1 &
DPID=$!
echo "$DPID" >"$OUT/daemon.pid"
if ! check daemon-portal wait_port 127.0.0.1 3260 240; then
  tail -n 40 "$OUT/daemon.log"
  abort "the daemon's portal 127.0.0.1:3260 is not up"
fi
log "daemon pid $DPID up"
check daemon-metrics wait_port 127.0.0.1 9100 30
check daemon-real-two-nodes grep -q 'NUMA: 2 node(s);' "$OUT/daemon.log"
check daemon-memory-bound sh -c "! grep -E 'not bound to nodes|falling back to unbound' $OUT/daemon.log"

check iscsid iscsi_start || abort "iscsid does not start"
check discovery grep -q " $VM_IQN_B\$" <<<"$(iscsi_discover)"
check login-a iscsi_login "$VM_IQN_A" || abort "login to $VM_IQN_A failed"
A=$(iscsi_disk "$VM_IQN_A") || abort "no block device after login"
log "disk A $A, $(blockdev --getsize64 "$A") bytes"
check fio-warm-a fio --name=warm --filename="$A" --rw=read --bs=1m --direct=1 --ioengine=libaio --iodepth=4 \
  --output="$OUT/fio-warm-a.txt"
check metrics-start-one metrics "$OUT/metrics-start-one.prom" data_touched_bytes_total
load one-rr4k randread 4k-4k "$A"
load one-rr128k randread 128k-1m "$A"
load one-rw4k randwrite 4k-4k "$A"

check login-b iscsi_login "$VM_IQN_B" || abort "login to $VM_IQN_B failed"
B=$(iscsi_disk "$VM_IQN_B") || abort "no block device after the second login"
log "disk B $B"
check fio-warm-b fio --name=warm --filename="$B" --rw=read --bs=1m --direct=1 --ioengine=libaio --iodepth=4 \
  --output="$OUT/fio-warm-b.txt"
check metrics-start-two metrics "$OUT/metrics-start-two.prom" data_touched_bytes_total
load two-rr4k randread 4k-4k "$A" "$B"
load two-rr128k randread 128k-1m "$A" "$B"
load two-rw4k randwrite 4k-4k "$A" "$B"

cat "/proc/$DPID/numa_maps" >"$OUT/numa_maps.txt"
for t in /proc/"$DPID"/task/*; do
  printf '%s\t%s\t%s\n' "${t##*/}" "$(cat "$t/comm")" "$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")"
done >"$OUT/threads.txt"
log "pinned threads (tid, name, Cpus_allowed_list):"
grep -E $'\t(lun-event|acceptor|login|node[0-9]|backing-io)' "$OUT/threads.txt"

check logout-a iscsi_logout "$VM_IQN_A"
check logout-b iscsi_logout "$VM_IQN_B"
stop_daemon
rc=$?
log "daemon exit status $rc"
check daemon-clean-exit test "$rc" = 0
ls "$OUT"/hs_err_*.log 2>/dev/null && log "JVM crash report(s) above: an infrastructure failure (TCG)"
summary
