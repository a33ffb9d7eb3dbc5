package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.proto.login.TargetLimits;
import java.util.List;
import org.junit.jupiter.api.Test;

class IserSettingsTest {

    @Test
    void receiveBuffersCoverTheQueueDepthAndTheUnexpectedPdus() {
        IserSettings s = IserSettings.defaults(128);
        assertEquals(128 + 16, s.receiveBuffers());
        assertTrue(s.receiveBufferSize() >= IserHeader.LENGTH + 48 + 8192);
        assertEquals(0, s.receiveBufferSize() % 64);
        assertTrue(s.sendBuffers() > s.receiveBuffers());
        long expected = (long) s.receiveBuffers() * s.receiveBufferSize()
                + (long) s.sendBuffers() * s.sendBufferSize()
                + (long) s.dataChunks() * s.dataChunkSize();
        assertEquals(expected, s.connectionBytes());
    }

    @Test
    void rejectsSizesOutsideTheirRange() {
        assertThrows(IllegalArgumentException.class, () -> new IserSettings(0, 1, 8192, 8192, 4096, 1, 1, 16, 1));
        assertThrows(IllegalArgumentException.class, () -> new IserSettings(8, 1, 4096, 8192, 4096, 1, 1, 16, 1));
        assertThrows(IllegalArgumentException.class, () -> new IserSettings(8, 1, 8192, 8192, 4096, 1, 1, 24, 1));
        assertThrows(IllegalArgumentException.class, () -> new IserSettings(8, 1, 8192, 8192, 4096, 1, 1, 16, 9));
    }

    @Test
    void iserLimitsOfferRdmaExtensionsWithoutDigestsAndInitialR2T() {
        TargetLimits base = new TargetLimits(
                262144, 262144, 65536, 4, true, false, List.of("CRC32C", "None"), List.of("CRC32C"), 2, 20, false, 0);
        TargetLimits iser = IserLimits.of(base, IserSettings.defaults(64));
        assertTrue(iser.iser());
        assertEquals(List.of("None"), iser.headerDigests());
        assertEquals(List.of("None"), iser.dataDigests());
        assertTrue(iser.initialR2T(), "no unsolicited Data-Out: everything past immediate data is RDMA-Read");
        assertTrue(iser.immediateData());
        assertEquals(8192, iser.maxRecvDataSegmentLength(), "no more than a receive buffer holds");
        assertEquals(262144, iser.maxBurstLength());
        assertEquals(65536, iser.firstBurstLength());
        assertEquals(16, iser.maxOutstandingUnexpectedPdus(), "the receive buffers beyond the command window");
        assertEquals(0, base.maxOutstandingUnexpectedPdus());
    }

    @Test
    void iserLimitsCarryTheUnexpectedPduCount() {
        IserSettings s = new IserSettings(32, 4, 8192, 8192, 4096, 1, 1, 64, 8);
        TargetLimits iser = IserLimits.of(TargetLimits.defaults(), s);
        assertEquals(4, iser.maxOutstandingUnexpectedPdus());
        assertEquals(s.receiveBuffers() - s.queueDepth(), iser.maxOutstandingUnexpectedPdus());
    }
}
