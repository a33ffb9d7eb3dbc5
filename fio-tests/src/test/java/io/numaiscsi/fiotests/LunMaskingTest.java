package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * LUN masking with real initiators on one target of three LUNs: libiscsi's initiators see only LUN 1, as their LUN 0,
 * and run the whole conformance suite through that view; a second host sees LUNs 0 and 2; an initiator named nowhere
 * sees nothing. A reload that changes the second host's view gives its session REPORTED LUNS DATA HAS CHANGED and
 * leaves the other sessions alone.
 */
@Tag("it")
class LunMaskingTest {
    static final String IQN = "iqn.2026-11.io.numaiscsi:masked";
    static final String LIBISCSI = "iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test";
    static final String LIBISCSI_2 = "iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test-2";
    static final String HOST = "iqn.2026-11.io.numaiscsi:host-two";
    static final String STRANGER = "iqn.2026-11.io.numaiscsi:stranger";
    static final Duration LIMIT = Duration.ofSeconds(30);

    private static String config(String hostLuns) {
        return "targets:\n"
                + "  - name: " + IQN + "\n"
                + "    luns:\n"
                + "      - {id: 0, backing: ram, size: 16M}\n"
                + "      - {id: 1, backing: file, path: masked-1.img, size: 1G}\n"
                + "      - {id: 2, backing: ram, size: 16M}\n"
                + "    lun-maps:\n"
                + "      - {initiators: [" + LIBISCSI + ", " + LIBISCSI_2 + "], luns: [{lun: 1, as: 0}]}\n"
                + "      - {initiators: [" + HOST + "], luns: [" + hostLuns + "]}\n";
    }

    private static TestConnection login(ConfiguredDaemon d, String initiator) throws IOException {
        IscsiTarget t = d.target(IQN);
        Map<String, String> keys = TestConnection.loginKeys(t);
        keys.put("InitiatorName", initiator);
        return TestConnection.loggedIn(t, keys, TestConnection.newIsidQualifier());
    }

    /** One TEST UNIT READY, its status as it comes (a unit attention included). */
    private static ScsiResult testUnitReadyOnce(TestConnection c, int lun) throws IOException {
        int itt = c.newItt();
        c.send(c.scsiCommand(lun, itt, ScsiCdb.testUnitReady(), 0, 0, true));
        return c.awaitStatus(itt, LIMIT);
    }

    private static List<Integer> reportLuns(TestConnection c) throws Exception {
        ScsiResult r = RawIo.pastUnitAttention(() -> {
            int itt = c.newItt();
            c.send(c.scsiCommand(
                    0,
                    itt,
                    new byte[] {(byte) 0xA0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
                    256,
                    TestConnection.READ_BIT,
                    true));
            return c.awaitStatus(itt, LIMIT);
        });
        assertEquals(0, r.status(), "REPORT LUNS: " + r);
        byte[] d = r.data();
        int length = ByteBuffer.wrap(d).getInt(0);
        List<Integer> luns = new ArrayList<>();
        for (int at = 8; at < 8 + length; at += 8) {
            luns.add(((d[at] & 0x3F) << 8) | (d[at + 1] & 0xFF));
        }
        return luns;
    }

    @Test
    void eachInitiatorSeesItsViewAndTheSuitePassesThroughOne() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "runs the daemon itself");
        try (ConfiguredDaemon d = ConfiguredDaemon.start("LunMaskingTest", config("0, 2"));
                TestConnection host = login(d, HOST);
                TestConnection suiteInitiator = login(d, LIBISCSI);
                TestConnection stranger = login(d, STRANGER)) {
            assertEquals(List.of(0, 2), reportLuns(host), "the second host's view");
            assertEquals(List.of(0), reportLuns(suiteInitiator), "libiscsi's view: LUN 1 as 0");
            assertEquals(List.of(), reportLuns(stranger), "an initiator no map names sees nothing");
            ScsiResult unmapped = RawIo.read(host, 1, 0, 1, LIMIT);
            assertEquals(
                    List.of(ScsiResult.CHECK_CONDITION, 0x5, 0x25, 0x00),
                    List.of(unmapped.status(), unmapped.senseKey(), unmapped.asc(), unmapped.ascq()),
                    "a READ of a LUN outside the view: ILLEGAL" + " REQUEST, LOGICAL UNIT NOT SUPPORTED");

            d.reload(config("2"));
            ScsiResult told = testUnitReadyOnce(host, 2);
            assertEquals(
                    List.of(ScsiResult.CHECK_CONDITION, ScsiResult.UNIT_ATTENTION, 0x3F, 0x0E),
                    List.of(told.status(), told.senseKey(), told.asc(), told.ascq()),
                    "REPORTED LUNS DATA HAS CHANGED");
            assertEquals(List.of(2), reportLuns(host), "the new view");
            assertEquals(
                    0,
                    testUnitReadyOnce(suiteInitiator, 0).status(),
                    "a session whose view did not change is not told");
        }
        try (ConfiguredDaemon d = ConfiguredDaemon.start("LunMaskingTest-suite", config("0, 2"))) {
            ConformanceRun.runAndAssert(
                    d.target(IQN), "ALL", d::logTail, "iscsi-test-cu-masked.log", "conformance-masked-summary.txt");
            d.assertAlive();
        }
    }
}
