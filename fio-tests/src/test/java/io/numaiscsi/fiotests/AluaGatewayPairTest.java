package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two daemons on 127.0.0.1 export the same target name as the two halves of a gateway pair with implicit ALUA:
 * gateway A's port 1 in group 1 (active/optimized), gateway B's port 2 in group 2 (active/non-optimized). Through
 * each, INQUIRY reports TPGS 01b, REPORT TARGET PORT GROUPS (both formats) lists both groups with their configured
 * states and ports, VPD 83h carries that gateway's relative target port and group, the login reports the port as
 * TargetPortalGroupTag, and the LUN identity (serial, NAA) is the same on both, derived or configured; libiscsi's
 * iscsi-inq reads the same serial through both. SET TARGET PORT GROUPS is refused; reads and writes work on both
 * paths (both states are active).
 */
@Tag("it")
class AluaGatewayPairTest {
    static final String IQN = "iqn.2026-11.io.numaiscsi:ha-pair";
    static final Duration LIMIT = Duration.ofSeconds(30);

    private static String config(int group, String state, int peer, String peerState) {
        return "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    alua: {group: " + group + ", state: " + state + ", peers: [{group: " + peer + ", state: "
                + peerState + "}]}\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: 16M, serial: HA-PAIR-0001}\n"
                + "      - {id: 1, backing: null, size: 1G}\n";
    }

