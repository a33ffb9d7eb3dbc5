package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.config.NetworkRange;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.login.ChapSecret;
import io.numaiscsi.proto.login.KeyValue;
import io.numaiscsi.proto.login.LoginVerdict;
import io.numaiscsi.proto.login.SessionType;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.proto.transport.RemoteAddresses;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Access lists, CHAP choice and session limits at the daemon's login glue, over a fake transport. */
class ConnectionLoginTest {
    private static final String INITIATOR = "iqn.2026-11.test:host";
    private static final String OPEN = "iqn.2026-11.test:open";
    private static final String LOCKED = "iqn.2026-11.test:locked";
    private static final String SECRET = "sixteen-byte-pwd";

    private FakeTransport transport;

    private static ScsiTarget scsi(String name) {
        return new ScsiTarget(
                name,
                List.of(new LogicalUnit(0, LunIdentity.derive(name, 0, null), new RamBlockDevice(1 << 20, 512))),
                UnpooledByteBufAllocator.DEFAULT);
    }

    private static TargetDirectory directory() {
        ExportedTarget open = new ExportedTarget(OPEN, null, List.of(), scsi(OPEN));
        ExportedTarget locked = new ExportedTarget(
                LOCKED,
                null,
                List.of(INITIATOR),
                scsi(LOCKED),
                new ChapAccount(new ChapSecret("user", SECRET.getBytes(StandardCharsets.UTF_8)), null),
                List.of(NetworkRange.parse("10.0.0.0/8")));
        return new TargetDirectory(List.of(open, locked));
    }

    private static SessionSettings settings(ChapAccounts accounts) {
        return new SessionSettings(
                TargetLimits.defaults(),
                16,
                Duration.ZERO,
                Duration.ZERO,
                List.of("0.0.0.0:3260"),
                1,
                LimitsSettings.DEFAULT,
                accounts);
    }

    private ConnectionLogin login(String remote, SessionTable sessions, ChapAccounts accounts) {
        transport = new FakeTransport(remote);
        return new ConnectionLogin(transport, settings(accounts), directory(), sessions);
    }

    @AfterEach
    void release() {
        if (transport != null) {
            transport.release();
        }
    }

    /** A Login Request PDU: T=1 from {@code csg} to {@code nsg}. */
    static Pdu request(int csg, int nsg, long isid, Map<String, String> keys) {
        StringBuilder text = new StringBuilder();
        keys.forEach((k, v) -> text.append(k).append('=').append(v).append('\0'));
        byte[] data = text.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuf bhs = Unpooled.buffer(48, 48).writeZero(48);
        bhs.setByte(0, 0x40 | 0x03);
        bhs.setByte(1, 0x80 | csg << 2 | nsg);
        bhs.setMedium(5, data.length);
        for (int i = 0; i < 6; i++) {
            bhs.setByte(8 + i, (int) (isid >>> (40 - 8 * i)));
        }
        bhs.setInt(16, 1);
        bhs.setInt(24, 1);
        return Pdu.newInstance(bhs, null, data.length == 0 ? null : Unpooled.wrappedBuffer(data));
    }

