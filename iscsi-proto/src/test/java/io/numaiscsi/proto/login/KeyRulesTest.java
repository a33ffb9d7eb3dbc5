package io.numaiscsi.proto.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyRulesTest {
    /** Target limit sets the case table refers to by name. */
    static final Map<String, TargetLimits> LIMITS = Map.of(
            "defaults", TargetLimits.defaults(),
            "strict",
                    new TargetLimits(
                            8192, 65536, 16384, 4, false, false, List.of("CRC32C"), List.of("CRC32C"), 5, 10, true, 0),
            "crcFirst",
                    new TargetLimits(
                            65536,
                            1048576,
                            262144,
                            16,
                            true,
                            true,
                            List.of("CRC32C", "None"),
                            List.of("None"),
                            0,
                            3600,
                            false,
                            0));

    @ParameterizedTest(name = "{0}={1} against {2} -> {3}")
    @CsvSource({
        // key, initiator value, target limits, expected answer
        "HeaderDigest, 'CRC32C,None', defaults, CRC32C",
        "HeaderDigest, 'None,CRC32C', defaults, None",
        "HeaderDigest, 'None,CRC32C', crcFirst, None",
        "HeaderDigest, None, strict, Reject",
        "HeaderDigest, 'None,CRC32C', strict, CRC32C",
        "HeaderDigest, 'FOO,CRC32C', defaults, CRC32C",
        "DataDigest, CRC32C, crcFirst, Reject",
        "DataDigest, 'CRC32C,None', crcFirst, None",
        "MaxConnections, 4, defaults, 1",
        "MaxConnections, 1, defaults, 1",
        "MaxConnections, 0, defaults, Reject",
        "MaxConnections, 65536, defaults, Reject",
        "InitialR2T, No, defaults, Yes",
        "InitialR2T, No, strict, No",
        "InitialR2T, Yes, strict, Yes",
        "InitialR2T, maybe, strict, Reject",
        "ImmediateData, Yes, defaults, Yes",
        "ImmediateData, Yes, strict, No",
        "ImmediateData, No, defaults, No",
        "MaxBurstLength, 16776192, defaults, 262144",
        "MaxBurstLength, 131072, defaults, 131072",
        "MaxBurstLength, 0x20000, defaults, 131072",
        "MaxBurstLength, 511, defaults, Reject",
        "MaxBurstLength, 16777216, defaults, Reject",
        "MaxBurstLength, 12ab, defaults, Reject",
        "MaxBurstLength, -1, defaults, Reject",
        "MaxBurstLength, '', defaults, Reject",
        "FirstBurstLength, 262144, defaults, 65536",
        "FirstBurstLength, 8192, strict, 8192",
        "FirstBurstLength, 262144, strict, 16384",
        "DefaultTime2Wait, 0, defaults, 2",
        "DefaultTime2Wait, 10, defaults, 10",
        "DefaultTime2Wait, 3601, defaults, Reject",
        "DefaultTime2Retain, 0, defaults, 0",
        "DefaultTime2Retain, 60, strict, 10",
        "DefaultTime2Retain, 20, crcFirst, 20",
        "MaxOutstandingR2T, 16, strict, 4",
        "MaxOutstandingR2T, 1, strict, 1",
        "MaxOutstandingR2T, 0, strict, Reject",
        "DataPDUInOrder, No, defaults, Yes",
        "DataPDUInOrder, Yes, defaults, Yes",
        "DataSequenceInOrder, No, defaults, Yes",
        "ErrorRecoveryLevel, 2, defaults, 0",
        "ErrorRecoveryLevel, 0, defaults, 0",
        "ErrorRecoveryLevel, 3, defaults, Reject",
        "TaskReporting, 'FastAbort,RFC3720', defaults, RFC3720",
        "TaskReporting, ResponseFence, defaults, Reject",
        "iSCSIProtocolLevel, 2, defaults, 1",
        "iSCSIProtocolLevel, 0, defaults, 0",
        "OFMarker, Yes, defaults, No",
        "IFMarker, No, defaults, No",
        "OFMarkInt, 2048~8192, defaults, Reject",
        "IFMarkInt, 1~65535, defaults, Reject",
        "RDMAExtensions, Yes, defaults, No",
        "RDMAExtensions, Yes, strict, Yes",
        "RDMAExtensions, No, strict, No",
    })
    void answersEachKeyByItsRule(String key, String offered, String limits, String expected) {
        TextKey k = TextKey.byName(key);
        assertEquals(expected, KeyRules.respond(k, offered, KeyRules.targetValue(k, LIMITS.get(limits))));
    }

    @ParameterizedTest(name = "offer {0}={1}, answer {2} -> {3}")
    @CsvSource({
        "MaxBurstLength, 65536, 65536, true",
        "MaxBurstLength, 65536, 32768, true",
        "MaxBurstLength, 65536, 131072, false",
        "MaxBurstLength, 65536, 100, false",
        "DefaultTime2Wait, 5, 10, true",
        "DefaultTime2Wait, 5, 1, false",
        "ImmediateData, No, No, true",
        "ImmediateData, No, Yes, false",
        "ImmediateData, Yes, Yes, true",
        "InitialR2T, Yes, No, false",
        "InitialR2T, No, No, true",
        "HeaderDigest, CRC32C, CRC32C, true",
        "HeaderDigest, CRC32C, None, false",
    })
    void checksAnswersToTargetOffers(String key, String offer, String answer, boolean ok) {
        assertEquals(ok, KeyRules.acceptsAnswer(TextKey.byName(key), offer, answer));
    }

    @Test
    void parsesDecimalAndHexNumbers() {
        assertEquals(8192, KeyRules.parseNumber("8192"));
        assertEquals(8192, KeyRules.parseNumber("0x2000"));
        assertEquals(8192, KeyRules.parseNumber("0X2000"));
        assertEquals(-1, KeyRules.parseNumber("0x"));
        assertEquals(-1, KeyRules.parseNumber("+5"));
        assertEquals(-1, KeyRules.parseNumber("99999999999999999999"));
        assertTrue(KeyRules.inRange(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH, "512"));
        assertFalse(KeyRules.inRange(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH, "511"));
    }
}
