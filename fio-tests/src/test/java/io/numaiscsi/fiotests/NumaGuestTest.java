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
 * NUMA placement with the daemon's DEFAULTS inside the qemu guest with 2 emulated nodes ({@code vm/guest/numa-cache.sh}):
 * no cache or numa section (the NUMA cache on, size-per-node auto, placement spread, zero-copy-min 64K), two targets
 * of one RAM LUN each. Phase one loads target A alone (1 LUN), phase two A and B at once (2 LUNs), each with 4K
 * random reads, 128K-1M random reads and 4K random writes through the guest's kernel initiator. For every load and
 * LUN, at least 99% of the bytes a CPU touched (data_touched_bytes_total: socket copies, our copies, the RAM store's
 * copies, counted by the node of the CPU and of each page) must be node-local; in phase two both nodes' LUN event
 * threads must have executed commands; every LUN event thread may run only on its node's CPUs; each node's cache
 * region is a mapping with all its pages on that node.
 */
@Tag("it")
class NumaGuestTest {

    static final long LUN_BYTES = 96L << 20;
    static final int RUNTIME_S = 8;
    static final double MIN_LOCAL_SHARE = 0.99;
    static final Duration GUEST_LIMIT = Duration.ofMinutes(10);
    static final String IQN_A = IscsiTarget.DEFAULT_IQN;
    static final String IQN_B = "iqn.2026-11.io.numaiscsi:disk1";
    static final List<String> LOADS = List.of("rr4k", "rr128k", "rw4k");

    @Test
    void defaultsKeepEveryTouchedByteOnItsNodeWithOneAndTwoLuns() throws Exception {
        VmRun.image(); // fails here, with the build's output, when the image cannot be built
        // the guest reaches the daemon inside itself: the host's guestfwd port is never used
        int unusedHostPort = DaemonProcess.freeLoopbackPort();
        VmRun run = VmRun.run(
                "numa-cache",
                unusedHostPort,
                "numa-cache.sh",
                Map.of("IQN_A", IQN_A, "IQN_B", IQN_B, "RUNTIME", Integer.toString(RUNTIME_S)),
                GUEST_LIMIT,
                request -> "error: this test asks nothing of the host, got " + request,
                runDir -> GuestDaemon.stage(runDir, guestConfig()));
        timing("guest test numa-cache.sh", run.elapsed());
        saveLogs(run);
        String context = "\n" + run.describe() + "\n--- guest daemon log " + run.out("daemon.log")
                + " (last 30 lines):\n" + ToolRun.tail(run.out("daemon.log"), 30);
        try (Stream<Path> out = Files.list(run.runDir().resolve("out"))) {
            List<Path> crashes = out.filter(p -> p.getFileName().toString().startsWith("hs_err_"))
                    .toList();
            if (!crashes.isEmpty()) {
                fail("the JVM in the guest crashed (an infrastructure failure under multi-threaded TCG, see "
                        + "fio-tests/README.md, \"Java in the guest\"): " + crashes + context);
            }
        }
        assertTrue(run.succeeded(), "guest test numa-cache.sh" + context);

        List<String> evidence = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TouchChart chart = new TouchChart();
        for (String phase : List.of("one", "two")) {
            PromText before = scrape(run, "start-" + phase);
            List<String> targets = phase.equals("one") ? List.of(IQN_A) : List.of(IQN_A, IQN_B);
            for (String load : LOADS) {
                PromText after = scrape(run, phase + "-" + load);
                for (String target : targets) {
                    double[] t = after.touchedSince(before, 2, "target=\"" + target + "\"");
                    double share = t[0] / t[1];
                    String line = String.format(
                            "%s LUN%s %-6s %s: %5.1f %% node-local of %,.0f bytes touched%s",
                            phase,
                            phase.equals("one") ? "" : "s",
                            load,
                            target.substring(target.indexOf(':') + 1),
                            100 * share,
                            t[1],
                            byKind(after, before, target));
                    evidence.add(line);
                    chart.add(
                            (phase.equals("one") ? "1 LUN " : "2 LUNs ") + load + " "
                                    + target.substring(target.indexOf(':') + 1),
                            kinds(after, before, target));
                    if (!(t[1] > 0) || share < MIN_LOCAL_SHARE) {
                        problems.add(line);
                    }
                }
                if (phase.equals("two")) {
                    for (int node = 0; node < 2; node++) {
                        double executed = after.sumAll(
                                        "iscsi_thread_executed_commands_total", "thread=\"lun-event-n" + node)
                                - before.sumAll("iscsi_thread_executed_commands_total", "thread=\"lun-event-n" + node);
                        evidence.add(String.format(
                                "two LUNs %-6s node %d LUN event threads executed %.0f commands",
                                load, node, executed));
                        if (!(executed > 0)) {
                            problems.add("two LUNs " + load + ": no command executed on node " + node + "'s threads");
                        }
                    }
                }
                before = after;
            }
        }

        ThreadPlacement placement = ThreadPlacement.parse(
                Files.readAllLines(run.out("threads.txt"), StandardCharsets.ISO_8859_1),
                Files.readAllLines(run.out("node-cpus.txt"), StandardCharsets.ISO_8859_1));
        assertEquals(2, placement.nodeCpus().size(), "nodes in the guest: " + placement.nodeCpus() + context);
        for (int node = 0; node < 2; node++) {
            List<ThreadPlacement.Thread> threads = placement.named("lun-event-n" + node);
            if (threads.isEmpty()) {
                problems.add("no lun-event-n" + node + " thread");
            }
            for (ThreadPlacement.Thread t : threads) {
                evidence.add(t.comm() + " (tid " + t.tid() + ") Cpus_allowed_list " + t.cpus() + ", node " + node
                        + " CPUs " + placement.nodeCpus().get(node));
                if (!placement.nodeCpus().get(node).containsAll(t.cpus())) {
                    problems.add(t.comm() + " may run outside node " + node + ": " + t.cpus());
                }
            }
        }
        NumaMaps maps = NumaMaps.parse(Files.readAllLines(run.out("numa_maps.txt"), StandardCharsets.ISO_8859_1));
        for (int node = 0; node < 2; node++) {
            Optional<NumaMaps.Mapping> region = maps.regionOn(node, 16L << 20);
            if (region.isEmpty()) {
                problems.add("no anonymous mapping of 16 MiB or more with all pages on node " + node + " (its cache "
                        + "region); largest anonymous:\n"
                        + maps.largestAnonymous(6).stream()
                                .map(NumaMaps.Mapping::line)
                                .collect(Collectors.joining("\n")));
            } else {
                evidence.add("node " + node + " cache region: " + region.get().line());
            }
        }
        chart.writePng(
                DaemonProcess.logDir().resolve("NumaGuestTest-touches.png"),
                "Bytes CPUs touched in the "
                        + "2-node guest with the daemon's defaults (target disk0 on node 0, disk1 on node 1)");
        String report = String.join("\n", evidence);
        System.out.println("[NumaGuestTest] " + report);
        Files.writeString(DaemonProcess.logDir().resolve("NumaGuestTest-evidence.txt"), report + "\n");
        assertTrue(
                problems.isEmpty(), "placement problems:\n" + String.join("\n", problems) + "\n\n" + report + context);
    }