    static Map<String, String> keys(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private LoginVerdict send(ConnectionLogin login, Pdu pdu) {
        try {
            LoginVerdict verdict = login.onLoginRequest(pdu);
            login.respond();
            return verdict;
        } finally {
            pdu.release();
        }
    }

    private int status() {
        ByteBuf rsp = transport.last();
        return rsp.getUnsignedByte(36) << 8 | rsp.getUnsignedByte(37);
    }

    private String responseValue(String key) {
        ByteBuf rsp = transport.last();
        int length = rsp.getMedium(5);
        String text = rsp.toString(48, length, StandardCharsets.UTF_8);
        for (String pair : text.split("\0")) {
            if (pair.startsWith(key + "=")) {
                return pair.substring(key.length() + 1);
            }
        }
        return null;
    }

    @Test
    void initiatorOutsideTheAllowedNetworksGetsAuthorizationFailure() {
        ConnectionLogin login = login("192.168.1.5:40000", new SessionTable(), ChapAccounts.NONE);
        LoginVerdict v = send(
                login, request(0, 1, 1, keys("InitiatorName", INITIATOR, "TargetName", LOCKED, "AuthMethod", "CHAP")));
        assertEquals(LoginVerdict.FAIL, v);
        assertEquals(0x0202, status());
        assertTrue(login.failureReason().contains("192.168.1.5:40000"), login.failureReason());
        assertTrue(login.failureReason().contains("10.0.0.0/8"), login.failureReason());
    }

    @Test
    void initiatorNotInTheAllowListGetsAuthorizationFailure() {
        ConnectionLogin login = login("10.1.2.3:40000", new SessionTable(), ChapAccounts.NONE);
        LoginVerdict v = send(
                login,
                request(
                        0,
                        1,
                        1,
                        keys("InitiatorName", "iqn.2026-11.test:other", "TargetName", LOCKED, "AuthMethod", "CHAP")));
        assertEquals(LoginVerdict.FAIL, v);
        assertEquals(0x0202, status());
        assertTrue(login.failureReason().contains("allow list"), login.failureReason());
    }

    @Test
    void allowedInitiatorMustAuthenticateWithChap() throws Exception {
        ConnectionLogin login = login("10.1.2.3:40000", new SessionTable(), ChapAccounts.NONE);
        assertEquals(
                LoginVerdict.MORE,
                send(
                        login,
                        request(
                                0,
                                1,
                                1,
                                keys("InitiatorName", INITIATOR, "TargetName", LOCKED, "AuthMethod", "CHAP,None"))));
        assertEquals("CHAP", responseValue("AuthMethod"));
        assertEquals(LoginVerdict.MORE, send(login, request(0, 1, 1, keys("CHAP_A", "5"))));
        int id = Integer.parseInt(responseValue("CHAP_I"));
        byte[] c = HexFormat.of().parseHex(responseValue("CHAP_C").substring(2));
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        md5.update((byte) id);
        md5.update(SECRET.getBytes(StandardCharsets.UTF_8));
        md5.update(c);
        String r = "0x" + HexFormat.of().formatHex(md5.digest());
        assertEquals(LoginVerdict.MORE, send(login, request(0, 1, 1, keys("CHAP_N", "user", "CHAP_R", r))));
        assertEquals(0, status());
        assertEquals(LoginVerdict.DONE, send(login, request(1, 3, 1, keys("MaxRecvDataSegmentLength", "8192"))));
        assertNotNull(login.session());
    }

    @Test
    void authMethodNoneIsRefusedWhereChapIsConfigured() {
        ConnectionLogin login = login("10.1.2.3:40000", new SessionTable(), ChapAccounts.NONE);
        assertEquals(
                LoginVerdict.FAIL,
                send(login, request(1, 3, 1, keys("InitiatorName", INITIATOR, "TargetName", LOCKED))));
        assertEquals(0x0201, status());
    }

    @Test
    void perInitiatorAccountTakesPrecedenceOverAnOpenTarget() {
        ChapAccounts accounts = new ChapAccounts(
                null,
                Map.of(
                        INITIATOR.toUpperCase(),
                        new ChapAccount(
                                new ChapSecret("own", "initiator-own-secret".getBytes(StandardCharsets.UTF_8)), null)));
        ConnectionLogin login = login("127.0.0.1:40000", new SessionTable(), accounts);
        assertEquals(
                LoginVerdict.MORE,
                send(
                        login,
                        request(
                                0,
                                1,
                                1,
                                keys("InitiatorName", INITIATOR, "TargetName", OPEN, "AuthMethod", "None,CHAP"))));
        assertEquals("CHAP", responseValue("AuthMethod"));
    }

    @Test
    void discoveryChapAppliesToDiscoverySessionsOnly() {
        ChapAccounts accounts = new ChapAccounts(
                new ChapAccount(new ChapSecret("disc", "discovery-secret".getBytes(StandardCharsets.UTF_8)), null),
                Map.of());
        ConnectionLogin discovery = login("127.0.0.1:40000", new SessionTable(), accounts);
        assertEquals(
                LoginVerdict.MORE,
                send(
                        discovery,
                        request(
                                0,
                                1,
                                1,
                                keys(
                                        "InitiatorName",
                                        INITIATOR,
                                        "SessionType",
                                        "Discovery",
                                        "AuthMethod",
                                        "None,CHAP"))));
        assertEquals("CHAP", responseValue("AuthMethod"));
        transport.release();
        ConnectionLogin normal = login("127.0.0.1:40000", new SessionTable(), accounts);
        assertEquals(
                LoginVerdict.MORE,
                send(
                        normal,
                        request(
                                0,
                                1,
                                1,
                                keys("InitiatorName", INITIATOR, "TargetName", OPEN, "AuthMethod", "None,CHAP"))));
        assertEquals("None", responseValue("AuthMethod"));
    }

    @Test
    void sessionLimitRefusesWithOutOfResources() {
        SessionTable sessions = new SessionTable(10, 1);
        assertNotNull(sessions.create(SessionType.NORMAL, INITIATOR, 99, null, 1));
        ConnectionLogin login = login("127.0.0.1:40000", sessions, ChapAccounts.NONE);
        LoginVerdict v = send(login, request(1, 3, 1, keys("InitiatorName", INITIATOR, "TargetName", OPEN)));
        assertEquals(LoginVerdict.FAIL, v);
        assertEquals(0x0302, status());
        assertTrue(login.failureReason().contains("1 of at most 1"), login.failureReason());
        assertNull(login.session());
        assertEquals(1, sessions.size());
    }

    @Test
    void sendTargetsHidesTargetsTheInitiatorMayNotReach() throws Exception {
        TargetDirectory targets = directory();
        List<KeyValue> inside = ConnectionLogin.SendTargets.answer(
                targets,
                settings(ChapAccounts.NONE),
                "10.0.0.1:3260",
                InetAddress.getByName("10.9.9.9"),
                INITIATOR,
                "All");
        assertTrue(inside.contains(new KeyValue("TargetName", LOCKED)));
        List<KeyValue> outside = ConnectionLogin.SendTargets.answer(
                targets,
                settings(ChapAccounts.NONE),
                "10.0.0.1:3260",
                InetAddress.getByName("192.168.0.1"),
                INITIATOR,
                "All");
        assertFalse(outside.contains(new KeyValue("TargetName", LOCKED)));
        assertTrue(outside.contains(new KeyValue("TargetName", OPEN)));
    }

    @Test
    void remoteAddressesParseOnlyLiterals() {
        assertEquals("10.1.2.3", RemoteAddresses.parse("10.1.2.3:3260").getHostAddress());
        assertEquals("0:0:0:0:0:0:0:1", RemoteAddresses.parse("[::1]:3260").getHostAddress());
        assertNull(RemoteAddresses.parse("example.com:3260"));
        assertNull(RemoteAddresses.parse("300.1.1.1:3260"));
        assertNull(RemoteAddresses.parse(null));
        assertNull(RemoteAddresses.parse("[zz::1]:3260"));
    }
}
