package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.rbd.CephTestCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two daemons (a gateway pair with ALUA, as in {@link AluaGatewayPairTest}) share one LUN's persistent reservations
 * through a directory on tmpfs ({@code shared-reservations: {backend: file}}): initiator 1 registers through A,
 * initiator 2 through B; 1 reserves (WRITE EXCLUSIVE) through A; a WRITE of 2 through B gets RESERVATION CONFLICT and
 * READ RESERVATION through B names 1's key; 2 PREEMPTs through B, after which 1's next command through A gets
 * REGISTRATIONS PREEMPTED, its WRITE through A conflicts and 2's through B succeeds. Then, rounds of RESERVE sent at once through A and B (after a CLEAR): each round exactly one
 * gets GOOD, the other RESERVATION CONFLICT, and both gateways report the winner as the holder.
 */
@Tag("it")
class SharedReservationsPairTest {
    static final String IQN = "iqn.2026-11.io.numaiscsi:ha-pr";
    static final Duration LIMIT = Duration.ofSeconds(30);
    static final String ONE = "iqn.2026-11.io.numaiscsi:node-one";
    static final String TWO = "iqn.2026-11.io.numaiscsi:node-two";
    static final int WRITE_EXCLUSIVE = 1;
    static final int ROUNDS = 20;

    private static String config(int group, String state, int peer, String peerState, Path shared) {
        return config(group, state, peer, peerState, "{backend: file, directory: " + shared + "}");
    }

