package io.numaiscsi.proto.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.proto.LoginStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NegotiationTest {
    private final List<KeyValue> response = new ArrayList<>();

    private static Negotiation negotiation() {
        return new Negotiation(TargetLimits.defaults(), List.of("None"));
    }

    private static List<KeyValue> kv(String key, String value) {
        return List.of(new KeyValue(key, value));
    }

    @ParameterizedTest(name = "{0}={1} in a {2} session -> {3}")
    @CsvSource({
        "InitialR2T, No, DISCOVERY, Irrelevant",
        "ImmediateData, Yes, DISCOVERY, Irrelevant",
        "MaxBurstLength, 4096, DISCOVERY, Irrelevant",
        "FirstBurstLength, 4096, DISCOVERY, Irrelevant",
        "MaxOutstandingR2T, 2, DISCOVERY, Irrelevant",
        "DataPDUInOrder, No, DISCOVERY, Irrelevant",
        "DataSequenceInOrder, No, DISCOVERY, Irrelevant",
        "MaxConnections, 2, DISCOVERY, Irrelevant",
        "RDMAExtensions, Yes, DISCOVERY, Irrelevant",
        "HeaderDigest, 'CRC32C,None', DISCOVERY, CRC32C",
        "ErrorRecoveryLevel, 1, DISCOVERY, 0",
        "DefaultTime2Wait, 1, DISCOVERY, 2",
        "MaxConnections, 2, NORMAL, 1",
        "SendTargets, All, NORMAL, Irrelevant",
    })
    void answersDependOnTheSessionType(String key, String value, SessionType type, String expected) {
        Negotiation n = negotiation();
        n.sessionType(type);
        assertNull(n.process(kv(key, value), Negotiation.OPERATIONAL_STAGE, response));
        assertEquals(kv(key, expected), response);
    }

    private static Negotiation iser(int unexpectedPdus) {
        return new Negotiation(
                new TargetLimits(
                        65536,
                        262144,
                        65536,
                        1,
                        true,
                        true,
                        List.of("None"),
                        List.of("None"),
                        2,
                        20,
                        true,
                        unexpectedPdus),
                List.of("None"));
    }

    @Test
    void iserDeclarationsFollowRdmaExtensions() {
        Negotiation n = iser(32);
        n.declareIserKeys(response);
        assertTrue(response.isEmpty(), "RDMAExtensions not yet Yes");
        assertNull(n.process(
                List.of(new KeyValue("RDMAExtensions", "Yes"), new KeyValue("TargetRecvDataSegmentLength", "16384")),
                Negotiation.OPERATIONAL_STAGE,
                response));
        n.declareIserKeys(response);
        assertEquals(
                List.of(new KeyValue("RDMAExtensions", "Yes"), new KeyValue("TargetRecvDataSegmentLength", "16384")),
                response,
                "min(ours, the initiator's); no MaxOutstandingUnexpectedPDUs before the initiator's");
        response.clear();
        assertNull(n.process(kv("MaxOutstandingUnexpectedPDUs", "0"), Negotiation.OPERATIONAL_STAGE, response));
        n.declareIserKeys(response);
        n.declareIserKeys(response);
        assertEquals(kv("MaxOutstandingUnexpectedPDUs", "32"), response, "declared once");
        assertEquals("16384", n.value(TextKey.TARGET_RECV_DATA_SEGMENT_LENGTH));
        assertEquals("0", n.value(TextKey.MAX_OUTSTANDING_UNEXPECTED_PDUS), "the initiator's declaration is kept");
    }

    @Test
    void iserLimitsWithoutUnexpectedPdusDeclareOnlyTheSegmentLength() {
        Negotiation n = iser(0);
        assertNull(n.process(
                List.of(new KeyValue("RDMAExtensions", "Yes"), new KeyValue("MaxOutstandingUnexpectedPDUs", "8")),
                Negotiation.OPERATIONAL_STAGE,
                response));
        n.declareIserKeys(response);
        assertEquals(
                List.of(new KeyValue("RDMAExtensions", "Yes"), new KeyValue("TargetRecvDataSegmentLength", "65536")),
                response);
    }

    @Test
    void targetLimitsKeepTheElevenArgumentConstructorAndCheckUnexpectedPdus() {
        TargetLimits old =
                new TargetLimits(8192, 65536, 8192, 1, true, true, List.of("None"), List.of("None"), 2, 20, true, 0);
        assertEquals(0, old.maxOutstandingUnexpectedPdus());
        assertEquals(0, TargetLimits.defaults().maxOutstandingUnexpectedPdus());
        assertEquals(
                2,
                new TargetLimits(8192, 65536, 8192, 1, true, true, List.of("None"), List.of("None"), 2, 20, true, 2)
                        .maxOutstandingUnexpectedPdus());
        for (int bad : new int[] {1, -1}) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new TargetLimits(
                            8192, 65536, 8192, 1, true, true, List.of("None"), List.of("None"), 2, 20, true, bad),
                    "RFC 7145: 0 or 2..2^32-1");
        }
    }

    @Test
    void declarativeKeysAreRecordedWithoutAnswer() {
        Negotiation n = negotiation();
        assertNull(n.process(
                List.of(new KeyValue("MaxRecvDataSegmentLength", "0x10000"), new KeyValue("InitiatorAlias", "host")),
                Negotiation.OPERATIONAL_STAGE,
                response));
        assertTrue(response.isEmpty());
        assertEquals("0x10000", n.value(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH));
        assertEquals("host", n.value(TextKey.INITIATOR_ALIAS));
        assertEquals("20", n.value(TextKey.DEFAULT_TIME2RETAIN), "default when not negotiated");
    }

    @Test
    void keyRepeatedInALaterTextFails() {
        Negotiation n = negotiation();
        assertNull(n.process(kv("X-vendor", "1"), Negotiation.OPERATIONAL_STAGE, response));
        LoginFailure f = n.process(kv("X-vendor", "1"), Negotiation.OPERATIONAL_STAGE, response);
        assertNotNull(f);
        assertEquals(LoginStatus.INITIATOR_ERROR, f.status());
    }

    @Test
    void rejectedNegotiationKeepsTheDefault() {
        Negotiation n = negotiation();
        assertNull(n.process(kv("MaxBurstLength", "100"), Negotiation.OPERATIONAL_STAGE, response));
        assertEquals(kv("MaxBurstLength", "Reject"), response);
        assertEquals("262144", n.value(TextKey.MAX_BURST_LENGTH));
    }

    @Test
    void securityKeysGoToTheAuthenticator() {
        Negotiation n = negotiation();
        assertNull(n.process(
                List.of(new KeyValue("AuthMethod", "SRP,None"), new KeyValue("CHAP_A", "5")),
                Negotiation.SECURITY_STAGE,
                response));
        assertEquals("None", n.authMethodAnswer());
        assertEquals(kv("AuthMethod", "None"), response);
        assertEquals(kv("CHAP_A", "5"), n.takeAuthKeys());
        assertTrue(n.takeAuthKeys().isEmpty());
    }

    @Test
    void offersOnlyWhatTheDefaultsDoNotSatisfy() {
        Negotiation relaxed = negotiation();
        assertEquals(0, relaxed.makeOffers(response, false));
        assertFalse(relaxed.hasPendingOffers());

        TargetLimits strict =
                new TargetLimits(8192, 4096, 4096, 1, false, true, List.of("CRC32C"), List.of("None"), 2, 20, false, 0);
        Negotiation n = new Negotiation(strict, List.of("None"));
        assertNull(n.process(kv("ImmediateData", "No"), Negotiation.OPERATIONAL_STAGE, response));
        response.clear();
        assertEquals(3, n.makeOffers(new ArrayList<>(), true), "dry run");
        assertFalse(n.hasPendingOffers());
        assertEquals(3, n.makeOffers(response, false));
        assertEquals(
                List.of(
                        new KeyValue("HeaderDigest", "CRC32C"),
                        new KeyValue("MaxBurstLength", "4096"),
                        new KeyValue("FirstBurstLength", "4096")),
                response);
        assertTrue(n.hasPendingOffers());
        assertEquals(0, n.makeOffers(new ArrayList<>(), false), "never offered twice");
        assertNull(n.process(
                List.of(
                        new KeyValue("HeaderDigest", "CRC32C"),
                        new KeyValue("MaxBurstLength", "Reject"),
                        new KeyValue("FirstBurstLength", "2048")),
                Negotiation.OPERATIONAL_STAGE,
                new ArrayList<>()));
        assertFalse(n.hasPendingOffers());
        assertEquals("CRC32C", n.value(TextKey.HEADER_DIGEST));
        assertEquals("262144", n.value(TextKey.MAX_BURST_LENGTH));
        assertEquals("2048", n.value(TextKey.FIRST_BURST_LENGTH));
    }
}