    private static PromText scrape(VmRun run, String step) throws IOException {
        return new PromText(Files.readString(run.out("metrics-" + step + ".prom")));
    }

    private static double[][] kinds(PromText after, PromText before, String target) {
        double[][] out = new double[TouchChart.KINDS.size()][];
        for (int k = 0; k < out.length; k++) {
            out[k] = after.touchedSince(
                    before, 2, "kind=\"" + TouchChart.KINDS.get(k) + "\"", "target=\"" + target + "\"");
        }
        return out;
    }

    /** Where the bytes of one target went, per kind: local / all. */
    private static String byKind(PromText after, PromText before, String target) {
        double[][] k = kinds(after, before, target);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < k.length; i++) {
            if (k[i][1] > 0) {
                sb.append(String.format("; %s %.0f/%.0f", TouchChart.KINDS.get(i), k[i][0], k[i][1]));
            }
        }
        return sb.toString();
    }

    /** The defaults: no cache or numa section. Two targets, so that spread placement puts one on each node. */
    static String guestConfig() {
        return "daemon:\n"
                + "  data-dir: /tmp/nit-data\n"
                + "portals: [127.0.0.1:3260]\n"
                + "targets:\n"
                + "  - name: " + IQN_A + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: " + DaemonProcess.sizeLiteral(LUN_BYTES) + ", block-size: 512}\n"
                + "  - name: " + IQN_B + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: " + DaemonProcess.sizeLiteral(LUN_BYTES)
                + ", block-size: 512}\n";
    }

    /** The serial log, the guest's daemon log, numa_maps, threads and metrics next to the other logs. */
    private static void saveLogs(VmRun run) throws IOException {
        Path logs = DaemonProcess.logDir();
        if (Files.exists(run.serialLog())) {
            Files.copy(run.serialLog(), logs.resolve("NumaGuestTest.serial.log"), StandardCopyOption.REPLACE_EXISTING);
        }
        try (Stream<Path> out = Files.list(run.runDir().resolve("out"))) {
            for (Path f : out.filter(Files::isRegularFile).toList()) {
                Files.copy(f, logs.resolve("NumaGuestTest-" + f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void timing(String what, Duration d) throws IOException {
        String line = String.format("%-30s %5d s%n", what, d == null ? -1 : d.toSeconds());
        System.out.print("[NumaGuestTest] " + line);
        Files.writeString(
                DaemonProcess.logDir().resolve("vm-timings.txt"),
                line,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
