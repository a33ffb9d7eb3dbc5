package io.numaiscsi.proto.login;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class TextKeyTest {

    @ParameterizedTest
    @EnumSource(TextKey.class)
    void byNameFindsEveryKey(TextKey key) {
        assertSame(key, TextKey.byName(key.wireName()));
    }

    @Test
    void unknownAndWrongCaseNamesAreNull() {
        assertNull(TextKey.byName("NoSuchKey"));
        assertNull(TextKey.byName("headerdigest"));
        assertNull(TextKey.byName("X-com.example.key"));
        assertTrue(TextKey.isExtension("X-com.example.key"));
        assertTrue(TextKey.isExtension("X#org.iana.key"));
        assertFalse(TextKey.isExtension("XMaxBurst"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // name, rule, default, phase, scope, sender, irrelevant in discovery
        "HeaderDigest, LIST, None, OPERATIONAL, CONNECTION, BOTH, false",
        "DataDigest, LIST, None, OPERATIONAL, CONNECTION, BOTH, false",
        "MaxConnections, NUMERIC_MIN, 1, LEADING_ONLY, SESSION, BOTH, true",
        "InitialR2T, BOOLEAN_OR, Yes, LEADING_ONLY, SESSION, BOTH, true",
        "ImmediateData, BOOLEAN_AND, Yes, LEADING_ONLY, SESSION, BOTH, true",
        "MaxRecvDataSegmentLength, DECLARATIVE, 8192, OPERATIONAL, CONNECTION, BOTH, false",
        "MaxBurstLength, NUMERIC_MIN, 262144, LEADING_ONLY, SESSION, BOTH, true",
        "FirstBurstLength, NUMERIC_MIN, 65536, LEADING_ONLY, SESSION, BOTH, true",
        "DefaultTime2Wait, NUMERIC_MAX, 2, LEADING_ONLY, SESSION, BOTH, false",
        "DefaultTime2Retain, NUMERIC_MIN, 20, LEADING_ONLY, SESSION, BOTH, false",
        "MaxOutstandingR2T, NUMERIC_MIN, 1, LEADING_ONLY, SESSION, BOTH, true",
        "DataPDUInOrder, BOOLEAN_OR, Yes, LEADING_ONLY, SESSION, BOTH, true",
        "DataSequenceInOrder, BOOLEAN_OR, Yes, LEADING_ONLY, SESSION, BOTH, true",
        "ErrorRecoveryLevel, NUMERIC_MIN, 0, LEADING_ONLY, SESSION, BOTH, false",
        "SessionType, DECLARATIVE, Normal, ANY, SESSION, INITIATOR, false",
        "InitiatorName, DECLARATIVE, '', ANY, SESSION, INITIATOR, false",
        "TargetPortalGroupTag, DECLARATIVE, '', ANY, SESSION, TARGET, false",
        "SendTargets, DECLARATIVE, '', FULL_FEATURE, SESSION, INITIATOR, false",
        "AuthMethod, LIST, None, SECURITY, CONNECTION, BOTH, false",
        "CHAP_R, DECLARATIVE, '', SECURITY, CONNECTION, BOTH, false",
        "RDMAExtensions, BOOLEAN_AND, No, LEADING_ONLY, SESSION, BOTH, true",
        "TargetRecvDataSegmentLength, DECLARATIVE, 8192, OPERATIONAL, CONNECTION, BOTH, true",
        "InitiatorRecvDataSegmentLength, DECLARATIVE, 8192, OPERATIONAL, CONNECTION, BOTH, true",
        "MaxOutstandingUnexpectedPDUs, DECLARATIVE, 0, LEADING_ONLY, SESSION, BOTH, true",
        "IFMarkInt, OBSOLETE, '', OPERATIONAL, CONNECTION, BOTH, false",
    })
    void definitionsFollowTheRfc(
            String name,
            TextKey.Rule rule,
            String def,
            TextKey.Phase phase,
            TextKey.Scope scope,
            TextKey.Sender sender,
            boolean irrelevant) {
        TextKey key = TextKey.byName(name);
        assertEquals(rule, key.rule());
        assertEquals(def, key.defaultValue());
        assertEquals(phase, key.phase());
        assertEquals(scope, key.scope());
        assertEquals(sender, key.sender());
        assertEquals(irrelevant, key.irrelevantInDiscovery());
    }

    @Test
    void numericRanges() {
        assertEquals(512, TextKey.MAX_BURST_LENGTH.min());
        assertEquals(16777215, TextKey.MAX_BURST_LENGTH.max());
        assertEquals(3600, TextKey.DEFAULT_TIME2WAIT.max());
        assertEquals(2, TextKey.ERROR_RECOVERY_LEVEL.max());
        assertEquals(65535, TextKey.MAX_CONNECTIONS.max());
        assertEquals(8192, TextKey.CHAP_C.maxValueLength());
        assertEquals(255, TextKey.TARGET_NAME.maxValueLength());
    }
}
