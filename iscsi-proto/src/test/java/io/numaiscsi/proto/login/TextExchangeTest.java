package io.numaiscsi.proto.login;

import static io.numaiscsi.proto.login.FakeLoginContext.INITIATOR;
import static io.numaiscsi.proto.login.FakeLoginContext.TARGET;
import static io.numaiscsi.proto.login.FakeLoginContext.keys;
import static io.numaiscsi.proto.login.FakeLoginContext.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TextExchangeTest {
    static final int NONE = TextExchange.RESERVED_TAG;
    static final int ITT = 0x1234;

    private final FakeLoginContext context = new FakeLoginContext();

    private static SessionParameters session(SessionType type, int initiatorMrdsl) {
        return new SessionParameters(
                type,
                INITIATOR,
                type == SessionType.NORMAL ? TARGET : null,
                0x1L,
                1,
                0,
                262144,
                Map.of(TextKey.MAX_RECV_DATA_SEGMENT_LENGTH, Integer.toString(initiatorMrdsl)),
                1);
    }

    private TextExchange discovery(int mrdsl) {
        return new TextExchange(session(SessionType.DISCOVERY, mrdsl), context);
    }

    private static void assertFinal(TextStep step) {
        assertTrue(step.finalBit());
        assertFalse(step.continueBit());
        assertEquals(NONE, step.targetTransferTag());
        assertFalse(step.reject());
    }

    @Test
    void sendTargetsAllInDiscovery() {
        TextStep step = discovery(8192).onRequest(true, false, ITT, NONE, text("SendTargets=All"));
        assertFinal(step);
        assertEquals(context.targets, keys(step.data()));
        assertEquals(List.of("All"), context.scopes);
    }

    @Test
    void longResponseIsSplitByTheInitiatorsMaxRecvDataSegmentLength() {
        context.targets.clear();
        for (int i = 0; i < 100; i++) {
            context.targets.add(new KeyValue("TargetName", "iqn.2024-01.io.numaiscsi:disk" + i));
            context.targets.add(new KeyValue("TargetAddress", "192.0.2." + i + ":3260,1"));
        }
        TextExchange exchange = discovery(512);
        TextStep step = exchange.onRequest(true, false, ITT, NONE, text("SendTargets=All"));
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        int pieces = 1;
        int lastTag = NONE;
        while (step.continueBit()) {
            assertFalse(step.finalBit());
            assertFalse(step.reject());
            assertNotEquals(NONE, step.targetTransferTag());
            assertNotEquals(lastTag, step.targetTransferTag());
            assertEquals(512, step.data().length);
            lastTag = step.targetTransferTag();
            all.writeBytes(step.data());
            step = exchange.onRequest(true, false, ITT, lastTag, new byte[0]);
            pieces++;
        }
        assertFinal(step);
        assertTrue(step.data().length <= 512);
        all.writeBytes(step.data());
        assertEquals(context.targets, keys(all.toByteArray()));
        assertTrue(pieces > 10, "pieces " + pieces);
        assertEquals(List.of("All"), context.scopes, "asked the context once");
    }

    @Test
    void continuationWithAWrongTagOrDataIsRejected() {
        context.targets.add(new KeyValue("TargetAddress", "x".repeat(200)));
        TextExchange exchange = discovery(512);
        context.targets.add(new KeyValue("TargetAddress", "y".repeat(200)));
        context.targets.add(new KeyValue("TargetAddress", "z".repeat(200)));
        TextStep first = exchange.onRequest(true, false, ITT, NONE, text("SendTargets=All"));
        assertTrue(first.continueBit());
        assertTrue(exchange.onRequest(true, false, ITT, first.targetTransferTag() + 1, new byte[0])
                .reject());
        TextStep again = exchange.onRequest(true, false, ITT, NONE, text("SendTargets=All"));
        assertTrue(again.continueBit());
        assertTrue(exchange.onRequest(true, false, ITT, again.targetTransferTag(), text("SendTargets=All"))
                .reject());
    }

    @Test
    void newRequestAbandonsAnUnfinishedResponse() {
        for (int i = 0; i < 40; i++) {
            context.targets.add(new KeyValue("TargetName", "iqn.2024-01.io.numaiscsi:extra" + i));
        }
        TextExchange exchange = discovery(512);
        TextStep first = exchange.onRequest(true, false, ITT, NONE, text("SendTargets=All"));
        assertTrue(first.continueBit());
        TextStep fresh = exchange.onRequest(true, false, ITT + 1, NONE, text("X-unknown=1"));
        assertFinal(fresh);
        assertEquals(List.of(new KeyValue("X-unknown", "NotUnderstood")), keys(fresh.data()));
        assertTrue(exchange.onRequest(true, false, ITT, first.targetTransferTag(), new byte[0])
                .reject());
    }

    @Test
    void continuedRequestIsReassembled() {
        byte[] whole = text("SendTargets=All");
        TextExchange exchange = discovery(8192);
        TextStep ack = exchange.onRequest(false, true, ITT, NONE, Arrays.copyOfRange(whole, 0, 5));
        assertFalse(ack.finalBit());
        assertFalse(ack.continueBit());
        assertFalse(ack.reject());
        assertNotEquals(NONE, ack.targetTransferTag());
        assertEquals(0, ack.data().length);
        assertTrue(context.scopes.isEmpty());
        TextStep step = exchange.onRequest(
                true, false, ITT, ack.targetTransferTag(), Arrays.copyOfRange(whole, 5, whole.length));
        assertFinal(step);
        assertEquals(List.of("All"), context.scopes);
    }

    @Test
    void protocolErrorsAreRejected() {
        TextExchange exchange = discovery(8192);
        assertTrue(exchange.onRequest(true, true, ITT, NONE, text("SendTargets=All"))
                .reject());
        assertTrue(exchange.onRequest(true, false, ITT, 77, new byte[0]).reject());
        assertTrue(exchange.onRequest(true, false, ITT, NONE, "SendTargets\0".getBytes())
                .reject());
        assertTrue(exchange.onRequest(true, false, ITT, NONE, text("SendTargets=All", "SendTargets=All"))
                .reject());
        assertFalse(exchange.onRequest(true, false, ITT, NONE, text("SendTargets=All"))
                .reject());
    }

    @Test
    void keysOtherThanSendTargetsInFullFeaturePhase() {
        TextExchange exchange = new TextExchange(session(SessionType.NORMAL, 8192), context);
        TextStep step = exchange.onRequest(
                true,
                false,
                ITT,
                NONE,
                text(
                        "MaxBurstLength=4096",
                        "X-com.example=1",
                        "MaxRecvDataSegmentLength=16384",
                        "InitiatorAlias=renamed",
                        "HeaderDigest=CRC32C"));
        assertFinal(step);
        assertEquals(
                List.of(
                        new KeyValue("MaxBurstLength", "Reject"),
                        new KeyValue("X-com.example", "NotUnderstood"),
                        new KeyValue("HeaderDigest", "Reject")),
                keys(step.data()));
        assertEquals(16384, exchange.initiatorMaxRecvDataSegmentLength());
        TextStep bad = exchange.onRequest(true, false, ITT, NONE, text("MaxRecvDataSegmentLength=10"));
        assertEquals(List.of(new KeyValue("MaxRecvDataSegmentLength", "Reject")), keys(bad.data()));
        assertEquals(16384, exchange.initiatorMaxRecvDataSegmentLength());
    }

    @Test
    void iserSessionsKeepInitiatorRecvDataSegmentLengthOverAMaxRecvDataSegmentLengthRedeclaration() {
        SessionParameters iser = new SessionParameters(
                SessionType.NORMAL,
                INITIATOR,
                TARGET,
                0x1L,
                1,
                0,
                8192,
                Map.of(
                        TextKey.RDMA_EXTENSIONS,
                        "Yes",
                        TextKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH,
                        "4096",
                        TextKey.MAX_RECV_DATA_SEGMENT_LENGTH,
                        "262144"),
                1);
        TextExchange exchange = new TextExchange(iser, context);
        assertEquals(4096, exchange.initiatorMaxRecvDataSegmentLength());
        TextStep step = exchange.onRequest(true, false, ITT, NONE, text("MaxRecvDataSegmentLength=65536"));
        assertFinal(step);
        assertEquals(List.of(), keys(step.data()));
        assertEquals(4096, exchange.initiatorMaxRecvDataSegmentLength());
    }

    @Test
    void theTransportsSendBuffersCapWhatTheInitiatorDeclared() {
        SessionParameters iser = new SessionParameters(
                SessionType.NORMAL,
                INITIATOR,
                TARGET,
                0x1L,
                1,
                0,
                8192,
                Map.of(TextKey.RDMA_EXTENSIONS, "Yes", TextKey.INITIATOR_RECV_DATA_SEGMENT_LENGTH, "262144"),
                1);
        assertEquals(262144, iser.initiatorMaxRecvDataSegmentLength());
        assertEquals(8192, new TextExchange(iser, context, 8192).initiatorMaxRecvDataSegmentLength());
        TextExchange tcp = new TextExchange(session(SessionType.NORMAL, 8192), context, 4096);
        tcp.onRequest(true, false, ITT, NONE, text("MaxRecvDataSegmentLength=65536"));
        assertEquals(4096, tcp.initiatorMaxRecvDataSegmentLength(), "a re-declaration stays under the cap too");
    }

    @Test
    void sendTargetsInANormalSessionCoversItsOwnTargetOnly() {
        TextExchange exchange = new TextExchange(session(SessionType.NORMAL, 8192), context);
        assertEquals(
                context.targets,
                keys(exchange.onRequest(true, false, ITT, NONE, text("SendTargets="))
                        .data()));
        assertEquals(
                context.targets,
                keys(exchange.onRequest(true, false, ITT, NONE, text("SendTargets=" + TARGET))
                        .data()));
        assertEquals(List.of(TARGET, TARGET), context.scopes);
        assertEquals(
                List.of(new KeyValue("SendTargets", "Reject")),
                keys(exchange.onRequest(true, false, ITT, NONE, text("SendTargets=All"))
                        .data()));
        assertEquals(2, context.scopes.size());
    }

    @Test
    void emptyResponseForAnEmptyRequest() {
        TextStep step = discovery(8192).onRequest(true, false, ITT, NONE, new byte[0]);
        assertFinal(step);
        assertEquals(0, step.data().length);
    }
}
