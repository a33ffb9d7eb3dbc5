package io.numaiscsi.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import io.numaiscsi.cache.CacheParameters;
import io.numaiscsi.cache.CachedBlockDevice;
import io.numaiscsi.config.LimitsSettings;
import io.numaiscsi.iser.IserLimits;
import io.numaiscsi.iser.IserSettings;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.login.TargetLimits;
import io.numaiscsi.proto.transport.DataInTask;
import io.numaiscsi.proto.transport.DataOutTask;
import io.numaiscsi.scsi.LogicalUnit;
import io.numaiscsi.scsi.LunIdentity;
import io.numaiscsi.scsi.ScsiTarget;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The session layer over a transport that places data itself, as iSER does: a WRITE takes its immediate data from
 * the command and asks the transport for the rest (no R2T), a READ hands its data to the transport, which queues the
 * SCSI Response behind it (no Data-In PDU).
 */
class DataPlacingTransportTest {
    private static final String TARGET = "iqn.2026-11.test:iser";
    private static final int OPCODE_SCSI_RESPONSE = 0x21;
    private static final int OPCODE_DATA_IN = 0x25;
    private static final int OPCODE_R2T = 0x31;

    /** A transport that moves data itself, as {@code IserTransport} does; records what the session asks of it. */
    static final class PlacingTransport extends FakeTransport {
        int getItt = -1;
        ByteBuf getInto;
        int getOffset = -1;
        int getLength = -1;
        int getSolicitedStart = -1;
        int putItt = -1;
        byte[] putData;
        /** Where the data-in lay: one direct buffer per piece. */
        ByteBuffer[] putPieces;

        PlacingTransport() {
            super("10.0.2.15:40000");
        }

        @Override
        public void getDataOut(DataOutTask task) {
            if (task.received() < task.unsolicitedEnd()) {
                return;
            }
            getItt = task.itt();
            getInto = task.buffer().retain();
            getOffset = task.requestedEnd();
            getLength = task.end() - task.requestedEnd();
            getSolicitedStart = task.unsolicitedEnd();
            task.requested(task.end());
        }

        @Override
        public void queueDataIn(DataInTask task) {
            ByteBuf data = task.data();
            putItt = task.itt();
            putData = ByteBufUtil.getBytes(data, data.readerIndex(), task.length());
            putPieces = data.nioBuffers(data.readerIndex(), task.length());
            task.sendStatus();
        }

        @Override
        public boolean sendsDataInInPlace() {
            return true;
        }

        @Override
        public boolean kernelCopiesData() {
            return false;
        }

        @Override
        public String localAddress() {
            return "10.0.2.15:3260";
        }

        List<Integer> opcodes() {
            List<Integer> out = new ArrayList<>();
            for (ByteBuf b : written) {
                out.add(b.getByte(b.readerIndex()) & 0x3f);
            }
            return out;
        }

        ByteBuf lastOf(int opcode) {
            for (int i = written.size() - 1; i >= 0; i--) {
                ByteBuf b = written.get(i);
                if ((b.getByte(b.readerIndex()) & 0x3f) == opcode) {
                    return b;
                }
            }
            return null;
        }

        @Override
        void release() {
            super.release();
            if (getInto != null) {
                getInto.release();
                getInto = null;
            }
        }
    }

    private PlacingTransport transport;
    private IscsiConnection connection;
    private int cmdSN = 1;

    @BeforeEach
    void logIn() {
        logIn(new RamBlockDevice(1 << 20, 512));
    }

    private void logIn(BlockDevice device) {
        TargetLimits limits = IserLimits.of(TargetLimits.defaults(), IserSettings.defaults(16));
        SessionSettings settings = new SessionSettings(
                limits,
                16,
                Duration.ZERO,
                Duration.ZERO,
                List.of("10.0.2.15:3260"),
                1,
                LimitsSettings.DEFAULT,
                ChapAccounts.NONE);
        ScsiTarget scsi = new ScsiTarget(
                TARGET,
                List.of(new LogicalUnit(0, LunIdentity.derive(TARGET, 0, null), device)),
                UnpooledByteBufAllocator.DEFAULT);
        TargetDirectory directory = new TargetDirectory(List.of(new ExportedTarget(TARGET, null, List.of(), scsi)));
        EventThreads inline = InlineEventThreads.INSTANCE;
        SessionServices services =
                new SessionServices(settings, directory, new SessionTable(), inline, new EventThreadRegistry());
        transport = new PlacingTransport();
        connection = new IscsiConnection(transport, services, System::nanoTime);
        connection.onPdu(ConnectionLoginTest.request(
                1,
                3,
                0x400001370000L,
                ConnectionLoginTest.keys(
                        "InitiatorName",
                        "iqn.2026-11.test:host",
                        "TargetName",
                        TARGET,
                        "SessionType",
                        "Normal",
                        "RDMAExtensions",
                        "Yes",
                        "HeaderDigest",
                        "None",
                        "DataDigest",
                        "None",
                        "ImmediateData",
                        "Yes",
                        "InitialR2T",
                        "No",
                        "MaxRecvDataSegmentLength",
                        "8192")));
        for (int i = 0; i < 3 && connection.parameters() == null; i++) {
            connection.onPdu(ConnectionLoginTest.request(1, 3, 0x400001370000L, ConnectionLoginTest.keys()));
        }
        assertNotNull(connection.parameters(), "login did not complete");
        assertTrue(connection.parameters().rdmaExtensions());
        assertTrue(connection.parameters().initialR2T(), "iSER limits force InitialR2T=Yes");
        transport.release();
    }

