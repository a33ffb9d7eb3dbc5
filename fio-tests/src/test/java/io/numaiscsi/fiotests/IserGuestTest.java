package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * iSER (RFC 7145) against the Linux kernel initiator, all inside the qemu guest ({@code vm/guest/iser.sh}):
 * Soft-RoCE on the guest's eth0, the daemon in the guest with an iSER portal (4 connections) and a TCP portal on
 * 10.0.2.15, 20 SendTargets discoveries over iSER in a row (each connection closed and its slot free again at once),
 * {@code iscsiadm -I iser} login, ext4 with checksummed files across a remount, fio with crc32c verify,
 * logout; then the same run over TCP. The fio figures of both are printed side by side (functional only:
 * emulated RDMA under TCG is no speed measure).
 */
@Tag("it")
class IserGuestTest {
    static final Duration GUEST_LIMIT = Duration.ofMinutes(12);
    static final String GUEST_RUN = "/vmrun";

    @Test
    void kernelIserInitiatorMountsWritesAndVerifiesOverSoftRoce() throws Exception {
        VmRun.image();
        String iqn = IscsiTarget.DEFAULT_IQN;
        int unusedHostPort = DaemonProcess.freeLoopbackPort(); // the guest talks to the daemon inside itself
        VmRun run = VmRun.run(
                "iser",
                unusedHostPort,
                "iser.sh",
                Map.of("IQN", iqn),
                GUEST_LIMIT,
                request -> "error: this test asks nothing of the host, got " + request,
                runDir -> prepareRunDir(runDir, iqn));
        Path logs = DaemonProcess.logDir();
        if (Files.exists(run.serialLog())) {
            Files.copy(run.serialLog(), logs.resolve("IserGuestTest.serial.log"), StandardCopyOption.REPLACE_EXISTING);
        }
        for (String f : List.of("daemon.log", "fio-iser.txt", "fio-tcp.txt", "dmesg-iser.txt", "metrics-iser.prom")) {
            if (Files.exists(run.out(f))) {
                Files.copy(run.out(f), logs.resolve("IserGuestTest-" + f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        String context = "\n" + run.describe() + "\n--- guest daemon log (last 40 lines):\n"
                + ToolRun.tail(run.out("daemon.log"), 40);
        try (Stream<Path> out = Files.list(run.runDir().resolve("out"))) {
            List<Path> crashes = out.filter(p -> p.getFileName().toString().startsWith("hs_err_"))
                    .toList();
            if (!crashes.isEmpty()) {
                fail("the JVM in the guest crashed (TCG, see fio-tests/README.md, \"Java in the guest\"): " + crashes
                        + context);
            }
        }
        System.out.println("[IserGuestTest] fio over iSER vs TCP in the guest (functional figures):\n"
                + summary(run.out("fio-iser.txt")) + summary(run.out("fio-tcp.txt")));
        assertTrue(run.succeeded(), "guest test iser.sh" + context);
        PromText metrics = new PromText(Files.readString(run.out("metrics-iser.prom")));
        System.out.println(
                "[IserGuestTest] where the iSER data path touched memory (iser_touched_bytes_total; by_node: "
                        + "the RDMA device's for hca_*, the copying CPU's for copy):\n" + touchTable(metrics));
        for (String kind : List.of("hca_read", "hca_write")) {
            assertTrue(
                    metrics.sumAll(TOUCHED, "kind=\"" + kind + "\"") > 0,
                    "no " + kind + " bytes counted after fio over iSER\n" + touchTable(metrics));
        }
    }

    private static final String TOUCHED = "iser_touched_bytes_total";

    /** Non-zero iser_touched_bytes_total samples as "kind node -> mem_node: MiB (share of the kind)" lines. */
    static String touchTable(PromText metrics) {
        StringBuilder sb = new StringBuilder();
        List<String> nodes = List.of("0", "1", "unknown");
        for (String kind : List.of("hca_read", "hca_write", "copy")) {
            double all = metrics.sumAll(TOUCHED, "kind=\"" + kind + "\"");
            for (String by : nodes) {
                for (String mem : nodes) {
                    double b = metrics.sumAll(
                            TOUCHED, "kind=\"" + kind + "\"", "by_node=\"" + by + "\"", "mem_node=\"" + mem + "\"");
                    if (b > 0) {
                        sb.append(String.format(
                                "  %-9s by node %-7s -> memory node %-7s %9.1f MiB (%5.1f%%)%n",
                                kind, by, mem, b / (1 << 20), 100 * b / all));
                    }
                }
            }
        }
        return sb.length() == 0 ? "  (nothing counted)\n" : sb.toString();
    }

    private static String summary(Path fio) throws IOException {
        if (!Files.exists(fio)) {
            return "  " + fio.getFileName() + ": missing\n";
        }
        StringBuilder b = new StringBuilder();
        for (String line : Files.readAllLines(fio)) {
            if (line.matches("\\s+(read|write):.*")) {
                b.append("  ")
                        .append(fio.getFileName())
                        .append(": ")
                        .append(line.trim())
                        .append('\n');
            }
        }
        return b.toString();
    }

    static String guestConfig(String iqn) {
        return "daemon:\n"
                + "  data-dir: /tmp/nit-data\n"
                + "portals:\n"
                + "  - 10.0.2.15:3260\n"
                + "  - {address: 10.0.2.15:3260, transport: iser, connections: 4}\n"
                // the NUMA cache on: reads then leave by RDMA Write straight from the registered cache blocks
                + "cache:\n"
                + "  mode: numa\n"
                + "  size-per-node: 32M\n"
                + "  block-size: 64K\n"
                + "  partitions-per-node: 8\n"
                + "targets:\n"
                + "  - name: " + iqn + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: 96M, block-size: 512}\n";
    }

    /** The daemon's jars (or class dirs) under java/, a java @argfile naming them, and the daemon's config. */
    private static void prepareRunDir(Path runDir, String iqn) throws IOException {
        GuestDaemon.stage(runDir, guestConfig(iqn));
    }
}
