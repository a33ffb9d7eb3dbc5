package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * NUMA placement inside the qemu guest with 2 emulated nodes ({@code vm/guest/numa-cache.sh}): the
 * daemon runs in the guest on the real topology with {@code cache.mode: numa}, the guest's kernel
 * initiator reads its RAM LUN once sequentially (so it is cached) and then at random with 128 KiB-1 MiB
 * requests. Checked here from the files the guest leaves: each node's cache region is an anonymous
 * mapping of about {@code size-per-node} with all its pages on that node ({@code numa_maps}), each
 * {@code nodeN-worker} thread may run only on node N's CPUs, and at least 90% of the random reads'
 * bytes were served from node-local memory (the daemon's counters).
 *
 * <p>One partition per node makes each region one mapping, and 16 neighbouring 512 KiB blocks per
 * partition group (8 MiB runs per node) keep requests of up to 1 MiB mostly on one node.
 */
@Tag("it")
class NumaGuestTest {

    static final long LUN_BYTES = 96L << 20;
    static final long SIZE_PER_NODE = 64L << 20;
    static final long RANDOM_IO = 192L << 20;
    static final int RANDOM_RUNTIME_S = 60;
    static final double MIN_LOCAL_SHARE = 0.90;
    static final Duration GUEST_LIMIT = Duration.ofMinutes(8);
    static final String GUEST_RUN = "/vmrun";

    @Test
    void cacheRegionsWorkersAndLocalBytesInATwoNodeGuest() throws Exception {
        VmRun.image();   // fails here, with the build's output, when the image cannot be built
        String iqn = IscsiTarget.DEFAULT_IQN;
        // the guest reaches the daemon inside itself: the host's guestfwd port is never used
        int unusedHostPort = DaemonProcess.freeLoopbackPort();
        VmRun run = VmRun.run("numa-cache", unusedHostPort, "numa-cache.sh",
                Map.of("IQN", iqn, "RANDOM_IO", Long.toString(RANDOM_IO),
                        "RANDOM_RUNTIME", Integer.toString(RANDOM_RUNTIME_S)),
                GUEST_LIMIT, request -> "error: this test asks nothing of the host, got " + request,
                runDir -> prepareRunDir(runDir, iqn));
        timing("guest test numa-cache.sh", run.elapsed());
        saveLogs(run);
        String context = "\n" + run.describe() + "\n--- guest daemon log " + run.out("daemon.log") + " (last 30 lines):\n"
                + ToolRun.tail(run.out("daemon.log"), 30);
        try (Stream<Path> out = Files.list(run.runDir().resolve("out"))) {
            List<Path> crashes = out.filter(p -> p.getFileName().toString().startsWith("hs_err_")).toList();
            if (!crashes.isEmpty()) {
                fail("the JVM in the guest crashed (an infrastructure failure under multi-threaded TCG, see "
                        + "JAVA-IN-GUEST.md): " + crashes + context);
            }
        }
        assertTrue(run.succeeded(), "guest test numa-cache.sh" + context);

        NumaMaps maps = NumaMaps.parse(Files.readAllLines(run.out("numa_maps.txt"), StandardCharsets.ISO_8859_1));
        long minRegion = SIZE_PER_NODE / 10 * 9;
        List<String> evidence = new ArrayList<>();
        for (int node = 0; node < 2; node++) {
            Optional<NumaMaps.Mapping> region = maps.regionOn(node, minRegion);
            if (region.isEmpty()) {
                fail("no anonymous mapping of at least " + minRegion + " bytes with all pages on node " + node
                        + " (the cache region of node " + node + ") in numa_maps; largest anonymous:\n"
                        + maps.largestAnonymous(6).stream().map(NumaMaps.Mapping::line).collect(Collectors.joining("\n"))
                        + context);
            }
            evidence.add("node " + node + " region: " + region.get().line());
        }

        ThreadPlacement placement = ThreadPlacement.parse(
                Files.readAllLines(run.out("threads.txt"), StandardCharsets.ISO_8859_1),
                Files.readAllLines(run.out("node-cpus.txt"), StandardCharsets.ISO_8859_1));
        assertEquals(2, placement.nodeCpus().size(), "nodes in the guest: " + placement.nodeCpus() + context);
        PromText warm = new PromText(Files.readString(run.out("metrics-warm.prom")));
        PromText random = new PromText(Files.readString(run.out("metrics-random.prom")));
        java.util.Set<Integer> forwardedTo = new java.util.TreeSet<>();
        for (int node = 0; node < 2; node++) {
            if (random.sum("cache_forwards_total", "node=\"" + node + "\"") > 0) {
                forwardedTo.add(node);
            }
        }
        assertTrue(!forwardedTo.isEmpty(), "no request was forwarded to a node's workers\n" + random.cacheSummary() + context);
        List<String> problems = placement.workerProblems(forwardedTo);
        assertTrue(problems.isEmpty(), "node worker placement: " + problems + "\nthreads:\n"
                + Files.readString(run.out("threads.txt")) + context);
        evidence.add("requests were forwarded to the workers of node(s) " + forwardedTo);
        for (int node = 0; node < 2; node++) {
            for (ThreadPlacement.Thread t : placement.named("node" + node + "-worker")) {
                evidence.add(t.comm() + " (tid " + t.tid() + ") Cpus_allowed_list " + t.cpus()
                        + ", node " + node + " CPUs " + placement.nodeCpus().get(node));
            }
        }

        int allCpus = placement.nodeCpus().values().stream().mapToInt(java.util.Set::size).sum();
        placement.threads().stream().filter(t -> !t.comm().contains("-worker") && t.cpus().size() < allCpus)
                .forEach(t -> evidence.add("also pinned: " + t.comm() + " (tid " + t.tid() + ") Cpus_allowed_list "
                        + t.cpus()));
        double local = random.delta(warm, "cache_local_bytes_total");
        double remote = random.delta(warm, "cache_remote_bytes_total");
        double share = local / (local + remote);
        evidence.add(String.format("random reads 128k-1m: local %.0f bytes, remote %.0f bytes: %.2f %% node-local "
                + "(hits %.0f, misses %.0f); whole run incl. the sequential read: %.2f %%", local, remote, 100 * share,
                random.delta(warm, "cache_hits_total"), random.delta(warm, "cache_misses_total"),
                100 * random.localShare()));
        evidence.add("cache counters at the end:\n" + random.cacheSummary());
        String report = String.join("\n", evidence);
        System.out.println("[NumaGuestTest] " + report);
        Files.writeString(DaemonProcess.logDir().resolve("NumaGuestTest-evidence.txt"), report + "\n");
        assertTrue(local + remote > 0, "the cache served no bytes during the random reads" + context);
        assertTrue(share >= MIN_LOCAL_SHARE, String.format("node-local share of the random reads' bytes %.2f %% < %.0f %%",
                100 * share, 100 * MIN_LOCAL_SHARE) + "\n" + report + context);
    }

    /** The daemon's jars (or class dirs) under java/, a java @argfile naming them, and the daemon's config. */
    private static void prepareRunDir(Path runDir, String iqn) throws IOException {
        GuestDaemon.stage(runDir, guestConfig(iqn));
    }

    static String guestConfig(String iqn) {
        return "daemon:\n"
                + "  data-dir: /tmp/nit-data\n"
                + "portals: [127.0.0.1:3260]\n"
                + "cache: {mode: numa, size-per-node: " + DaemonProcess.sizeLiteral(SIZE_PER_NODE)
                // zero-copy off: this test measures where the cache's copy runs (each node's workers); with the
                // default, reads of 64 KiB and more leave from the blocks themselves and no CPU copies them
                + ", block-size: 512K, partitions-per-node: 1, neighbours: 16, zero-copy-min: off}\n"
                + "targets:\n"
                + "  - name: " + iqn + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: " + DaemonProcess.sizeLiteral(LUN_BYTES) + ", block-size: 512}\n";
    }

    /** The serial log, the guest's daemon log, numa_maps, threads and metrics next to the other logs. */
    private static void saveLogs(VmRun run) throws IOException {
        Path logs = DaemonProcess.logDir();
        if (Files.exists(run.serialLog())) {
            Files.copy(run.serialLog(), logs.resolve("NumaGuestTest.serial.log"), StandardCopyOption.REPLACE_EXISTING);
        }
        for (String f : List.of("daemon.log", "numa_maps.txt", "threads.txt", "node-cpus.txt", "numactl-H.txt",
                "metrics-warm.prom", "metrics-random.prom", "local-share.txt", "fio-warm.txt", "fio-random.txt")) {
            if (Files.exists(run.out(f))) {
                Files.copy(run.out(f), logs.resolve("NumaGuestTest-" + f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void timing(String what, Duration d) throws IOException {
        String line = String.format("%-30s %5d s%n", what, d == null ? -1 : d.toSeconds());
        System.out.print("[NumaGuestTest] " + line);
        Files.writeString(DaemonProcess.logDir().resolve("vm-timings.txt"), line, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
