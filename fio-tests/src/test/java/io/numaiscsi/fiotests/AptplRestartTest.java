package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Persistent reservations with APTPL across daemon restarts (SPC-4 5.13.4.2), as clusters use them (Windows failover
 * clustering, Pacemaker's fence_scsi): the registrations and the reservation made with APTPL=1 are there again after a
 * clean restart and after a SIGKILL that came right after the GOOD status; the initiator that logs in again with the
 * same name and ISID is the registered I_T nexus; REGISTER AND MOVE hands the reservation to another initiator port
 * by its TransportID; APTPL=0 lets them go.
 */
@Tag("it")
class AptplRestartTest {
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final int LUN = 0;
    private static final long KEY_A = 0xA1A1L;
    private static final long KEY_B = 0xB2B2L;
    private static final int WRITE_EXCLUSIVE = 1;
    private static final int RESERVATION_CONFLICT = 0x18;
    private static final String NODE_A = "iqn.2026-11.io.numaiscsi:cluster-node-a";
    private static final String NODE_B = "iqn.2026-11.io.numaiscsi:cluster-node-b";

    private static Map<String, String> keysOf(IscsiTarget target, String initiator) {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(target));
        keys.put("InitiatorName", initiator);
        return keys;
    }

    private static byte[] proutList(long key, long serviceActionKey, boolean aptpl) {
        byte[] p = new byte[24];
        for (int i = 0; i < 8; i++) {
            p[7 - i] = (byte) (key >>> (8 * i));
            p[15 - i] = (byte) (serviceActionKey >>> (8 * i));
        }
        p[20] = (byte) (aptpl ? 1 : 0);
        return p;
    }

    /** A PR OUT with its parameter list as immediate data; returns the status, past a unit attention. */
    private static ScsiResult prout(TestConnection c, int serviceAction, int type, long key, long sak, boolean aptpl)
            throws IOException {
        byte[] cdb = {0x5F, (byte) serviceAction, (byte) type, 0, 0, 0, 0, 0, 24, 0};
        return RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(LUN, itt, cdb, 24, TestConnection.WRITE_BIT, true)
                    .data(proutList(key, sak, aptpl)));
            return c.awaitStatus(itt, ANSWER);
        });
    }

    private static void proutGood(TestConnection c, int serviceAction, int type, long key, long sak, boolean aptpl)
            throws IOException {
        ScsiResult r = prout(c, serviceAction, type, key, sak, aptpl);
        assertEquals(ScsiResult.GOOD, r.status(), "PR OUT service action " + serviceAction + ": " + r);
    }

    private static ScsiResult write(TestConnection c, long lba, int seed) throws IOException {
        return RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(LUN, itt, ScsiCdb.write10(lba, 1), 512, TestConnection.WRITE_BIT, true)
                    .data(ScsiCdb.pattern(512, seed)));
            return c.awaitStatus(itt, ANSWER);
        });
    }

    /**
     * REGISTER AND MOVE with APTPL to the initiator port {@code initiator} with the ISID {@link TestConnection} gives
     * {@code isidQualifier} (type 80h, qualifier in its last three bytes), through relative target port 1.
     */
    private static ScsiResult registerAndMove(
            TestConnection c, long key, long newKey, String initiator, int isidQualifier) throws IOException {
        long isid = 0x80L << 40 | (isidQualifier & 0xFFFFFFL);
        byte[] name = String.format("%s,i,0x%012x", initiator, isid).getBytes(StandardCharsets.UTF_8);
        int idLength = 4 + ((name.length + 1 + 3) & ~3);
        byte[] p = new byte[24 + idLength];
        System.arraycopy(proutList(key, newKey, false), 0, p, 0, 16);
        p[17] = 0x01; // APTPL
        p[19] = 1; // relative target port 1 (TPGT 1)
        p[23] = (byte) idLength;
        p[24] = 0x45; // format 01b, iSCSI
        p[27] = (byte) (idLength - 4);
        System.arraycopy(name, 0, p, 28, name.length);
        byte[] cdb = {0x5F, 7, 0, 0, 0, 0, 0, 0, (byte) p.length, 0};
        return RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(LUN, itt, cdb, p.length, TestConnection.WRITE_BIT, true)
                    .data(p));
            return c.awaitStatus(itt, ANSWER);
        });
    }

    /** PERSISTENT RESERVE IN with {@code serviceAction}; returns its data. */
    private static byte[] prin(TestConnection c, int serviceAction) throws IOException {
        byte[] cdb = {0x5E, (byte) serviceAction, 0, 0, 0, 0, 0, 1, 0, 0};
        ScsiResult r = RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(LUN, itt, cdb, 256, TestConnection.READ_BIT, true));
            return c.awaitStatus(itt, ANSWER);
        });
        assertEquals(ScsiResult.GOOD, r.status(), "PR IN " + serviceAction + ": " + r);
        return r.data();
    }

    private static long u64(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[at + i] & 0xFF);
        }
        return v;
    }

    private static int u32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    private static Path reservationFile(RestartableDaemon d) {
        return d.dataDir()
                .resolve("reservations")
                .resolve(IscsiTarget.DEFAULT_IQN)
                .resolve("lun-" + LUN + ".json");
    }

    @Test
    void registrationsAndTheReservationOutliveRestartsAndAKill() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "restarts its own daemon");
        try (RestartableDaemon daemon =
                RestartableDaemon.start("AptplRestartTest", DaemonProcess.Setup.fileLun(16L << 20))) {
            IscsiTarget target = daemon.target();
            int isidA = TestConnection.newIsidQualifier();
            int isidB = TestConnection.newIsidQualifier();
            try (TestConnection a = TestConnection.loggedIn(target, keysOf(target, NODE_A), isidA)) {
                proutGood(a, 0, 0, 0, KEY_A, true); // REGISTER, APTPL=1
                proutGood(a, 1, WRITE_EXCLUSIVE, KEY_A, 0, false); // RESERVE
                byte[] caps = prin(a, 2);
                assertEquals(1, caps[2] & 1, "PTPL_C");
                assertEquals(1, caps[3] & 1, "PTPL_A");
            }
            assertTrue(Files.isRegularFile(reservationFile(daemon)), "the state is in " + reservationFile(daemon));

            assertEquals(0, daemon.restart(), "clean stop");
            try (TestConnection a = TestConnection.loggedIn(target, keysOf(target, NODE_A), isidA);
                    TestConnection stranger = TestConnection.loggedIn(target, keysOf(target, NODE_B), isidB)) {
                assertEquals(
                        RESERVATION_CONFLICT,
                        write(stranger, 1, 1).status(),
                        "an unregistered initiator meets the reservation after the restart");
                assertEquals(
                        ScsiResult.GOOD, write(a, 1, 2).status(), "the holder's nexus (same name and ISID) writes");
                byte[] reservation = prin(stranger, 1);
                assertEquals(16, u32(reservation, 4), "a reservation is held");
                assertEquals(KEY_A, u64(reservation, 8));
                assertEquals(WRITE_EXCLUSIVE, reservation[21] & 0x0F);
                assertEquals(1, prin(stranger, 2)[3] & 1, "PTPL_A after the restart");

                // A hands the reservation to B's nexus (REGISTER AND MOVE, which registers B), B preempts A;
                // the daemon dies right after the GOOD status
                ScsiResult moved = registerAndMove(a, KEY_A, KEY_B, NODE_B, isidB);
                assertEquals(ScsiResult.GOOD, moved.status(), "REGISTER AND MOVE to B: " + moved);
                assertEquals(ScsiResult.GOOD, write(stranger, 1, 3).status(), "B holds it now");
                proutGood(stranger, 4, WRITE_EXCLUSIVE, KEY_B, KEY_A, false); // PREEMPT A
            }
            assertEquals(137, daemon.killAndRestart(), "SIGKILL");
            try (TestConnection a = TestConnection.loggedIn(target, keysOf(target, NODE_A), isidA);
                    TestConnection b = TestConnection.loggedIn(target, keysOf(target, NODE_B), isidB)) {
                assertEquals(RESERVATION_CONFLICT, write(a, 2, 3).status(), "A was preempted before the kill");
                assertEquals(ScsiResult.GOOD, write(b, 2, 4).status(), "B holds the reservation after the kill");
                byte[] keys = prin(a, 0);
                assertEquals(8, u32(keys, 4), "one registration");
                assertEquals(KEY_B, u64(keys, 8));

                proutGood(b, 0, 0, KEY_B, KEY_B, false); // REGISTER, APTPL=0: nothing persists now
                assertFalse(Files.exists(reservationFile(daemon)), "APTPL=0 removes " + reservationFile(daemon));
            }
            assertEquals(0, daemon.restart());
            try (TestConnection a = TestConnection.loggedIn(target, keysOf(target, NODE_A), isidA)) {
                assertEquals(ScsiResult.GOOD, write(a, 3, 5).status(), "no reservation survives APTPL=0");
                assertEquals(0, u32(prin(a, 0), 4), "no registration either");
            }
            daemon.assertAlive();
        }
    }

    @Test
    void aReservationFileThatMakesNoSenseStopsTheStartNamingIt() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        Path dir = ItDataDirs.newDir("AptplRestartTest-corrupt");
        Path file = dir.resolve("reservations").resolve(IscsiTarget.DEFAULT_IQN).resolve("lun-0.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"format\": 1, \"target\": \"" + IscsiTarget.DEFAULT_IQN + "\", \"lun\": 0,");
        Path config = dir.resolve("target.yaml");
        Files.writeString(
                config,
                "daemon:\n  data-dir: " + dir + "\n"
                        + "portals: [127.0.0.1:" + DaemonProcess.freeLoopbackPort() + "]\n"
                        + "targets:\n  - name: " + IscsiTarget.DEFAULT_IQN + "\n"
                        + "    luns:\n      - {id: 0, backing: ram, size: 1M}\n");
        ToolRun r = ToolRun.run(
                DaemonProcess.logDir().resolve("AptplRestartTest-corrupt.log"),
                Duration.ofSeconds(60),
                DaemonProcess.command(
                        "AptplRestartTest-corrupt", List.of("--config", config.toString(), "--admin-socket", "off")));
        assertEquals(1, r.exitCode(), r.describe(20));
        assertTrue(r.output().contains("cannot start") && r.output().contains(file.toString()), r.describe(20));
    }

    @Test
    void removingTheLunThroughTheAdminApiRemovesItsFile() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        try (RestartableDaemon daemon = RestartableDaemon.start(
                "AptplRestartTest-remove",
                DaemonProcess.Setup.fileLun(16L << 20).ramLun(1, 8L << 20))) {
            IscsiTarget target = daemon.target();
            Path lun1 = reservationFile(daemon).resolveSibling("lun-1.json");
            try (TestConnection a =
                    TestConnection.loggedIn(target, keysOf(target, NODE_A), TestConnection.newIsidQualifier())) {
                byte[] cdb = {0x5F, 0, 0, 0, 0, 0, 0, 0, 24, 0};
                ScsiResult r = RawIo.pastUnitAttention(() -> {
                    int itt = a.newItt();
                    a.send(a.scsiCommand(1, itt, cdb, 24, TestConnection.WRITE_BIT, true)
                            .data(proutList(0, KEY_A, true)));
                    return a.awaitStatus(itt, ANSWER);
                });
                assertEquals(ScsiResult.GOOD, r.status(), "REGISTER with APTPL on LUN 1: " + r);
            }
            assertTrue(Files.isRegularFile(lun1), lun1.toString());
            new AdminCliRun("AptplRestartTest", daemon.dataDir().resolve("admin.sock"))
                    .ok("lun-remove", IscsiTarget.DEFAULT_IQN, "--id", "1");
            assertFalse(Files.exists(lun1), "lun-remove removes " + lun1);
            daemon.assertAlive();
        }
    }
}