    @Test
    void bothGatewaysReportBothGroupsAndOneIdentity() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemons itself");
        try (ConfiguredDaemon a = ConfiguredDaemon.start(
                        "AluaGatewayPairTest-A", config(1, "active-optimized", 2, "active-non-optimized"));
                ConfiguredDaemon b = ConfiguredDaemon.start(
                        "AluaGatewayPairTest-B", config(2, "active-non-optimized", 1, "active-optimized"));
                TestConnection viaA = TestConnection.loggedIn(a.target(IQN));
                TestConnection viaB = TestConnection.loggedIn(b.target(IQN))) {
            assertEquals("1", viaA.negotiated().get("TargetPortalGroupTag"), "gateway A's TPGT is its port");
            assertEquals("2", viaB.negotiated().get("TargetPortalGroupTag"), "gateway B's TPGT is its port");
            for (int lun = 0; lun < 2; lun++) {
                Gateway ga = Gateway.read(viaA, lun);
                Gateway gb = Gateway.read(viaB, lun);
                assertEquals(0x10, ga.tpgs, "TPGS 01b through A");
                assertEquals(0x10, gb.tpgs, "TPGS 01b through B");
                assertEquals(ga.serial, gb.serial, "LUN " + lun + ": one serial on both gateways");
                assertEquals(ga.naa, gb.naa, "LUN " + lun + ": one NAA on both gateways");
                assertEquals(List.of(1, 1), List.of(ga.relativePort, ga.group), "A's VPD 83h: port 1, group 1");
                assertEquals(List.of(2, 2), List.of(gb.relativePort, gb.group), "B's VPD 83h: port 2, group 2");
                assertEquals(List.of("1:0:[1]", "2:1:[2]"), ga.groups, "A's RTPG: itself (optimized) first");
                assertEquals(List.of("2:1:[2]", "1:0:[1]"), gb.groups, "B's RTPG: itself (non-optimized) first");
            }
            assertEquals("HA-PAIR-0001", Gateway.read(viaA, 0).serial, "the configured serial");

            ScsiResult stpg = command(viaB, cdb(0xA4, 0x0A, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0), 0);
            assertEquals(
                    List.of(ScsiResult.CHECK_CONDITION, 5, 0x20),
                    List.of(stpg.status(), stpg.senseKey(), stpg.asc()),
                    "SET TARGET PORT GROUPS: ILLEGAL REQUEST (implicit ALUA only): " + stpg);

            byte[] block = ScsiCdb.pattern(512, 19);
            assertEquals(
                    ScsiResult.GOOD,
                    RawIo.write(viaB, 0, 8, block, false, LIMIT).status(),
                    "a WRITE through the non-optimized path");
            ScsiResult back = RawIo.read(viaB, 0, 8, 1, LIMIT);
            assertArrayEquals(block, back.data(), "and read back through it");
            assertEquals(
                    ScsiResult.GOOD, RawIo.read(viaA, 0, 8, 1, LIMIT).status(), "a READ through the optimized path");

            for (ConfiguredDaemon d : List.of(a, b)) {
                IscsiTarget t = d.target(IQN);
                String url = "iscsi://" + t.host() + ":" + t.port() + "/" + IQN + "/0";
                ToolRun inq = ToolRun.run(
                        DaemonProcess.logDir().resolve("AluaGatewayPairTest-iscsi-inq-" + t.port() + ".log"),
                        LIMIT,
                        List.of("iscsi-inq", "-e", "1", "-c", "128", url));
                assertEquals(0, inq.exitCode(), inq.describe(20));
                assertTrue(
                        inq.output().contains("HA-PAIR-0001"),
                        "iscsi-inq reads the serial through port " + t.port() + "\n" + inq.describe(20));
                ToolRun ids = ToolRun.run(
                        DaemonProcess.logDir().resolve("AluaGatewayPairTest-iscsi-inq-83-" + t.port() + ".log"),
                        LIMIT,
                        List.of("iscsi-inq", "-e", "1", "-c", "131", url));
                assertEquals(0, ids.exitCode(), ids.describe(40));
                // the NAA designator is printed as raw bytes: read the output as Latin-1
                String idsText = Files.readString(ids.log(), StandardCharsets.ISO_8859_1);
                assertTrue(
                        idsText.contains("Designator Type:(5) TARGET_PORT_GROUP")
                                && idsText.contains("Designator Type:(4) RELATIVE_TARGET_PORT"),
                        "iscsi-inq decodes the target port group " + "designator\n" + ids.describe(60));
            }
            a.assertAlive();
            b.assertAlive();
        }
    }

    /**
     * libiscsi's whole suite through an ALUA gateway (group 2, active/non-optimized, its RAM LUN): TPGS 01b, the
     * REPORT TARGET PORT GROUPS entry of REPORT SUPPORTED OPERATION CODES and the extra designator break none of it.
     */
    @Test
    void theConformanceSuitePassesThroughAnAluaGateway() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        try (ConfiguredDaemon b = ConfiguredDaemon.start(
                "AluaGatewayPairTest-suite", config(2, "active-non-optimized", 1, "active-optimized"))) {
            CuLogSummary suite = ConformanceRun.runAndAssert(
                    b.target(IQN),
                    "ALL",
                    b::logTail,
                    "AluaGatewayPairTest-iscsi-test-cu.log",
                    "AluaGatewayPairTest-conformance-summary.txt");
            assertTrue(suite.count(CuLogSummary.Verdict.PASSED) > 100, "the suite ran: " + suite.report());
            b.assertAlive();
        }
    }

    /** What one gateway reports about one LUN. */
    private record Gateway(int tpgs, String serial, long naa, int relativePort, int group, List<String> groups) {
        static Gateway read(TestConnection c, int lun) throws Exception {
            byte[] std = good(c, lun, cdb(0x12, 0, 0, 0, 0xFF, 0), 255);
            byte[] serialPage = good(c, lun, cdb(0x12, 1, 0x80, 0, 0xFF, 0), 255);
            String serial = new String(serialPage, 4, u16(serialPage, 2), StandardCharsets.US_ASCII);
            byte[] ids = good(c, lun, cdb(0x12, 1, 0x83, 0x01, 0, 0), 256);
            long naa = 0;
            int port = -1;
            int group = -1;
            for (int at = 4; at + 4 <= ids.length; at += 4 + (ids[at + 3] & 0xFF)) {
                int type = ids[at + 1] & 0x0F;
                int association = (ids[at + 1] >> 4) & 0x03;
                if (type == 3 && association == 0) {
                    naa = ByteBuffer.wrap(ids, at + 4, 8).getLong();
                } else if (type == 4 && association == 1) {
                    port = u16(ids, at + 6);
                } else if (type == 5 && association == 1) {
                    group = u16(ids, at + 6);
                }
            }
            List<String> lengthOnly =
                    TargetPortGroupsReport.groups(good(c, lun, cdb(0xA3, 0x0A, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0), 256), 4);
            byte[] extended = good(c, lun, cdb(0xA3, 0x2A, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0), 256);
            assertEquals(0x10, extended[4] & 0x70, "extended header: FORMAT TYPE 001b");
            assertEquals(lengthOnly, TargetPortGroupsReport.groups(extended, 8), "both formats list the same groups");
            return new Gateway(std[5] & 0x30, serial, naa, port, group, lengthOnly);
        }
    }

    private static byte[] good(TestConnection c, int lun, byte[] cdb, int allocation) throws Exception {
        ScsiResult r = RawIo.pastUnitAttention(() -> command(c, lun, cdb, allocation));
        assertEquals(ScsiResult.GOOD, r.status(), String.format("opcode 0x%02x: %s", cdb[0], r));
        return r.data();
    }

    private static ScsiResult command(TestConnection c, byte[] cdb, int allocation) throws IOException {
        return command(c, 0, cdb, allocation);
    }

    private static ScsiResult command(TestConnection c, int lun, byte[] cdb, int allocation) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, cdb, allocation, allocation > 0 ? TestConnection.READ_BIT : 0, true));
        return c.awaitStatus(itt, LIMIT);
    }

    private static byte[] cdb(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return b;
    }

    private static int u16(byte[] d, int at) {
        return (d[at] & 0xFF) << 8 | (d[at + 1] & 0xFF);
    }
}
