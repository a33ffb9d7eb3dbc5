package io.numaiscsi.proto.login;

import static io.numaiscsi.proto.login.FakeLoginContext.INITIATOR;
import static io.numaiscsi.proto.login.FakeLoginContext.TARGET;
import static io.numaiscsi.proto.login.FakeLoginContext.keys;
import static io.numaiscsi.proto.login.FakeLoginContext.text;
import static io.numaiscsi.proto.login.FakeLoginContext.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.proto.LoginStatus;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LoginStateMachineTest {
    static final long ISID = 0x023d00000001L;
    static final String INAME = "InitiatorName=" + INITIATOR;
    static final String TNAME = "TargetName=" + TARGET;
    static final String[] LINUX_OPERATIONAL = {
        "HeaderDigest=None",
        "DataDigest=None",
        "DefaultTime2Wait=2",
        "DefaultTime2Retain=0",
        "IFMarker=No",
        "OFMarker=No",
        "ErrorRecoveryLevel=0",
        "InitialR2T=No",
        "ImmediateData=Yes",
        "MaxBurstLength=16776192",
        "FirstBurstLength=262144",
        "MaxOutstandingR2T=1",
        "MaxConnections=1",
        "DataPDUInOrder=Yes",
        "DataSequenceInOrder=Yes",
        "MaxRecvDataSegmentLength=262144"
    };

    private final FakeLoginContext context = new FakeLoginContext();

    private LoginStateMachine machine() {
        return new LoginStateMachine(TargetLimits.defaults(), context);
    }

    static LoginRequest req(boolean transit, boolean cont, int csg, int nsg, String... pairs) {
        return req(transit, cont, csg, nsg, 0, text(pairs));
    }

    static LoginRequest req(boolean transit, boolean cont, int csg, int nsg, int tsih, byte[] data) {
        return new LoginRequest(transit, cont, csg, nsg, 0, 0, ISID, tsih, 1, 100, 0, 7, data);
    }

    static String[] concat(String[] a, String... b) {
        String[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static void assertStep(LoginStep step, LoginVerdict verdict, boolean transit, int csg, int nsg) {
        assertEquals(verdict, step.verdict(), () -> "reason: " + step.reason());
        assertEquals(LoginStatus.SUCCESS, step.status());
        assertEquals(transit, step.transit());
        assertEquals(csg, step.csg());
        if (transit) {
            assertEquals(nsg, step.nsg());
        }
    }

    @Test
    void discoveryLoginThroughSecurityAndOperationalStages() {
        LoginStateMachine m = machine();
        LoginStep first = m.onRequest(req(true, false, 0, 1, INAME, "SessionType=Discovery", "AuthMethod=None"));
        assertStep(first, LoginVerdict.MORE, true, 0, 1);
        assertEquals(List.of(new KeyValue("AuthMethod", "None")), keys(first.data()));
        assertEquals(0, first.tsih());
        assertNull(m.parameters());

        LoginStep second = m.onRequest(req(
                true,
                false,
                1,
                3,
                "HeaderDigest=None",
                "DataDigest=None",
                "DefaultTime2Wait=2",
                "DefaultTime2Retain=0",
                "IFMarker=No",
                "OFMarker=No",
                "ErrorRecoveryLevel=0",
                "MaxRecvDataSegmentLength=32768",
                "InitialR2T=No",
                "MaxBurstLength=1024"));
        assertStep(second, LoginVerdict.DONE, true, 1, 3);
        assertEquals(0x11, second.tsih());
        assertEquals("None", value(second.data(), "HeaderDigest"));
        assertEquals("No", value(second.data(), "IFMarker"));
        assertEquals("0", value(second.data(), "DefaultTime2Retain"));
        assertEquals("Irrelevant", value(second.data(), "InitialR2T"));
        assertEquals("Irrelevant", value(second.data(), "MaxBurstLength"));
        assertEquals("262144", value(second.data(), "MaxRecvDataSegmentLength"));
        assertNull(value(second.data(), "TargetPortalGroupTag"));

        SessionParameters p = m.parameters();
        assertNotNull(p);
        assertEquals(SessionType.DISCOVERY, p.sessionType());
        assertNull(p.targetName());
        assertEquals(INITIATOR, p.initiatorName());
        assertEquals(32768, p.initiatorMaxRecvDataSegmentLength());
        assertEquals(262144, p.targetMaxRecvDataSegmentLength());
        assertEquals(262144, p.maxBurstLength()); // irrelevant in discovery: default kept
        assertEquals(SessionType.DISCOVERY, context.boundType);
        assertNull(context.boundTarget);
    }

    @Test
    void normalLoginInOneOperationalPdu() {
        LoginStateMachine m = machine();
        LoginStep step = m.onRequest(req(
                true,
                false,
                1,
                3,
                concat(LINUX_OPERATIONAL, INAME, TNAME, "InitiatorAlias=client", "SessionType=Normal")));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        assertEquals(0x11, step.tsih());
        byte[] r = step.data();
        assertEquals("1", value(r, "TargetPortalGroupTag"));
        assertEquals("disk one", value(r, "TargetAlias"));
        assertEquals("262144", value(r, "MaxRecvDataSegmentLength"));
        assertEquals("Yes", value(r, "InitialR2T"), "the default limits keep InitialR2T=Yes (OR)");
        assertEquals("262144", value(r, "MaxBurstLength"));
        assertEquals("65536", value(r, "FirstBurstLength"));
        assertEquals("1", value(r, "MaxConnections"));
        assertEquals("0", value(r, "ErrorRecoveryLevel"));
        assertNull(value(r, "InitiatorName"));

        SessionParameters p = m.parameters();
        assertEquals(SessionType.NORMAL, p.sessionType());
        assertEquals(TARGET, p.targetName());
        assertEquals("client", p.initiatorAlias());
        assertEquals(ISID, p.isid());
        assertEquals(0x11, p.tsih());
        assertEquals(1, p.cid());
        assertEquals(100, p.expCmdSN());
        assertEquals(262144, p.initiatorMaxRecvDataSegmentLength());
        assertEquals(262144, p.maxBurstLength());
        assertEquals(65536, p.firstBurstLength());
        assertTrue(p.initialR2T());
        assertTrue(p.immediateData());
        assertFalse(p.headerDigest());
        assertFalse(p.dataDigest());
        assertTrue(p.dataPduInOrder());
        assertTrue(p.dataSequenceInOrder());
        assertEquals(0, p.errorRecoveryLevel());
        assertEquals(2, p.defaultTime2Wait());
        assertEquals(0, p.defaultTime2Retain());
        assertEquals(1, p.maxConnections());
        assertEquals(1, p.maxOutstandingR2T());
        assertFalse(p.rdmaExtensions());
        assertEquals(1, context.binds);
    }

    @Test
    void normalLoginAcrossSecurityOperationalAndFullFeature() {
        LoginStateMachine m = machine();
        LoginStep s1 = m.onRequest(req(true, false, 0, 1, INAME, TNAME, "SessionType=Normal", "AuthMethod=CHAP,None"));
        assertStep(s1, LoginVerdict.MORE, true, 0, 1);
        assertEquals("None", value(s1.data(), "AuthMethod"));
        assertEquals("1", value(s1.data(), "TargetPortalGroupTag"));
        assertNull(value(s1.data(), "MaxRecvDataSegmentLength"));

        LoginStep s2 = m.onRequest(req(false, false, 1, 0, "HeaderDigest=CRC32C,None", "DataDigest=None,CRC32C"));
        assertStep(s2, LoginVerdict.MORE, false, 1, 0);
        assertEquals("CRC32C", value(s2.data(), "HeaderDigest"));
        assertEquals("None", value(s2.data(), "DataDigest"));
        assertEquals("262144", value(s2.data(), "MaxRecvDataSegmentLength"));

        LoginStep s3 = m.onRequest(req(true, false, 1, 3, "MaxRecvDataSegmentLength=65536", "MaxBurstLength=131072"));
        assertStep(s3, LoginVerdict.DONE, true, 1, 3);
        assertNull(value(s3.data(), "MaxRecvDataSegmentLength"), "declared once");
        assertEquals("131072", value(s3.data(), "MaxBurstLength"));
        SessionParameters p = m.parameters();
        assertTrue(p.headerDigest());
        assertFalse(p.dataDigest());
        assertEquals(65536, p.initiatorMaxRecvDataSegmentLength());
        assertEquals(131072, p.maxBurstLength());
    }

    @Test
    void securityStraightToFullFeatureDeclaresMaxRecvDataSegmentLength() {
        LoginStateMachine m = machine();
        LoginStep step = m.onRequest(req(true, false, 0, 3, INAME, TNAME, "AuthMethod=None"));
        assertStep(step, LoginVerdict.DONE, true, 0, 3);
        assertEquals("262144", value(step.data(), "MaxRecvDataSegmentLength"));
        assertEquals(8192, m.parameters().initiatorMaxRecvDataSegmentLength());
    }

    static Stream<Arguments> refusals() {
        String[] op = LINUX_OPERATIONAL;
        return Stream.of(
                Arguments.of(
                        "version-min 1",
                        new LoginRequest(true, false, 1, 3, 1, 1, ISID, 0, 1, 1, 0, 1, text(INAME, TNAME)),
                        2,
                        0x05),
                Arguments.of("no InitiatorName", req(true, false, 1, 3, concat(op, TNAME)), 2, 0x07),
                Arguments.of("no TargetName", req(true, false, 1, 3, concat(op, INAME)), 2, 0x07),
                Arguments.of("empty InitiatorName", req(true, false, 0, 1, "InitiatorName=", TNAME), 2, 0x07),
                // the same status as "not allowed": an unauthenticated peer cannot probe for target names
                Arguments.of("unknown target", req(true, false, 0, 1, INAME, "TargetName=iqn.x:none"), 2, 0x02),
                Arguments.of("bad SessionType", req(true, false, 0, 1, INAME, "SessionType=Boot"), 2, 0x09),
                Arguments.of("NSG 2", req(true, false, 0, 2, INAME, TNAME), 2, 0x00),
                Arguments.of("CSG 2", req(false, false, 2, 0, INAME, TNAME), 2, 0x00),
                Arguments.of("CSG 3", req(true, false, 3, 3, INAME, TNAME), 2, 0x00),
                Arguments.of("transit backwards", req(true, false, 1, 0, INAME, TNAME), 2, 0x00),
                Arguments.of("transit to same stage", req(true, false, 1, 1, INAME, TNAME), 2, 0x00),
                Arguments.of("T and C", req(true, true, 0, 1, INAME, TNAME), 2, 0x00),
                Arguments.of(
                        "AuthMethod in operational stage",
                        req(true, false, 1, 3, INAME, TNAME, "AuthMethod=None"),
                        2,
                        0x00),
                Arguments.of(
                        "CHAP key in operational stage", req(true, false, 1, 3, INAME, TNAME, "CHAP_A=5"), 2, 0x00),
                Arguments.of(
                        "operational key in security stage",
                        req(true, false, 0, 1, INAME, TNAME, "MaxBurstLength=512"),
                        2,
                        0x00),
                Arguments.of(
                        "target-only key", req(true, false, 1, 3, INAME, TNAME, "TargetPortalGroupTag=1"), 2, 0x00),
                Arguments.of("no common AuthMethod", req(true, false, 0, 1, INAME, TNAME, "AuthMethod=CHAP"), 2, 0x01),
                Arguments.of(
                        "CHAP keys with AuthMethod None",
                        req(false, false, 0, 0, INAME, TNAME, "AuthMethod=None", "CHAP_A=5"),
                        2,
                        0x01),
                Arguments.of("malformed text", req(true, false, 1, 3, 0, "InitiatorName\0".getBytes()), 2, 0x00),
                Arguments.of(
                        "duplicate key in one PDU",
                        req(true, false, 1, 3, INAME, TNAME, "MaxBurstLength=512", "MaxBurstLength=512"),
                        2,
                        0x00),
                Arguments.of(
                        "MaxRecvDataSegmentLength too small",
                        req(true, false, 1, 3, INAME, TNAME, "MaxRecvDataSegmentLength=100"),
                        2,
                        0x00));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusesWithStatus(String name, LoginRequest request, int statusClass, int statusDetail) {
        LoginStep step = machine().onRequest(request);
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(statusClass, step.status().statusClass(), step.reason());
        assertEquals(statusDetail, step.status().statusDetail(), step.reason());
        assertNotNull(step.reason());
        assertEquals(0, step.data().length);
        assertEquals(0, context.binds);
    }

    @Test
    void unauthorizedInitiatorIsRefused() {
        context.allowed = false;
        LoginStep step = machine().onRequest(req(true, false, 0, 1, INAME, TNAME, "AuthMethod=None"));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x02, step.status().statusClass());
        assertEquals(0x02, step.status().statusDetail());
    }

    static Stream<Arguments> secondPduChanges() {
        return Stream.of(
                Arguments.of("ISID", new LoginRequest(true, false, 1, 3, 0, 0, ISID + 1, 0, 1, 100, 0, 7, text())),
                Arguments.of("TSIH", new LoginRequest(true, false, 1, 3, 0, 0, ISID, 5, 1, 100, 0, 7, text())),
                Arguments.of("CID", new LoginRequest(true, false, 1, 3, 0, 0, ISID, 0, 2, 100, 0, 7, text())),
                Arguments.of("InitiatorName", req(true, false, 1, 3, "InitiatorName=iqn.other:x")),
                Arguments.of("repeated key", req(true, false, 1, 3, "HeaderDigest=None")),
                Arguments.of("SessionType", req(true, false, 1, 3, "SessionType=Discovery")),
                Arguments.of("CSG not agreed", req(true, false, 0, 1, "AuthMethod=None")));
    }

    @ParameterizedTest(name = "{0} changed in a later PDU")
    @MethodSource("secondPduChanges")
    void laterPdusMayNotChangeTheLogin(String name, LoginRequest second) {
        LoginStateMachine m = machine();
        assertStep(
                m.onRequest(req(false, false, 1, 0, INAME, TNAME, "HeaderDigest=None")),
                LoginVerdict.MORE,
                false,
                1,
                0);
        LoginStep step = m.onRequest(second);
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x02, step.status().statusClass());
        assertEquals(0x00, step.status().statusDetail(), step.reason());
    }

    @Test
    void continuedRequestTextIsReassembledBeforeNegotiating() {
        byte[] whole = text(concat(LINUX_OPERATIONAL, INAME, TNAME));
        int cut = 37; // inside a key=value pair
        LoginStateMachine m = machine();
        LoginStep s1 = m.onRequest(req(false, true, 1, 0, 0, Arrays.copyOfRange(whole, 0, cut)));
        assertStep(s1, LoginVerdict.MORE, false, 1, 0);
        assertEquals(0, s1.data().length);
        assertEquals(0, context.binds);
        LoginStep s2 = m.onRequest(req(true, false, 1, 3, 0, Arrays.copyOfRange(whole, cut, whole.length)));
        assertStep(s2, LoginVerdict.DONE, true, 1, 3);
        assertEquals("Yes", value(s2.data(), "InitialR2T"));
        assertEquals("65536", value(s2.data(), "FirstBurstLength"));
        assertEquals(262144, m.parameters().initiatorMaxRecvDataSegmentLength());
    }

    @Test
    void longResponseIsContinuedWithTheCBit() {
        List<String> pairs = new ArrayList<>(List.of(INAME, TNAME));
        for (int i = 0; i < 500; i++) {
            pairs.add("X-vendor.key" + i + "=1");
        }
        LoginStateMachine m = machine();
        LoginStep s1 = m.onRequest(req(true, false, 1, 3, pairs.toArray(new String[0])));
        assertEquals(LoginVerdict.MORE, s1.verdict());
        assertTrue(s1.continueBit());
        assertFalse(s1.transit());
        assertEquals(LoginStateMachine.LOGIN_SEGMENT_LIMIT, s1.data().length);
        assertNull(m.parameters());
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(s1.data());
        LoginStep last = s1;
        while (last.continueBit()) {
            last = m.onRequest(req(true, false, 1, 3, 0, new byte[0]));
            all.writeBytes(last.data());
        }
        assertStep(last, LoginVerdict.DONE, true, 1, 3);
        List<KeyValue> response = keys(all.toByteArray());
        assertEquals(new KeyValue("TargetPortalGroupTag", "1"), response.get(1));
        assertEquals(new KeyValue("X-vendor.key0", "NotUnderstood"), response.get(2));
        assertEquals(new KeyValue("X-vendor.key499", "NotUnderstood"), response.get(501));
        assertEquals(new KeyValue("MaxRecvDataSegmentLength", "262144"), response.get(502));
        assertNotNull(m.parameters());
    }

    @Test
    void loginPhaseIsCappedInPdus() {
        LoginStateMachine m = machine();
        assertEquals(
                LoginVerdict.MORE,
                m.onRequest(req(false, false, 1, 0, INAME, TNAME)).verdict());
        for (int i = 2; i <= LoginStateMachine.MAX_LOGIN_PDUS; i++) {
            assertEquals(LoginVerdict.MORE, m.onRequest(req(false, false, 1, 0)).verdict());
        }
        LoginStep step = m.onRequest(req(true, false, 1, 3));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x02, step.status().statusClass());
    }

    @Test
    void unknownKeysAreNotUnderstoodAndObsoleteOnesRejected() {
        LoginStep step = machine()
                .onRequest(req(
                        true,
                        false,
                        1,
                        3,
                        INAME,
                        TNAME,
                        "X-com.example.feature=1",
                        "FancyKey=Yes",
                        "OFMarkInt=2048~8192",
                        "IFMarker=Yes"));
        assertEquals(LoginVerdict.DONE, step.verdict());
        assertEquals("NotUnderstood", value(step.data(), "X-com.example.feature"));
        assertEquals("NotUnderstood", value(step.data(), "FancyKey"));
        assertEquals("Reject", value(step.data(), "OFMarkInt"));
        assertEquals("No", value(step.data(), "IFMarker"));
    }

    @Test
    void targetOffersKeysAndDeclinesTransitUntilAnswered() {
        TargetLimits strict = new TargetLimits(
                8192, 65536, 16384, 4, false, true, List.of("CRC32C"), List.of("CRC32C", "None"), 2, 20, false, 0);
        LoginStateMachine m = new LoginStateMachine(strict, context);
        LoginStep s1 = m.onRequest(req(true, false, 1, 3, INAME, TNAME, "DataDigest=None"));
        assertStep(s1, LoginVerdict.MORE, false, 1, 0);
        assertEquals("CRC32C", value(s1.data(), "HeaderDigest"));
        assertEquals("65536", value(s1.data(), "MaxBurstLength"));
        assertEquals("16384", value(s1.data(), "FirstBurstLength"));
        assertEquals("No", value(s1.data(), "ImmediateData"));
        assertEquals("8192", value(s1.data(), "MaxRecvDataSegmentLength"));
        assertEquals(0, context.binds);

        LoginStep s2 = m.onRequest(req(
                true,
                false,
                1,
                3,
                "HeaderDigest=CRC32C",
                "MaxBurstLength=32768",
                "FirstBurstLength=16384",
                "ImmediateData=No"));
        assertStep(s2, LoginVerdict.DONE, true, 1, 3);
        assertEquals(0, s2.data().length);
        SessionParameters p = m.parameters();
        assertTrue(p.headerDigest());
        assertEquals(32768, p.maxBurstLength());
        assertEquals(16384, p.firstBurstLength());
        assertFalse(p.immediateData());
        assertEquals(8192, p.targetMaxRecvDataSegmentLength());
    }

    @Test
    void answerBreakingTheOfferedRuleFails() {
        TargetLimits small =
                new TargetLimits(8192, 65536, 16384, 4, true, true, List.of("None"), List.of("None"), 2, 20, false, 0);
        LoginStateMachine m = new LoginStateMachine(small, context);
        assertEquals(
                LoginVerdict.MORE,
                m.onRequest(req(true, false, 1, 3, INAME, TNAME)).verdict());
        LoginStep step = m.onRequest(req(true, false, 1, 3, "MaxBurstLength=131072", "FirstBurstLength=16384"));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x02, step.status().statusClass());
    }

    @Test
    void securityToFullFeatureStopsAtOperationalWhenTheTargetMustOffer() {
        TargetLimits small =
                new TargetLimits(8192, 65536, 16384, 4, true, true, List.of("None"), List.of("None"), 2, 20, false, 0);
        LoginStateMachine m = new LoginStateMachine(small, context);
        LoginStep s1 = m.onRequest(req(true, false, 0, 3, INAME, TNAME, "AuthMethod=None"));
        assertStep(s1, LoginVerdict.MORE, true, 0, 1);
        assertNull(value(s1.data(), "MaxBurstLength"), "no operational keys in the security stage");
        LoginStep s2 = m.onRequest(req(true, false, 1, 3));
        assertStep(s2, LoginVerdict.MORE, false, 1, 0);
        assertEquals("65536", value(s2.data(), "MaxBurstLength"));
    }

    @Test
    void firstBurstAboveMaxBurstIsRefused() {
        LoginStateMachine m = machine();
        LoginStep s1 = m.onRequest(req(false, false, 1, 0, INAME, TNAME, "FirstBurstLength=65536"));
        assertEquals("65536", value(s1.data(), "FirstBurstLength"));
        LoginStep s2 = m.onRequest(req(true, false, 1, 3, "MaxBurstLength=32768"));
        assertEquals(LoginVerdict.FAIL, s2.verdict());
        assertTrue(s2.reason().contains("FirstBurstLength"), s2.reason());
    }

    @Test
    void firstBurstAnswerIsCappedByMaxBurstOfTheSamePdu() {
        LoginStep step = machine()
                .onRequest(req(true, false, 1, 3, INAME, TNAME, "FirstBurstLength=65536", "MaxBurstLength=16384"));
        assertEquals(LoginVerdict.DONE, step.verdict(), step.reason());
        assertEquals("16384", value(step.data(), "FirstBurstLength"));
    }

    @Test
    void refusedBindingEndsTheLogin() {
        context.tsihToAssign = 0;
        LoginStep fresh = machine().onRequest(req(true, false, 1, 3, INAME, TNAME));
        assertEquals(LoginVerdict.FAIL, fresh.verdict());
        assertEquals(0x03, fresh.status().statusClass());
        assertEquals(0x02, fresh.status().statusDetail());
        LoginStep added = machine().onRequest(req(true, false, 1, 3, 0x22, text(INAME, TNAME)));
        assertEquals(0x02, added.status().statusClass());
        assertEquals(0x0A, added.status().statusDetail());
    }

    @Test
    void connectionAddedToASessionKeepsItsTsihAndIgnoresLeadingOnlyKeys() {
        context.tsihToAssign = 0x22;
        LoginStateMachine m = machine();
        LoginStep step = m.onRequest(
                req(true, false, 1, 3, 0x22, text(INAME, TNAME, "MaxBurstLength=4096", "HeaderDigest=None")));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        assertEquals(0x22, step.tsih());
        assertEquals(0x22, context.boundTsih);
        assertEquals("Irrelevant", value(step.data(), "MaxBurstLength"));
        assertEquals("None", value(step.data(), "HeaderDigest"));
    }

    @Test
    void requestsAfterTheEndFail() {
        LoginStateMachine m = machine();
        assertEquals(
                LoginVerdict.DONE,
                m.onRequest(req(true, false, 1, 3, INAME, TNAME)).verdict());
        assertEquals(LoginVerdict.FAIL, m.onRequest(req(true, false, 1, 3)).verdict());
        assertEquals(1, context.binds);
    }

    @Test
    void iserKeysWhenRdmaExtensionsAreAllowed() {
        TargetLimits iser = new TargetLimits(
                262144, 262144, 65536, 1, true, true, List.of("None"), List.of("None"), 2, 20, true, 0);
        LoginStateMachine m = new LoginStateMachine(iser, context);
        LoginStep step = m.onRequest(req(
                true,
                false,
                1,
                3,
                INAME,
                TNAME,
                "InitiatorRecvDataSegmentLength=262144",
                "TargetRecvDataSegmentLength=131072",
                "RDMAExtensions=Yes",
                "MaxOutstandingUnexpectedPDUs=8"));
        assertEquals(LoginVerdict.DONE, step.verdict(), step.reason());
        assertEquals("Yes", value(step.data(), "RDMAExtensions"));
        assertEquals("131072", value(step.data(), "TargetRecvDataSegmentLength"), "the initiator's lower value");
        assertNull(value(step.data(), "MaxOutstandingUnexpectedPDUs"), "these limits declare none");
        SessionParameters p = m.parameters();
        assertTrue(p.rdmaExtensions());
        assertEquals("131072", p.negotiated(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH));
        assertEquals(131072, p.targetRecvDataSegmentLength());
        assertEquals("262144", p.negotiated(TextKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH));
        assertEquals(262144, p.initiatorMaxRecvDataSegmentLength());
        assertEquals("8", p.negotiated(TextKey.MAX_OUTSTANDING_UNEXPECTED_PDUS));
        assertEquals(8, p.maxOutstandingUnexpectedPdus());
    }

    /** An iSER portal's limits: 8 KiB receive buffers, 16 of them for unexpected PDUs. */
    private static TargetLimits iserLimits() {
        return new TargetLimits(8192, 262144, 65536, 1, true, true, List.of("None"), List.of("None"), 2, 20, true, 16);
    }

    @Test
    void iserLoginWithoutIserKeysGetsTheTargetsTargetRecvDataSegmentLength() {
        LoginStateMachine m = new LoginStateMachine(iserLimits(), context);
        LoginStep step = m.onRequest(
                req(true, false, 1, 3, INAME, TNAME, "RDMAExtensions=Yes", "MaxRecvDataSegmentLength=262144"));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        // No MaxOutstandingUnexpectedPDUs: the initiator did not show it knows the key (open-iscsi fails on it).
        assertEquals(
                List.of(
                        new KeyValue("TargetAlias", "disk one"),
                        new KeyValue("TargetPortalGroupTag", "1"),
                        new KeyValue("RDMAExtensions", "Yes"),
                        new KeyValue("MaxRecvDataSegmentLength", "8192"),
                        new KeyValue("TargetRecvDataSegmentLength", "8192")),
                keys(step.data()));
        SessionParameters p = m.parameters();
        assertTrue(p.rdmaExtensions());
        assertEquals(8192, p.targetRecvDataSegmentLength());
        assertEquals(8192, p.targetMaxRecvDataSegmentLength());
        assertEquals(
                8192,
                p.initiatorMaxRecvDataSegmentLength(),
                "InitiatorRecvDataSegmentLength's default, not the MaxRecvDataSegmentLength of 262144");
        assertEquals(0, p.maxOutstandingUnexpectedPdus());
    }

    @Test
    void iserInitiatorDeclarationsReachTheParameters() {
        LoginStateMachine m = new LoginStateMachine(iserLimits(), context);
        LoginStep step = m.onRequest(req(
                true,
                false,
                1,
                3,
                INAME,
                TNAME,
                "InitiatorRecvDataSegmentLength=4096",
                "MaxOutstandingUnexpectedPDUs=3",
                "RDMAExtensions=Yes"));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        assertEquals("Yes", value(step.data(), "RDMAExtensions"));
        assertEquals("8192", value(step.data(), "TargetRecvDataSegmentLength"));
        assertEquals("16", value(step.data(), "MaxOutstandingUnexpectedPDUs"), "the target's own number");
        assertNull(value(step.data(), "InitiatorRecvDataSegmentLength"), "declarative: no answer");
        SessionParameters p = m.parameters();
        assertEquals(4096, p.initiatorMaxRecvDataSegmentLength());
        assertEquals(3, p.maxOutstandingUnexpectedPdus());
        assertEquals(8192, p.targetRecvDataSegmentLength());
    }

    /** The operational keys open-iscsi (usr/login.c) sends for a normal iSER session, and the ones it accepts back. */
    static final String[] OPEN_ISCSI_ISER = {
        "DefaultTime2Wait=2",
        "DefaultTime2Retain=0",
        "IFMarker=No",
        "OFMarker=No",
        "ErrorRecoveryLevel=0",
        "InitialR2T=No",
        "ImmediateData=Yes",
        "MaxBurstLength=16776192",
        "FirstBurstLength=262144",
        "MaxOutstandingR2T=1",
        "MaxConnections=1",
        "DataPDUInOrder=Yes",
        "DataSequenceInOrder=Yes",
        "InitiatorRecvDataSegmentLength=262144",
        "TargetRecvDataSegmentLength=262144",
        "RDMAExtensions=Yes"
    };

    static final List<String> OPEN_ISCSI_KNOWS = List.of(
            "TargetAlias",
            "TargetAddress",
            "TargetPortalGroupTag",
            "InitialR2T",
            "ImmediateData",
            "MaxRecvDataSegmentLength",
            "FirstBurstLength",
            "MaxBurstLength",
            "HeaderDigest",
            "DataDigest",
            "DefaultTime2Wait",
            "DefaultTime2Retain",
            "OFMarker",
            "OFMarkInt",
            "IFMarker",
            "IFMarkInt",
            "DataPDUInOrder",
            "DataSequenceInOrder",
            "MaxOutstandingR2T",
            "MaxConnections",
            "ErrorRecoveryLevel",
            "RDMAExtensions",
            "InitiatorRecvDataSegmentLength",
            "TargetRecvDataSegmentLength");

    @Test
    void openIscsiIserLoginGetsOnlyKeysItKnows() {
        LoginStateMachine m = new LoginStateMachine(iserLimits(), context);
        LoginStep step = m.onRequest(req(true, false, 1, 3, concat(OPEN_ISCSI_ISER, INAME, TNAME)));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        for (KeyValue kv : keys(step.data())) {
            assertTrue(OPEN_ISCSI_KNOWS.contains(kv.key()), kv + " would fail an open-iscsi login");
        }
        assertEquals("8192", value(step.data(), "TargetRecvDataSegmentLength"), "capped to our receive buffers");
        assertEquals("8192", value(step.data(), "MaxRecvDataSegmentLength"));
        SessionParameters p = m.parameters();
        assertEquals(262144, p.initiatorMaxRecvDataSegmentLength());
        assertEquals(8192, p.targetRecvDataSegmentLength());
    }

    @Test
    void iserKeysAreDeclaredOnceWhenRdmaExtensionsComeInALaterPdu() {
        LoginStateMachine m = new LoginStateMachine(iserLimits(), context);
        LoginStep first = m.onRequest(req(false, false, 1, 0, INAME, TNAME, "InitiatorRecvDataSegmentLength=4096"));
        assertStep(first, LoginVerdict.MORE, false, 1, 0);
        assertEquals("Irrelevant", value(first.data(), "InitiatorRecvDataSegmentLength"), "no RDMAExtensions=Yes yet");
        assertEquals("8192", value(first.data(), "MaxRecvDataSegmentLength"));
        assertNull(value(first.data(), "TargetRecvDataSegmentLength"));
        LoginStep second = m.onRequest(req(false, false, 1, 0, "RDMAExtensions=Yes"));
        assertEquals(
                List.of(new KeyValue("RDMAExtensions", "Yes"), new KeyValue("TargetRecvDataSegmentLength", "8192")),
                keys(second.data()));
        LoginStep last = m.onRequest(
                req(true, false, 1, 3, "TargetRecvDataSegmentLength=4096", "MaxOutstandingUnexpectedPDUs=5"));
        assertStep(last, LoginVerdict.DONE, true, 1, 3);
        assertEquals(List.of(new KeyValue("MaxOutstandingUnexpectedPDUs", "16")), keys(last.data()));
        SessionParameters p = m.parameters();
        assertEquals(8192, p.targetRecvDataSegmentLength(), "the target's declaration stands");
        assertEquals(5, p.maxOutstandingUnexpectedPdus());
        assertEquals(8192, p.initiatorMaxRecvDataSegmentLength(), "the Irrelevant declaration left the default");
    }

    @Test
    void tcpLoginDeclaresNoIserKey() {
        LoginStateMachine m = machine();
        LoginStep step = m.onRequest(req(true, false, 1, 3, concat(LINUX_OPERATIONAL, INAME, TNAME)));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        assertNull(value(step.data(), "RDMAExtensions"));
        assertNull(value(step.data(), "TargetRecvDataSegmentLength"));
        assertNull(value(step.data(), "MaxOutstandingUnexpectedPDUs"));
        SessionParameters p = m.parameters();
        assertFalse(p.rdmaExtensions());
        assertEquals(262144, p.initiatorMaxRecvDataSegmentLength());
        assertEquals(8192, p.targetRecvDataSegmentLength(), "the key's default");
        assertEquals(0, p.maxOutstandingUnexpectedPdus());
    }

    @Test
    void iserPortalLoginWithoutRdmaExtensionsDeclaresNoIserKey() {
        LoginStateMachine m = new LoginStateMachine(iserLimits(), context);
        LoginStep step = m.onRequest(req(true, false, 1, 3, INAME, TNAME, "MaxRecvDataSegmentLength=65536"));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        assertEquals(
                List.of(
                        new KeyValue("TargetAlias", "disk one"),
                        new KeyValue("TargetPortalGroupTag", "1"),
                        new KeyValue("MaxRecvDataSegmentLength", "8192")),
                keys(step.data()));
        assertFalse(m.parameters().rdmaExtensions());
        assertEquals(65536, m.parameters().initiatorMaxRecvDataSegmentLength());
    }

    @Test
    void discoveryWithRdmaExtensionsDeclaresNoIserKey() {
        LoginStateMachine m = new LoginStateMachine(iserLimits(), context);
        LoginStep step = m.onRequest(req(
                true,
                false,
                1,
                3,
                INAME,
                "SessionType=Discovery",
                "RDMAExtensions=Yes",
                "InitiatorRecvDataSegmentLength=4096",
                "MaxOutstandingUnexpectedPDUs=3",
                "MaxRecvDataSegmentLength=32768"));
        assertStep(step, LoginVerdict.DONE, true, 1, 3);
        assertEquals(
                List.of(
                        new KeyValue("RDMAExtensions", "Irrelevant"),
                        new KeyValue("InitiatorRecvDataSegmentLength", "Irrelevant"),
                        new KeyValue("MaxOutstandingUnexpectedPDUs", "Irrelevant"),
                        new KeyValue("MaxRecvDataSegmentLength", "8192")),
                keys(step.data()));
        SessionParameters p = m.parameters();
        assertFalse(p.rdmaExtensions());
        assertEquals(32768, p.initiatorMaxRecvDataSegmentLength());
        assertEquals(0, p.maxOutstandingUnexpectedPdus());
    }

    @Test
    void iserKeysAreIrrelevantWithoutRdmaExtensions() {
        LoginStateMachine m = machine();
        LoginStep step = m.onRequest(
                req(true, false, 1, 3, INAME, TNAME, "RDMAExtensions=Yes", "TargetRecvDataSegmentLength=131072"));
        assertEquals("No", value(step.data(), "RDMAExtensions"));
        assertEquals("Irrelevant", value(step.data(), "TargetRecvDataSegmentLength"));
        assertFalse(m.parameters().rdmaExtensions());
        assertEquals("8192", m.parameters().negotiated(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH));
        assertNull(value(step.data(), "MaxOutstandingUnexpectedPDUs"));
    }

    /** A CHAP-shaped authenticator: challenge after CHAP_A, success on the expected CHAP_R. */
    static final class FakeChap implements Authenticator {
        @Override
        public String method() {
            return "CHAP";
        }

        @Override
        public AuthVerdict start(String initiatorName, String targetName, List<KeyValue> response) {
            return AuthVerdict.CONTINUE;
        }

        @Override
        public AuthVerdict onKeys(List<KeyValue> keys, List<KeyValue> response) {
            for (KeyValue kv : keys) {
                switch (kv.key()) {
                    case "CHAP_A" -> {
                        response.add(new KeyValue("CHAP_A", "5"));
                        response.add(new KeyValue("CHAP_I", "1"));
                        response.add(new KeyValue("CHAP_C", "0x0102"));
                    }
                    case "CHAP_R" -> {
                        return "0xgood".equals(kv.value()) ? AuthVerdict.SUCCESS : AuthVerdict.FAIL;
                    }
                    default -> {}
                }
            }
            return AuthVerdict.CONTINUE;
        }
    }

    @Test
    void pluggedAuthenticatorHoldsTheSecurityStageUntilSuccess() {
        LoginStateMachine m = new LoginStateMachine(TargetLimits.defaults(), context, List.of(new FakeChap()));
        LoginStep s1 = m.onRequest(req(true, false, 0, 1, INAME, TNAME, "AuthMethod=CHAP,None"));
        assertStep(s1, LoginVerdict.MORE, false, 0, 0);
        assertEquals("CHAP", value(s1.data(), "AuthMethod"));
        LoginStep s2 = m.onRequest(req(true, false, 0, 1, "CHAP_A=5"));
        assertStep(s2, LoginVerdict.MORE, false, 0, 0);
        assertEquals("0x0102", value(s2.data(), "CHAP_C"));
        LoginStep s3 = m.onRequest(req(true, false, 0, 1, "CHAP_N=user", "CHAP_R=0xgood"));
        assertStep(s3, LoginVerdict.MORE, true, 0, 1);
        assertEquals(LoginVerdict.DONE, m.onRequest(req(true, false, 1, 3)).verdict());
        assertEquals("CHAP", m.parameters().negotiated(TextKey.AUTH_METHOD));
    }

    @Test
    void wrongChapResponseIsAnAuthenticationFailure() {
        LoginStateMachine m = new LoginStateMachine(TargetLimits.defaults(), context, List.of(new FakeChap()));
        m.onRequest(req(false, false, 0, 0, INAME, TNAME, "AuthMethod=CHAP"));
        m.onRequest(req(false, false, 0, 0, "CHAP_A=5"));
        LoginStep step = m.onRequest(req(true, false, 0, 1, "CHAP_N=user", "CHAP_R=0xbad"));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x02, step.status().statusClass());
        assertEquals(0x01, step.status().statusDetail());
    }

    @Test
    void skippingRequiredAuthenticationFails() {
        LoginStateMachine m = new LoginStateMachine(TargetLimits.defaults(), context, List.of(new FakeChap()));
        LoginStep step = m.onRequest(req(true, false, 1, 3, INAME, TNAME));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x01, step.status().statusDetail());
        LoginStep noMethod = new LoginStateMachine(TargetLimits.defaults(), context, List.of(new FakeChap()))
                .onRequest(req(true, false, 0, 1, INAME, TNAME));
        assertEquals(0x01, noMethod.status().statusDetail());
    }

    @Test
    void responseDataIsAFreshArrayPerStep() {
        LoginStateMachine m = machine();
        LoginStep s1 = m.onRequest(req(false, false, 0, 0, INAME, TNAME, "AuthMethod=None"));
        assertArrayEquals(text("TargetAlias=disk one", "TargetPortalGroupTag=1", "AuthMethod=None"), s1.data());
    }

    // ---- AuthPolicy and real CHAP --------------------------------------------------------------

    private static final String CHAP_SECRET = "sixteen-byte-key";

    private LoginStateMachine chapMachine(List<String> seen) {
        AuthPolicy policy = (type, initiator, target) -> {
            seen.add(type + " " + initiator + " " + (target == null ? null : target.name()));
            return List.of(new ChapAuthenticator(new ChapSecret("user", CHAP_SECRET.getBytes()), null, new Random(1)));
        };
        return new LoginStateMachine(TargetLimits.defaults(), context, policy);
    }

    @Test
    void policyChoosesChapOnceTheTargetIsKnownAndTheLoginRunsLikeLibiscsi() throws Exception {
        List<String> seen = new ArrayList<>();
        LoginStateMachine m = chapMachine(seen);
        // libiscsi: AuthMethod=CHAP,None with T=1, then CHAP_A=5 with T=0, then CHAP_N/CHAP_R with T=1.
        LoginStep s1 = m.onRequest(req(true, false, 0, 1, INAME, TNAME, "SessionType=Normal", "AuthMethod=CHAP,None"));
        assertStep(s1, LoginVerdict.MORE, false, 0, 0);
        assertEquals("CHAP", value(s1.data(), "AuthMethod"));
        assertEquals(List.of("NORMAL " + INITIATOR + " " + TARGET), seen);
        LoginStep s2 = m.onRequest(req(false, false, 0, 1, "CHAP_A=5"));
        assertStep(s2, LoginVerdict.MORE, false, 0, 0);
        int id = Integer.parseInt(value(s2.data(), "CHAP_I"));
        byte[] c = HexFormat.of().parseHex(value(s2.data(), "CHAP_C").substring(2));
        String r = ChapAuthenticatorTest.hex(ChapAuthenticatorTest.md5(id, CHAP_SECRET, c));
        LoginStep s3 = m.onRequest(req(true, false, 0, 1, "CHAP_N=user", "CHAP_R=" + r));
        assertStep(s3, LoginVerdict.MORE, true, 0, 1);
        // libiscsi repeats InitiatorName, TargetName and SessionType in its operational-stage request.
        LoginStep done =
                m.onRequest(req(true, false, 1, 3, concat(LINUX_OPERATIONAL, INAME, TNAME, "SessionType=Normal")));
        assertEquals(LoginVerdict.DONE, done.verdict(), done.reason());
        assertEquals("CHAP", m.parameters().negotiated(TextKey.AUTH_METHOD));
        assertEquals(1, seen.size(), "the policy is asked once per login");
    }

    @Test
    void identityRepeatedWithAnotherValueFails() {
        LoginStateMachine m = machine();
        assertEquals(
                LoginVerdict.MORE,
                m.onRequest(req(true, false, 0, 1, INAME, TNAME, "AuthMethod=None"))
                        .verdict());
        LoginStep step = m.onRequest(req(true, false, 1, 3, "InitiatorName=iqn.2024-01.io.other:host"));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertTrue(step.reason().contains("repeated"), step.reason());
    }

    @Test
    void wrongChapSecretFailsWithTheAuthenticatorsReasonButNotTheSecret() {
        LoginStateMachine m = chapMachine(new ArrayList<>());
        m.onRequest(req(true, false, 0, 1, INAME, TNAME, "AuthMethod=CHAP,None"));
        m.onRequest(req(false, false, 0, 1, "CHAP_A=5"));
        LoginStep step =
                m.onRequest(req(true, false, 0, 1, "CHAP_N=user", "CHAP_R=0x00112233445566778899aabbccddeeff"));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x02, step.status().statusClass());
        assertEquals(0x01, step.status().statusDetail());
        assertTrue(step.reason().contains("wrong CHAP_R"), step.reason());
        assertFalse(step.reason().contains(CHAP_SECRET));
    }

    @Test
    void chapOnlyPolicyRefusesAuthMethodNoneAndSkippedSecurity() {
        LoginStep none =
                chapMachine(new ArrayList<>()).onRequest(req(true, false, 0, 1, INAME, TNAME, "AuthMethod=None"));
        assertEquals(LoginVerdict.FAIL, none.verdict());
        assertEquals(0x01, none.status().statusDetail());
        LoginStep skipped = chapMachine(new ArrayList<>()).onRequest(req(true, false, 1, 3, INAME, TNAME));
        assertEquals(LoginVerdict.FAIL, skipped.verdict());
        assertEquals(0x01, skipped.status().statusDetail());
    }

    @Test
    void discoverySessionsAskThePolicyWithoutATarget() {
        List<String> seen = new ArrayList<>();
        LoginStateMachine m = chapMachine(seen);
        LoginStep s1 = m.onRequest(req(true, false, 0, 1, INAME, "SessionType=Discovery", "AuthMethod=CHAP"));
        assertEquals(LoginVerdict.MORE, s1.verdict());
        assertEquals(List.of("DISCOVERY " + INITIATOR + " null"), seen);
    }

    @Test
    void emptyPolicyRefusesEveryAuthMethod() {
        LoginStateMachine m = new LoginStateMachine(TargetLimits.defaults(), context, (t, i, tg) -> List.of());
        LoginStep step = m.onRequest(req(true, false, 0, 1, INAME, TNAME, "AuthMethod=None,CHAP"));
        assertEquals(LoginVerdict.FAIL, step.verdict());
        assertEquals(0x01, step.status().statusDetail());
    }
}