    @AfterEach
    void release() {
        transport.release();
        connection.onClosed();
    }

    private Pdu command(int itt, boolean read, int blocks, byte[] immediate) {
        ByteBuf bhs = Unpooled.buffer(48, 48).writeZero(48);
        bhs.setByte(0, 0x01);
        bhs.setByte(1, 0x80 | (read ? 0x40 : 0x20) | 0x01);
        bhs.setMedium(5, immediate == null ? 0 : immediate.length);
        bhs.setInt(16, itt);
        bhs.setInt(20, blocks * 512);
        bhs.setInt(24, cmdSN++);
        bhs.setByte(32, read ? 0x28 : 0x2a);
        bhs.setShort(32 + 7, blocks);
        return Pdu.newInstance(bhs, null, immediate == null ? null : Unpooled.wrappedBuffer(immediate));
    }

    @Test
    void writeTakesImmediateDataThenAsksTheTransportForTheRestAndReadHandsItsDataToTheTransport() {
        byte[] payload = new byte[4096];
        new Random(7).nextBytes(payload);
        byte[] immediate = Arrays.copyOf(payload, 1024);

        connection.onPdu(command(0x10, false, 8, immediate));
        assertEquals(0x10, transport.getItt, "the rest of the data-out is the transport's job");
        assertEquals(1024, transport.getOffset);
        assertEquals(3072, transport.getLength);
        assertEquals(1024, transport.getSolicitedStart, "the initiator's buffer starts after the immediate data");
        assertTrue(!transport.opcodes().contains(OPCODE_R2T), "no R2T: " + transport.opcodes());
        assertTrue(transport.written.isEmpty(), "nothing answered before the data is in");

        transport.getInto.setBytes(1024, payload, 1024, 3072);
        connection.dataOutArrived(0x10, 4096);
        ByteBuf writeResponse = transport.lastOf(OPCODE_SCSI_RESPONSE);
        assertNotNull(writeResponse, "the write is answered once its data arrived: " + transport.opcodes());
        assertEquals(0x10, writeResponse.getInt(16));
        assertEquals(0, writeResponse.getByte(3), "GOOD");

        connection.onPdu(command(0x11, true, 8, null));
        assertEquals(0x11, transport.putItt);
        assertArrayEquals(payload, transport.putData, "the transport gets what the write stored");
        ByteBuf readResponse = transport.lastOf(OPCODE_SCSI_RESPONSE);
        assertEquals(0x11, readResponse.getInt(16));
        assertEquals(0, readResponse.getByte(3));
        assertTrue(!transport.opcodes().contains(OPCODE_DATA_IN), "no Data-In PDU: " + transport.opcodes());
    }

    @Test
    void aReadFromTheCacheReachesTheTransportAsTheCacheBlocksThemselves() {
        release();
        NumaTopology topology = NumaTopology.detect().pretend(2);
        CachedBlockDevice cached = CachedBlockDevice.create(
                new RamBlockDevice(1 << 20, 512),
                new CacheParameters(256 * 1024, 64 * 1024, 2, 1, 64 * 1024, WritePolicy.WRITE_THROUGH),
                topology,
                NodeMemory.open(topology),
                null);
        try {
            logIn(cached);
            byte[] payload = new byte[4096];
            new Random(8).nextBytes(payload);
            connection.onPdu(command(0x30, false, 8, Arrays.copyOf(payload, 1024)));
            transport.getInto.setBytes(1024, payload, 1024, 3072);
            connection.dataOutArrived(0x30, 4096);

            // the first small read of a block not in the cache reads through (one copy); the block is admitted on
            // reuse, so the second read is served from the cache blocks themselves
            connection.onPdu(command(0x31, true, 8, null));
            assertArrayEquals(payload, transport.putData);
            connection.onPdu(command(0x32, true, 8, null));
            assertArrayEquals(payload, transport.putData);
            for (ByteBuffer piece : transport.putPieces) {
                assertTrue(inside(piece, cached.memory()), "data-in lies in the cache's own memory (no copy)");
            }
            assertEquals(
                    4096,
                    cached.counters()
                            .snapshot()
                            .total(cached.counters().snapshot().inPlaceBytes()));
        } finally {
            transport.release();
            connection.onClosed();
            cached.close();
            logIn(); // for the @AfterEach
        }
    }

    private static boolean inside(ByteBuffer piece, List<ByteBuffer> regions) {
        long at = PlatformDependent.directBufferAddress(piece) + piece.position();
        for (ByteBuffer r : regions) {
            long base = PlatformDependent.directBufferAddress(r);
            if (at >= base && at + piece.remaining() <= base + r.capacity()) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aFailedTransferEndsTheWriteWithCheckCondition() {
        connection.onPdu(command(0x20, false, 8, new byte[512]));
        assertEquals(0x20, transport.getItt);
        connection.dataOutFailed(0x20);
        ByteBuf response = transport.lastOf(OPCODE_SCSI_RESPONSE);
        assertNotNull(response);
        assertEquals(0x20, response.getInt(16));
        assertEquals(0x02, response.getByte(3), "CHECK CONDITION");
    }
}
