#!/bin/bash
# Guest test (NumaGuestTest): the daemon runs IN the guest (2 emulated NUMA nodes, one vCPU and 1 GiB
# each) with its per-node cache on the real topology, and the guest's own kernel initiator attaches it
# at 127.0.0.1:3260 (the host's guestfwd portal is not used).
#   node CPUs -> daemon (java, jars from /vmrun/java) -> portal and metrics up -> discovery -> login
#   -> one full sequential read (1 MiB, direct) so the LUN is cached -> metrics -> random reads
#   128k-1m (direct) -> metrics -> local share of the random reads' bytes -> numa_maps and every
#   thread's Cpus_allowed_list -> logout -> SIGTERM, exit 0
# The host (NumaGuestTest) checks the regions, the worker placement and the share again from the files
# in /vmrun/out: daemon.log, daemon.pid, node-cpus.txt, numactl-H.txt, numa_maps.txt, threads.txt,
# metrics-{start,login,warm,random}.prom, fio-warm.txt, fio-random.txt, local-share.txt.
# Env from the host: VM_IQN, VM_RANDOM_IO (bytes of random reads), VM_RANDOM_RUNTIME (seconds, a cap).
. /vmrun/lib.sh
IQN=$VM_IQN
PORTAL=127.0.0.1:3260
METRICS=127.0.0.1:9100
JAVA_FLAGS=(-XX:TieredStopAtLevel=1 "-XX:ErrorFile=$OUT/hs_err_%p.log" -Dchronicle.analytics.disable=true)

for n in /sys/devices/system/node/node[0-9]*; do echo "${n##*/} $(cat "$n/cpulist")"; done >"$OUT/node-cpus.txt"
numactl -H >"$OUT/numactl-H.txt" 2>&1
log "nodes: $(tr '\n' ';' <"$OUT/node-cpus.txt")"
check two-numa-nodes test "$(wc -l <"$OUT/node-cpus.txt")" = 2 || abort "the guest has no 2 NUMA nodes"

# metrics FILE: GET /metrics (busybox wget; bash /dev/tcp with HTTP/1.0 if that fails)
metrics() {
  rm -f "$1"
  if ! busybox wget -q -T 30 -O "$1" "http://$METRICS/metrics" 2>/dev/null; then
    timeout 30 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1#*:}" && printf "GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n" "$1" >&3 && cat <&3' \
      _ "$METRICS" | sed '1,/^\r\{0,1\}$/d' >"$1"
  fi
  grep -q '^cache_hits_total' "$1"
}

# sum NAME FILE: the sum of every sample of one metric
sum() { awk -v n="$1" 'index($0, n "{") == 1 || index($0, n " ") == 1 { s += $NF } END { printf "%.0f\n", s }' "$2"; }

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
check daemon-metrics-scrape metrics "$OUT/metrics-start.prom"
check daemon-real-two-nodes grep -q 'NUMA: 2 node(s)$' "$OUT/daemon.log"
check daemon-memory-bound sh -c "! grep -E 'not bound to nodes|falling back to unbound' $OUT/daemon.log"

check iscsid iscsi_start || abort "iscsid does not start"
check discovery grep -q " $IQN\$" <<<"$(iscsi_discover)"
check login iscsi_login "$IQN" || abort "login failed"
DISK=$(iscsi_disk "$IQN") || abort "no block device after login"
log "disk $DISK, $(blockdev --getsize64 "$DISK") bytes"
check metrics-after-login metrics "$OUT/metrics-login.prom"

log "fio: one sequential read of the whole LUN, 1 MiB, direct"
check fio-sequential-read fio --name=warm --filename="$DISK" --rw=read --bs=1m --direct=1 --ioengine=libaio \
  --iodepth=4 --output="$OUT/fio-warm.txt"
check metrics-after-sequential metrics "$OUT/metrics-warm.prom"
log "fio: random reads 128k-1m, direct, QD8, $VM_RANDOM_IO bytes or $VM_RANDOM_RUNTIME s"
check fio-random-read fio --name=random --filename="$DISK" --rw=randread --bsrange=128k-1m --direct=1 \
  --ioengine=libaio --iodepth=8 --io_size="$VM_RANDOM_IO" --runtime="$VM_RANDOM_RUNTIME" --output="$OUT/fio-random.txt"
check metrics-after-random metrics "$OUT/metrics-random.prom"
grep -E 'READ:|iops' "$OUT/fio-warm.txt" "$OUT/fio-random.txt"

L=$(( $(sum cache_local_bytes_total "$OUT/metrics-random.prom") - $(sum cache_local_bytes_total "$OUT/metrics-warm.prom") ))
R=$(( $(sum cache_remote_bytes_total "$OUT/metrics-random.prom") - $(sum cache_remote_bytes_total "$OUT/metrics-warm.prom") ))
H=$(( $(sum cache_hits_total "$OUT/metrics-random.prom") - $(sum cache_hits_total "$OUT/metrics-warm.prom") ))
M=$(( $(sum cache_misses_total "$OUT/metrics-random.prom") - $(sum cache_misses_total "$OUT/metrics-warm.prom") ))
SHARE=$(awk -v l="$L" -v r="$R" 'BEGIN { if (l + r > 0) printf "%.2f", 100 * l / (l + r); else print "none" }')
echo "random reads 128k-1m: local $L bytes, remote $R bytes, node-local $SHARE %, hits $H, misses $M" \
  | tee "$OUT/local-share.txt"
check local-share-at-least-90 awk -v s="$SHARE" 'BEGIN { exit !(s != "none" && s + 0 >= 90) }'

cat "/proc/$DPID/numa_maps" >"$OUT/numa_maps.txt"
for t in /proc/"$DPID"/task/*; do
  printf '%s\t%s\t%s\n' "${t##*/}" "$(cat "$t/comm")" "$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")"
done >"$OUT/threads.txt"
log "anonymous mappings of 16 MiB or more resident (numa_maps):"
awk '!/file=/ { p = 0; for (i = 3; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, a, "="); p += a[2] } if (p >= 4096) print }' \
  "$OUT/numa_maps.txt"
log "node workers (tid, name, Cpus_allowed_list):"
grep -E $'\tnode[0-9]+-worker' "$OUT/threads.txt"

check logout iscsi_logout "$IQN"
stop_daemon
rc=$?
log "daemon exit status $rc"
check daemon-clean-exit test "$rc" = 0
ls "$OUT"/hs_err_*.log 2>/dev/null && log "JVM crash report(s) above: an infrastructure failure (TCG)"
summary
