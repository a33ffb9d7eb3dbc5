package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Access lists per target: by initiator name ({@code allow}) and by source network ({@code allow-networks}). A
 * refused login gets Status 02/02 (authorization failure) and one daemon log line with the reason; SendTargets
 * lists only the targets the initiator may reach; libiscsi logs in where it is allowed.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AclTest {
    static final Duration ANSWER = Duration.ofSeconds(5);
    static final Duration LIMIT = Duration.ofSeconds(60);
    static final String BY_NAME = "iqn.2026-11.io.numaiscsi:by-name";
    static final String LOOPBACK_NET = "iqn.2026-11.io.numaiscsi:loopback-net";
    static final String OTHER_NET = "iqn.2026-11.io.numaiscsi:other-net";
    static final String ALLOWED = "iqn.2026-11.io.numaiscsi:allowed-host";

    private ConfiguredDaemon daemon;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon config");
        daemon = ConfiguredDaemon.start(
                "AclTest",
                "targets:\n"
                        + "  - name: " + BY_NAME + "\n    allow: [" + ALLOWED + "]\n"
                        + "    luns: [{id: 0, backing: ram, size: 16M}]\n"
                        + "  - name: " + LOOPBACK_NET + "\n    allow-networks: [127.0.0.0/8]\n"
                        + "    luns: [{id: 0, backing: ram, size: 16M}]\n"
                        + "  - name: " + OTHER_NET + "\n    allow-networks: [10.0.0.0/8, \"fd00::/8\"]\n"
                        + "    luns: [{id: 0, backing: ram, size: 16M}]\n");
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private TestPdu login(String iqn, String initiatorName) throws Exception {
        try (TestConnection c = TestConnection.open(daemon.target(iqn))) {
            Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(daemon.target(iqn)));
            keys.put("InitiatorName", initiatorName);
            TestPdu rsp = c.attemptLogin(keys, TestConnection.newIsidQualifier());
            assertNotNull(rsp, "no login response\ntrace: " + c.trace());
            if (rsp.byteAt(36) != 0) {
                assertNull(c.read(ANSWER), "the target closes after a refused login");
            }
            return rsp;
        }
    }

    private static int status(TestPdu rsp) {
        return rsp.byteAt(36) << 8 | rsp.byteAt(37);
    }

    @Test
    void initiatorNameNotAllowedGetsAuthorizationFailure() throws Exception {
        assertEquals(0x0202, status(login(BY_NAME, "iqn.2026-11.io.numaiscsi:stranger")));
        List<String> lines = daemon.awaitLogLines("iqn.2026-11.io.numaiscsi:stranger is not in the allow list", 1);
        assertEquals(1, lines.size(), daemon.logTail());
        assertTrue(lines.get(0).contains("rejected"), lines.get(0));
        assertEquals(0, status(login(BY_NAME, ALLOWED)), "the allowed initiator logs in");
        assertEquals(
                0,
                status(login(BY_NAME, ALLOWED.toUpperCase().replace("IQN.", "iqn."))),
                "names compare case-insensitively");
    }

    @Test
    void sourceNetworkOutsideTheListGetsAuthorizationFailure() throws Exception {
        assertEquals(0, status(login(LOOPBACK_NET, TestConnection.INITIATOR_NAME)), "127.0.0.1 is in 127.0.0.0/8");
        assertEquals(0x0202, status(login(OTHER_NET, TestConnection.INITIATOR_NAME)));
        List<String> lines = daemon.awaitLogLines("outside the allow-networks", 1);
        assertEquals(1, lines.size(), daemon.logTail());
        assertTrue(lines.get(0).contains("127.0.0.1") && lines.get(0).contains("10.0.0.0/8"), lines.get(0));
    }

    @Test
    void sendTargetsListsOnlyReachableTargetsAndLibiscsiLogsIn() throws Exception {
        IscsiTarget portal = daemon.target(LOOPBACK_NET);
        ToolRun ls = ToolRun.run(
                DaemonProcess.logDir().resolve("AclTest-iscsi-ls.log"),
                LIMIT,
                List.of("iscsi-ls", "-i", ALLOWED, portal.portalUrl()));
        String out = ls.output();
        String context = "\n" + ls.describe(20) + "\n" + daemon.logTail();
        assertTrue(out.contains("Target:" + LOOPBACK_NET), "reachable target listed" + context);
        assertTrue(out.contains("Target:" + BY_NAME), "target allowing this initiator listed" + context);
        assertFalse(out.contains("Target:" + OTHER_NET), "a target of another network is hidden" + context);
        ToolRun inq = ToolRun.run(
                DaemonProcess.logDir().resolve("AclTest-iscsi-inq.log"),
                LIMIT,
                List.of("iscsi-inq", "-i", ALLOWED, daemon.target(BY_NAME).lunUrl()));
        assertEquals(0, inq.exitCode(), "iscsi-inq as the allowed initiator\n" + inq.describe(20));
        ToolRun refused = ToolRun.run(
                DaemonProcess.logDir().resolve("AclTest-iscsi-inq-refused.log"),
                LIMIT,
                List.of(
                        "iscsi-inq",
                        "-i",
                        "iqn.2026-11.io.numaiscsi:someone-else",
                        daemon.target(BY_NAME).lunUrl()));
        assertTrue(refused.exitCode() != 0, "iscsi-inq as another initiator must fail\n" + refused.describe(20));
        daemon.assertAlive();
    }
}
