package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
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
 * READ RESERVATION through B names 1's key; 2 PREEMPTs through B, after which 1's WRITE through A conflicts and 2's
 * through B succeeds. Then, rounds of RESERVE sent at once through A and B (after a CLEAR): each round exactly one
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
        return "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    alua: {group: " + group + ", state: " + state + ", peers: [{group: " + peer + ", state: "
                + peerState + "}]}\n"
                + "    shared-reservations: {backend: file, directory: " + shared + "}\n"
                + "    luns:\n"
                + "      - {id: 0, backing: null, size: 1G}\n";
    }

    @Test
    void aReservationTakenThroughOneGatewayIsEnforcedThroughTheOther() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemons itself");
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "needs /dev/shm");
        Path shared = Files.createTempDirectory(shm, "numa-iscsi-pr-pair-");
        try (ConfiguredDaemon a = ConfiguredDaemon.start("SharedReservationsPairTest-A",
                config(1, "active-optimized", 2, "active-non-optimized", shared));
             ConfiguredDaemon b = ConfiguredDaemon.start("SharedReservationsPairTest-B",
                     config(2, "active-non-optimized", 1, "active-optimized", shared));
             TestConnection oneViaA = login(a, ONE);
             TestConnection twoViaB = login(b, TWO)) {
            assertEquals(0, prOut(oneViaA, 0, 0, 0, 0xA1).status(), "REGISTER 1 through A");
            assertEquals(0, prOut(twoViaB, 0, 0, 0, 0xB2).status(), "REGISTER 2 through B");
            assertEquals(0, prOut(oneViaA, 1, WRITE_EXCLUSIVE, 0xA1, 0).status(), "RESERVE 1 through A");

            byte[] block = ScsiCdb.pattern(512, 5);
            assertEquals(0x18, RawIo.write(twoViaB, 0, 0, block, false, LIMIT).status(),
                    "a WRITE of the non-holder through the other gateway: RESERVATION CONFLICT");
            assertEquals(0xA1, reservationKey(twoViaB), "READ RESERVATION through B: 1's key");
            assertEquals(List.of(0xA1L, 0xB2L), keys(twoViaB), "READ KEYS through B: both registrations");

            assertEquals(0, prOut(twoViaB, 4, WRITE_EXCLUSIVE, 0xB2, 0xA1).status(), "PREEMPT through B");
            assertEquals(0x18, RawIo.write(oneViaA, 0, 0, block, false, LIMIT).status(),
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
                    assertEquals(0, pastAttention(() -> prOut(twoViaB, 3, 0, 0xB2, 0)).status(), "CLEAR through B");
                    assertEquals(0, pastAttention(() -> prOut(twoViaB, 0, 0, 0, 0xB2)).status(), "REGISTER 2");
                    assertEquals(0, pastAttention(() -> prOut(oneViaA, 0, 0, 0, 0xA1)).status(), "REGISTER 1");
                    Future<ScsiResult> viaA = two.submit(() -> prOut(oneViaA, 1, WRITE_EXCLUSIVE, 0xA1, 0));
                    Future<ScsiResult> viaB = two.submit(() -> prOut(twoViaB, 1, WRITE_EXCLUSIVE, 0xB2, 0));
                    int sa = viaA.get().status();
                    int sb = viaB.get().status();
                    assertEquals(List.of(0, 0x18), Stream.of(sa, sb).sorted().toList(),
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
            int lostRaces = a.logLines("decided again").size() + b.logLines("decided again").size();
            System.out.println("SharedReservationsPairTest: concurrent RESERVE rounds won through A " + winsA
                    + ", through B " + winsB + "; OUTs that lost the compare-and-swap and were decided again: "
                    + lostRaces);
            a.assertAlive();
            b.assertAlive();
        } finally {
            try (Stream<Path> files = Files.list(shared)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(shared);
        }
    }

    private static TestConnection login(ConfiguredDaemon d, String initiator) throws IOException {
        IscsiTarget t = d.target(IQN);
        Map<String, String> keys = TestConnection.loginKeys(t);
        keys.put("InitiatorName", initiator);
        return TestConnection.loggedIn(t, keys, TestConnection.newIsidQualifier());
    }

    private static ScsiResult pastAttention(Callable<ScsiResult> command) throws Exception {
        ScsiResult r = command.call();
        for (int i = 0; i < 3 && r.status() == ScsiResult.CHECK_CONDITION && r.senseKey() == ScsiResult.UNIT_ATTENTION;
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
        java.nio.ByteBuffer.wrap(list).putLong(key).putLong(serviceActionKey);
        synchronized (c) {
            return RawIo.write(c, 0, cdb, list, LIMIT);
        }
    }

    private static byte[] prIn(TestConnection c, int serviceAction) throws Exception {
        ScsiResult r = pastAttention(() -> {
            synchronized (c) {
                int itt = c.newItt();
                c.send(c.scsiCommand(0, itt, new byte[] {0x5E, (byte) serviceAction, 0, 0, 0, 0, 0, 1, 0, 0}, 256,
                        TestConnection.READ_BIT, true));
                return c.awaitStatus(itt, LIMIT);
            }
        });
        assertEquals(0, r.status(), "PERSISTENT RESERVE IN: " + r);
        return r.data();
    }

    private static long reservationKey(TestConnection c) throws Exception {
        byte[] d = prIn(c, 1);
        assertEquals(16, java.nio.ByteBuffer.wrap(d).getInt(4), "a reservation is held");
        return java.nio.ByteBuffer.wrap(d).getLong(8);
    }

    private static List<Long> keys(TestConnection c) throws Exception {
        byte[] d = prIn(c, 0);
        int length = java.nio.ByteBuffer.wrap(d).getInt(4);
        List<Long> out = new ArrayList<>();
        for (int at = 8; at < 8 + length; at += 8) {
            out.add(java.nio.ByteBuffer.wrap(d).getLong(at));
        }
        return out;
    }
}