    /** {@code shared}: the value of {@code shared-reservations}. */
    private static String config(int group, String state, int peer, String peerState, String shared) {
        return "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    alua: {group: " + group + ", state: " + state + ", peers: [{group: " + peer + ", state: "
                + peerState + "}]}\n"
                + "    shared-reservations: " + shared + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: null, size: 1G}\n";
    }

    @Test
    void aReservationTakenThroughOneGatewayIsEnforcedThroughTheOther() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemons itself");
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "needs /dev/shm");
        Path shared = Files.createTempDirectory(shm, "numa-iscsi-pr-pair-");
        try {
            checkPair("SharedReservationsPairTest", "{backend: file, directory: " + shared + "}");
        } finally {
            try (Stream<Path> files = Files.list(shared)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(shared);
        }
    }

    /**
     * The same checks with the reservations in a RADOS object of a throw-away Ceph cluster
     * ({@code shared-reservations: {backend: rados}}): a change reaches the other gateway through watch/notify.
     */
    @Test
    void aReservationTakenThroughOneGatewayIsEnforcedThroughTheOtherWithRados() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemons itself");
        try (CephTestCluster cluster = CephTestCluster.start(
                DaemonProcess.logDir().resolveSibling("it-ceph").resolve("SharedReservationsPairTest"), 17100)) {
            checkPair(
                    "SharedReservationsPairTest-rados",
                    "{backend: rados, pool: " + CephTestCluster.POOL + ", ceph-conf: " + cluster.conf()
                            + ", rbd-user: admin, keyring: " + cluster.adminKeyring() + "}");
        }
    }

    /** Two daemons with {@code shared-reservations: shared}: the checks of the class comment. */
    private static void checkPair(String name, String shared) throws Exception {
        try (ConfiguredDaemon a = ConfiguredDaemon.start(
                        name + "-A", config(1, "active-optimized", 2, "active-non-optimized", shared));
                ConfiguredDaemon b = ConfiguredDaemon.start(
                        name + "-B", config(2, "active-non-optimized", 1, "active-optimized", shared));
                TestConnection oneViaA = login(a, ONE);
                TestConnection twoViaB = login(b, TWO)) {
            assertEquals(0, prOut(oneViaA, 0, 0, 0, 0xA1).status(), "REGISTER 1 through A");
            assertEquals(0, prOut(twoViaB, 0, 0, 0, 0xB2).status(), "REGISTER 2 through B");
            assertEquals(0, prOut(oneViaA, 1, WRITE_EXCLUSIVE, 0xA1, 0).status(), "RESERVE 1 through A");

            byte[] block = ScsiCdb.pattern(512, 5);
            assertEquals(
                    0x18,
                    RawIo.write(twoViaB, 0, 0, block, false, LIMIT).status(),
                    "a WRITE of the non-holder through the other gateway: RESERVATION CONFLICT");
            assertEquals(0xA1, reservationKey(twoViaB), "READ RESERVATION through B: 1's key");
            assertEquals(List.of(0xA1L, 0xB2L), keys(twoViaB), "READ KEYS through B: both registrations");

            assertEquals(0, prOut(twoViaB, 4, WRITE_EXCLUSIVE, 0xB2, 0xA1).status(), "PREEMPT through B");
            ScsiResult attention = RawIo.write(oneViaA, 0, 0, block, false, LIMIT);
            assertEquals(
                    List.of(ScsiResult.CHECK_CONDITION, ScsiResult.UNIT_ATTENTION, 0x2A, 0x05),
                    List.of(attention.status(), attention.senseKey(), attention.asc(), attention.ascq()),
                    "1's next command through A: REGISTRATIONS PREEMPTED (the preemption was made through B)");
            assertEquals(
                    0x18,
                    RawIo.write(oneViaA, 0, 0, block, false, LIMIT).status(),
                    "1's WRITE through A after it was preempted through B");
            assertEquals(0, RawIo.write(twoViaB, 0, 0, block, false, LIMIT).status(), "the new holder writes");
            assertEquals(0xB2, reservationKey(oneViaA), "READ RESERVATION through A: 2's key");

            // 1 was preempted (its registration removed): it registers again; then concurrent RESERVEs
            assertEquals(0, pastAttention(() -> prOut(oneViaA, 0, 0, 0, 0xA1)).status(), "REGISTER 1 again");
            int winsA = 0;
            int winsB = 0;
            ExecutorService two = Executors.newFixedThreadPool(2);
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    assertEquals(
                            0,
                            pastAttention(() -> prOut(twoViaB, 3, 0, 0xB2, 0)).status(),
                            "CLEAR through B");
                    assertEquals(
                            0,
                            pastAttention(() -> prOut(twoViaB, 0, 0, 0, 0xB2)).status(),
                            "REGISTER 2");
                    assertEquals(
                            0,
                            pastAttention(() -> prOut(oneViaA, 0, 0, 0, 0xA1)).status(),
                            "REGISTER 1");
                    Future<ScsiResult> viaA = two.submit(() -> prOut(oneViaA, 1, WRITE_EXCLUSIVE, 0xA1, 0));
                    Future<ScsiResult> viaB = two.submit(() -> prOut(twoViaB, 1, WRITE_EXCLUSIVE, 0xB2, 0));
                    int sa = viaA.get().status();
                    int sb = viaB.get().status();
                    assertEquals(
                            List.of(0, 0x18),
                            Stream.of(sa, sb).sorted().toList(),
                            "round " + round + ": exactly one RESERVE wins (A " + sa + ", B " + sb + ")");
                    long winner = sa == 0 ? 0xA1 : 0xB2;
                    assertEquals(winner, reservationKey(oneViaA), "round " + round + ": A reports the winner");
                    assertEquals(winner, reservationKey(twoViaB), "round " + round + ": B reports the winner");
                    if (sa == 0) {
                        winsA++;
                    } else {
                        winsB++;
                    }
                }
            } finally {
                two.shutdownNow();
            }
            int lostRaces = a.logLines("decided again").size()
                    + b.logLines("decided again").size();
            System.out.println(name + ": concurrent RESERVE rounds won through A " + winsA
                    + ", through B " + winsB + "; OUTs that lost the compare-and-swap and were decided again: "
                    + lostRaces);
            a.assertAlive();
            b.assertAlive();
        }
    }

    /**
     * libiscsi's persistent reservation suites with their two URLs on the two gateways: the first initiator through A,
     * the second (iscsi-test-2) through B, so ProutReserve's access and ownership tests reserve through one gateway and
     * check access through the other.
     */
    @Test
    void libiscsiReservationSuitesAcrossTheTwoGateways() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemons itself");
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "needs /dev/shm");
        Path shared = Files.createTempDirectory(shm, "numa-iscsi-pr-suite-");
        try (ConfiguredDaemon a = ConfiguredDaemon.start(
                        "SharedReservationsPairTest-suite-A",
                        config(1, "active-optimized", 2, "active-non-optimized", shared));
                ConfiguredDaemon b = ConfiguredDaemon.start(
                        "SharedReservationsPairTest-suite-B",
                        config(2, "active-non-optimized", 1, "active-optimized", shared))) {
            Path dir = DaemonProcess.logDir();
            int passed = 0;
            for (String suite : SUITES) {
                ToolRun run = ToolRun.run(
                        dir.resolve("SharedReservationsPairTest-" + suite + ".log"),
                        Duration.ofMinutes(5),
                        List.of(
                                "iscsi-test-cu",
                                "--test=" + suite,
                                "--dataloss",
                                "--verbose",
                                a.target(IQN).lunUrl(),
                                b.target(IQN).lunUrl()));
                CuLogSummary summary = CuLogSummary.parse(Files.readAllLines(run.log(), StandardCharsets.ISO_8859_1));
                System.out.println(suite + ":\n" + summary.report());
                assertEquals(List.of(), summary.failures(), suite + "\n" + run.describe(30));
                passed += summary.count(CuLogSummary.Verdict.PASSED);
            }
            assertEquals(18, passed, "every test of the suites ran and passed");
            // the suites' second initiator logs in through the second URL: gateway B
            assertEquals(
                    false,
                    b.logLines("from iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test-2 ")
                            .isEmpty(),
                    "libiscsi's second initiator went through gateway B\n" + b.logTail());
            assertEquals(
                    true,
                    a.logLines("from iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test-2 ")
                            .isEmpty(),
                    "and not through A");
        } finally {
            try (Stream<Path> files = Files.list(shared)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(shared);
        }
    }

    /**
     * The suites whose second initiator uses the second URL. Not MultipathIO: it expects one store behind both paths
     * (what it writes through one it reads through the other) and a LUN reset's unit attention on both; the two
     * gateways here have a store each (the null store) and unit attentions stay per gateway.
     */
    static final List<String> SUITES =
            List.of("ALL.PrinReadKeys", "ALL.ProutRegister", "ALL.ProutReserve", "ALL.ProutClear", "ALL.ProutPreempt");

    private static TestConnection login(ConfiguredDaemon d, String initiator) throws IOException {
        IscsiTarget t = d.target(IQN);
        Map<String, String> keys = TestConnection.loginKeys(t);
        keys.put("InitiatorName", initiator);
        return TestConnection.loggedIn(t, keys, TestConnection.newIsidQualifier());
    }

    private static ScsiResult pastAttention(Callable<ScsiResult> command) throws Exception {
        ScsiResult r = command.call();
        for (int i = 0;
                i < 3 && r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == ScsiResult.UNIT_ATTENTION;
                i++) {
            r = command.call();
        }
        return r;
    }

    /** PERSISTENT RESERVE OUT with the 24-byte basic parameter list. */
    private static ScsiResult prOut(TestConnection c, int serviceAction, int type, long key, long serviceActionKey)
            throws IOException {
        byte[] cdb = {0x5F, (byte) serviceAction, (byte) type, 0, 0, 0, 0, 0, 24, 0};
        byte[] list = new byte[24];
        ByteBuffer.wrap(list).putLong(key).putLong(serviceActionKey);
        synchronized (c) {
            return RawIo.write(c, 0, cdb, list, LIMIT);
        }
    }

    private static byte[] prIn(TestConnection c, int serviceAction) throws Exception {
        ScsiResult r = pastAttention(() -> {
            synchronized (c) {
                int itt = c.newItt();
                c.send(c.scsiCommand(
                        0,
                        itt,
                        new byte[] {0x5E, (byte) serviceAction, 0, 0, 0, 0, 0, 1, 0, 0},
                        256,
                        TestConnection.READ_BIT,
                        true));
                return c.awaitStatus(itt, LIMIT);
            }
        });
        assertEquals(0, r.status(), "PERSISTENT RESERVE IN: " + r);
        return r.data();
    }

    private static long reservationKey(TestConnection c) throws Exception {
        byte[] d = prIn(c, 1);
        assertEquals(16, ByteBuffer.wrap(d).getInt(4), "a reservation is held");
        return ByteBuffer.wrap(d).getLong(8);
    }

    private static List<Long> keys(TestConnection c) throws Exception {
        byte[] d = prIn(c, 0);
        int length = ByteBuffer.wrap(d).getInt(4);
        List<Long> out = new ArrayList<>();
        for (int at = 8; at < 8 + length; at += 8) {
            out.add(ByteBuffer.wrap(d).getLong(at));
        }
        return out;
    }
}
