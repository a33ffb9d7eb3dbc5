package io.numaiscsi.iser;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeLocator;
import io.numaiscsi.proto.Pdu;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class IserConnectionTest {
    private static final int QUEUE_DEPTH = 8;

    private FakeFabric fabric;
    private FakeEndpoint target;
    private FakeEndpoint initiatorSide;
    private FakeInitiator initiator;
    private IserConnection conn;
    private Sink sink;
    private IserSettings settings;
    private int destroyed;
    /** Stands in for the cache regions the portal registers at start. */
    private ByteBuffer cacheMemory;

    private RegisteredMemory shared;

    /** Plays the session layer: keeps copies of the PDUs, records what getDataOut reports, counts closes. */
    static final class Sink extends SessionStandIn {
        final List<byte[]> bhs = new ArrayList<>();
        final List<byte[]> data = new ArrayList<>();
        int closed;
        int arrivedItt = -1;
        int arrivedEnd = -1;
        int failedItt = -1;
        int dataOutReports;

        @Override
        public void onPdu(Pdu pdu) {
            bhs.add(ByteBufUtil.getBytes(pdu.bhs()));
            data.add(pdu.data() == null ? new byte[0] : ByteBufUtil.getBytes(pdu.data()));
            pdu.release();
        }

        @Override
        public void onClosed() {
            closed++;
        }

        @Override
        public void dataOutArrived(int itt, int end) {
            arrivedItt = itt;
            arrivedEnd = end;
            dataOutReports++;
        }

        @Override
        public void dataOutFailed(int itt) {
            failedItt = itt;
            dataOutReports++;
        }
    }

    @BeforeEach
    void setUp() {
        start(new IserSettings(QUEUE_DEPTH, 4, 8192, 8192, 16 * 1024, 8, 4, 64, 8));
    }

    private void start(IserSettings s) {
        start(s, IserTouches.unmeasured());
    }

    private void start(IserSettings s, IserTouches touches) {
        settings = s;
        fabric = new FakeFabric();
        FakeEndpoint[] pair = fabric.connect();
        target = pair[0];
        initiatorSide = pair[1];
        MemoryRegion region = fabric.register(ByteBuffer.allocateDirect((int) s.connectionBytes() + 4096));
        sink = new Sink();
        destroyed = 0;
        cacheMemory = ByteBuffer.allocateDirect(256 * 1024);
        shared = RegisteredMemory.register(fabric, List.of(cacheMemory));
        conn = new IserConnection(
                target, region, 4096, s, shared, UnpooledByteBufAllocator.DEFAULT, sink, () -> destroyed++, touches);
        assertTrue(conn.start());
        initiator = new FakeInitiator(fabric, initiatorSide, 16);
    }

    private void pollAll() {
        while (conn.poll(64) > 0) {
            // reap until idle
        }
    }

    private void fullFeature() {
        conn.enterFullFeature(false, false);
        assertEquals(IserConnection.State.FULL_FEATURE, conn.state());
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void receiveBuffersForEveryCommandAndUnexpectedPduArePostedBeforeTheFirstSend() {
        assertEquals(settings.receiveBuffers(), target.postedReceives());
        assertEquals(QUEUE_DEPTH + 4, conn.postedReceives());
        // The initiator fills the window and every unexpected PDU before the target polls once: no RNR.
        for (int i = 0; i < settings.receiveBuffers(); i++) {
            initiator.send(FakeInitiator.nopOut(i, i), null);
        }
        assertEquals(0, fabric.receiverNotReady);
        pollAll();
        assertEquals(settings.receiveBuffers(), sink.bhs.size());
        assertEquals(settings.receiveBuffers(), conn.postedReceives(), "each buffer is reposted as it is consumed");
        assertEquals(settings.receiveBuffers(), target.postedReceives());
    }

    @Test
    void loginPduArrivesIntactAndTheResponseGoesBackBehindAControlHeader() {
        byte[] text = "InitiatorName=iqn.2026-11.test:host\0RDMAExtensions=Yes\0".getBytes();
        initiator.send(FakeInitiator.loginRequest(0x11), text);
        pollAll();
        assertEquals(1, sink.bhs.size());
        assertEquals(0x43, sink.bhs.get(0)[0] & 0xff);
        assertEquals(text.length, ByteBuffer.wrap(sink.bhs.get(0)).getInt(4) & 0xffffff);
        assertArrayEquals(text, sink.data.get(0));
        assertEquals(IserConnection.State.LOGIN, conn.state());

        byte[] response = new byte[48];
        response[0] = 0x23;
        ByteBuffer.wrap(response).putInt(16, 0x11);
        conn.write(Unpooled.wrappedBuffer(response));
        assertTrue(initiator.receive().isEmpty(), "nothing reaches the wire before flush");
        conn.flush();
        List<FakeInitiator.Received> got = initiator.receive();
        assertEquals(1, got.size());
        assertEquals(IserHeader.OPCODE_CONTROL << 4, got.get(0).iserFlags(), "control type, no STag flags");
        assertEquals(0x23, got.get(0).opcode());
        assertEquals(0x11, got.get(0).itt());
    }

    @Test
    void scsiReadIsRdmaWrittenToTheAdvertisedBufferThenTheResponseIsSent() {
        fullFeature();
        int length = 50_000; // four chunks of 16 KiB
        MemoryRegion readBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        initiator.send(
                FakeInitiator.scsiCommand(0x21, true, false, length, 1),
                null,
                false,
                0,
                0,
                true,
                readBuffer.rkey(),
                readBuffer.address());
        pollAll();
        assertEquals(1, conn.tasksTracked());

        byte[] payload = pattern(length, 1);
        ByteBuf dataIn = Unpooled.directBuffer(length).writeBytes(payload);
        conn.putDataIn(0x21, dataIn, length);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x21)));
        int ringsBefore = target.rings;
        conn.flush();
        assertEquals(ringsBefore + 1, target.rings, "one doorbell for the four RDMA Writes and the Send");
        assertEquals(1, dataIn.refCnt(), "the transport copied the data and dropped its reference");
        dataIn.release();

        List<FakeInitiator.Received> got = initiator.receive();
        assertEquals(1, got.size());
        assertEquals(0x21, got.get(0).opcode());
        byte[] placed = new byte[length];
        readBuffer.buffer().get(0, placed);
        assertArrayEquals(payload, placed, "data is in place when the response arrives");
        assertEquals(4, conn.rdmaWrites());
        assertEquals(length, conn.bytesWritten());
        assertEquals(0, conn.bytesWrittenInPlace(), "unregistered memory goes through the staging chunks");
        assertEquals(0, conn.tasksTracked(), "the response retires the task's STags");
        assertTrue(
                target.signaledPosted < target.sqPosted,
                "not every work request is signaled: " + target.signaledPosted + " of " + target.sqPosted);
    }

    /** Data-in over two separate pieces of registered "cache" memory, as a read served from two cache blocks. */
    private ByteBuf cacheBlocks(byte[] payload, int firstAt, int secondAt, int split) {
        ByteBuf cache = Unpooled.wrappedBuffer(cacheMemory);
        cache.setBytes(firstAt, payload, 0, split);
        cache.setBytes(secondAt, payload, split, payload.length - split);
        return Unpooled.compositeBuffer()
                .addComponent(true, cache.retainedSlice(firstAt, split))
                .addComponent(true, cache.retainedSlice(secondAt, payload.length - split));
    }

    @Test
    void dataInLyingInRegisteredCacheMemoryIsRdmaWrittenInPlace() {
        fullFeature();
        int length = 48 * 1024;
        MemoryRegion readBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        initiator.send(
                FakeInitiator.scsiCommand(0x23, true, false, length, 1),
                null,
                false,
                0,
                0,
                true,
                readBuffer.rkey(),
                readBuffer.address());
        pollAll();
        byte[] payload = pattern(length, 23);
        ByteBuf dataIn = cacheBlocks(payload, 128 * 1024, 4096, 20 * 1024);
        conn.putDataIn(0x23, dataIn, length);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x23)));
        conn.flush();
        assertEquals(0, conn.dataChunksInUse(), "no staging chunk");
        assertEquals(2, dataIn.refCnt(), "held until the RDMA Write from it completes");

        List<FakeInitiator.Received> got = initiator.receive();
        assertEquals(1, got.size());
        byte[] placed = new byte[length];
        readBuffer.buffer().get(0, placed);
        assertArrayEquals(payload, placed, "both pieces land back to back before the response");
        assertEquals(2, conn.rdmaWrites(), "one RDMA Write per piece");
        assertEquals(length, conn.bytesWrittenInPlace());
        pollAll();
        assertEquals(1, dataIn.refCnt(), "the completion released the transport's hold (the cache blocks' pins)");
        dataIn.release();
    }

    /** Two nodes: every CPU on node 0, all memory on node 1 (a remote HCA-side picture, easy to tell apart). */
    private static final NodeLocator CPU0_MEMORY1 = new NodeLocator() {
        @Override
        public int nodes() {
            return 2;
        }

        @Override
        public int currentCpuNode() {
            return 0;
        }

        @Override
        public int memoryNode(long address) {
            return 1;
        }
    };

    @Test
    void everyDataByteTheDeviceReadsOrWritesAndEveryStagingCopyIsCounted() {
        DataTouches t = new DataTouches(CPU0_MEMORY1);
        start(settings, new IserTouches(t, 1));
        fullFeature();
        // a read through the staging chunks: the thread copies it in, the device reads it
        int staged = 20_000;
        MemoryRegion readBuffer = fabric.register(ByteBuffer.allocateDirect(64 * 1024));
        initiator.send(
                FakeInitiator.scsiCommand(0x41, true, false, staged, 1),
                null,
                false,
                0,
                0,
                true,
                readBuffer.rkey(),
                readBuffer.address());
        pollAll();
        ByteBuf dataIn = Unpooled.directBuffer(staged).writeBytes(pattern(staged, 41));
        conn.putDataIn(0x41, dataIn, staged);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x41)));
        conn.flush();
        dataIn.release();
        assertEquals(1, initiator.receive().size());
        assertEquals(staged, t.bytes(DataTouches.Kind.HCA_READ, 1, 1));
        assertEquals(2L * staged, t.bytes(DataTouches.Kind.COPY, 0, 1), "source and destination of the copy");
        // a read from registered cache memory: the device reads it in place, no copy
        int inPlace = 24 * 1024;
        initiator.send(
                FakeInitiator.scsiCommand(0x42, true, false, inPlace, 1),
                null,
                false,
                0,
                0,
                true,
                readBuffer.rkey(),
                readBuffer.address());
        pollAll();
        ByteBuf blocks = cacheBlocks(pattern(inPlace, 42), 0, 64 * 1024, 8 * 1024);
        conn.putDataIn(0x42, blocks, inPlace);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x42)));
        conn.flush();
        pollAll();
        blocks.release();
        assertEquals(1, initiator.receive().size());
        assertEquals(staged + inPlace, t.bytes(DataTouches.Kind.HCA_READ, 1, 1));
        assertEquals(2L * staged, t.bytes(DataTouches.Kind.COPY, 0, 1));
        // a write: immediate data received (the device wrote it, the thread copies it out), the rest by RDMA Read
        int length = 40_000;
        int immediate = 8192;
        byte[] payload = pattern(length, 43);
        MemoryRegion writeBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        writeBuffer.buffer().put(0, payload);
        byte[] first = Arrays.copyOf(payload, immediate);
        initiator.send(
                FakeInitiator.scsiCommand(0x43, false, true, length, 1),
                first,
                true,
                writeBuffer.rkey(),
                writeBuffer.address() + immediate,
                false,
                0,
                0);
        pollAll();
        ByteBuf into = Unpooled.directBuffer(length, length).writerIndex(length);
        conn.getDataOut(0x43, into, immediate, length - immediate, immediate);
        conn.flush();
        pollAll();
        into.release();
        assertEquals(length, t.bytes(DataTouches.Kind.HCA_WRITE, 1, 1), "immediate data and RDMA Read data");
        assertEquals(2L * staged + 2L * length, t.bytes(DataTouches.Kind.COPY, 0, 1));
        assertEquals(staged + inPlace + length + 2L * staged + 2L * length, t.totalBytes(), "nothing else counted");
    }

    @Test
    void aTornConnectionReleasesDataInHeldInPlace() {
        fullFeature();
        int length = 32 * 1024;
        MemoryRegion readBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        initiator.send(
                FakeInitiator.scsiCommand(0x24, true, false, length, 1),
                null,
                false,
                0,
                0,
                true,
                readBuffer.rkey(),
                readBuffer.address());
        pollAll();
        target.failWriteAt = 1;
        ByteBuf dataIn = cacheBlocks(pattern(length, 24), 0, 64 * 1024, 8 * 1024);
        conn.putDataIn(0x24, dataIn, length);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x24)));
        conn.flush();
        pollAll();
        assertEquals(1, sink.closed);
        assertEquals(IserConnection.State.CLOSED, conn.state());
        assertEquals(1, dataIn.refCnt(), "flushed writes gave the held data-in back");
        dataIn.release();
    }

    @Test
    void zeroBasedReadBufferIsAddressedByTaggedOffset() {
        fullFeature();
        int length = 20_000;
        MemoryRegion zbva = fabric.registerZeroBased(ByteBuffer.allocateDirect(length + 100));
        initiator.send(
                FakeInitiator.scsiCommand(0x22, true, false, length, 1), null, false, 0, 0, true, zbva.rkey(), 100);
        pollAll();
        byte[] payload = pattern(length, 2);
        ByteBuf dataIn = Unpooled.wrappedBuffer(payload);
        conn.putDataIn(0x22, dataIn, length);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x22)));
        conn.flush();
        assertEquals(1, initiator.receive().size());
        byte[] placed = new byte[length];
        zbva.buffer().get(100, placed);
        assertArrayEquals(payload, placed);
        assertEquals(0, zbva.buffer().get(99));
    }

    @Test
    void scsiWriteTakesImmediateDataFromTheSendAndTheRestByRdmaRead() {
        fullFeature();
        int length = 40_000;
        int immediate = 8192;
        byte[] payload = pattern(length, 3);
        MemoryRegion writeBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        writeBuffer.buffer().put(0, payload);
        byte[] first = new byte[immediate];
        System.arraycopy(payload, 0, first, 0, immediate);
        // Linux iser: the Write Base Offset points at the first byte not sent as immediate data.
        initiator.send(
                FakeInitiator.scsiCommand(0x31, false, true, length, 1),
                first,
                true,
                writeBuffer.rkey(),
                writeBuffer.address() + immediate,
                false,
                0,
                0);
        pollAll();
        assertArrayEquals(first, sink.data.get(0), "immediate data arrives with the command");

        ByteBuf into = Unpooled.directBuffer(length, length).writerIndex(length);
        into.setBytes(0, first);
        conn.getDataOut(0x31, into, immediate, length - immediate, immediate);
        conn.flush();
        assertEquals(2, into.refCnt(), "retained while the reads are in flight");
        pollAll();
        assertEquals(0x31, sink.arrivedItt);
        assertEquals(length, sink.arrivedEnd);
        assertEquals(1, sink.dataOutReports);
        assertEquals(1, into.refCnt());
        assertArrayEquals(payload, ByteBufUtil.getBytes(into));
        assertEquals(2, conn.rdmaReads(), "32 KiB in 16 KiB chunks");
        assertEquals(length - immediate, conn.bytesRead());
        assertEquals(0, conn.dataChunksInUse());
        into.release();
    }

    @Test
    void moreDataInThanChunksWaitsForCompletionsAndKeepsTheResponseLast() {
        start(new IserSettings(QUEUE_DEPTH, 4, 8192, 8192, 4096, 2, 4, 64, 8));
        fullFeature();
        int length = 64 * 1024; // sixteen chunk loads through two chunks
        MemoryRegion readBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        initiator.send(
                FakeInitiator.scsiCommand(0x41, true, false, length, 1),
                null,
                false,
                0,
                0,
                true,
                readBuffer.rkey(),
                readBuffer.address());
        pollAll();
        byte[] payload = pattern(length, 4);
        ByteBuf dataIn = Unpooled.wrappedBuffer(payload);
        conn.putDataIn(0x41, dataIn, length);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x41)));
        dataIn.release(); // the session may drop its reference at once
        conn.flush();
        assertTrue(conn.backlogLength() > 0, "out of chunks: the rest waits");
        assertTrue(initiator.receive().isEmpty(), "the response does not overtake its data");
        for (int i = 0; i < 100 && conn.backlogLength() > 0; i++) {
            conn.poll(64);
        }
        assertEquals(0, conn.backlogLength());
        List<FakeInitiator.Received> got = initiator.receive();
        assertEquals(1, got.size());
        byte[] placed = new byte[length];
        readBuffer.buffer().get(0, placed);
        assertArrayEquals(payload, placed);
        assertEquals(16, conn.rdmaWrites());
    }

    @Test
    void completionErrorMidTransferTearsTheConnectionDownAndAbortsTheTransfer() {
        fullFeature();
        int length = 64 * 1024;
        MemoryRegion writeBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        initiator.send(
                FakeInitiator.scsiCommand(0x51, false, true, length, 1),
                null,
                true,
                writeBuffer.rkey(),
                writeBuffer.address(),
                false,
                0,
                0);
        pollAll();
        target.failReadAt = 2; // the second of four RDMA Reads fails at the initiator's side
        ByteBuf into = Unpooled.directBuffer(length, length).writerIndex(length);
        conn.getDataOut(0x51, into, 0, length, 0);
        conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x99)));
        conn.flush();
        pollAll();

        assertEquals(1, sink.closed, "the session hears of it once and aborts its tasks");
        assertEquals(-1, sink.arrivedItt, "a torn transfer never reports arrival");
        assertEquals(1, into.refCnt(), "the transport dropped its reference to the session's buffer");
        assertNotNull(conn.failure());
        assertTrue(conn.failure().contains("REM_ACCESS_ERR"), conn.failure());
        assertEquals(IserConnection.State.CLOSED, conn.state(), "every flushed request came back");
        assertEquals(1, destroyed, "the slab is free again");
        assertEquals(0, conn.dataChunksInUse());
        assertEquals(0, conn.sendBuffersInUse());
        assertEquals(0, conn.postedReceives());
        assertTrue(target.destroyed);
        // Later calls from the session are harmless.
        ByteBuf late = Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x51));
        conn.write(late);
        assertEquals(0, late.refCnt());
        conn.close();
        assertEquals(1, sink.closed);
        into.release();
    }

    @Test
    void disconnectWhileReadsAreInFlightFlushesThemAndFreesEverything() {
        fullFeature();
        int length = 32 * 1024;
        MemoryRegion writeBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        initiator.send(
                FakeInitiator.scsiCommand(0x61, false, true, length, 1),
                null,
                true,
                writeBuffer.rkey(),
                writeBuffer.address(),
                false,
                0,
                0);
        pollAll();
        target.holdReads = true;
        ByteBuf into = Unpooled.directBuffer(length, length).writerIndex(length);
        conn.getDataOut(0x61, into, 0, length, 0);
        conn.flush();
        assertEquals(2, conn.dataChunksInUse());
        conn.close(); // the session drops the connection (logout, timeout) mid-transfer
        assertEquals(1, sink.closed);
        assertEquals(IserConnection.State.CLOSING, conn.state());
        pollAll();
        assertEquals(IserConnection.State.CLOSED, conn.state());
        assertEquals(0, sink.dataOutReports);
        assertEquals(1, into.refCnt());
        assertEquals(0, conn.dataChunksInUse());
        assertEquals(1, destroyed);
        into.release();
    }

    @Test
    void closeSendsWhatIsQueuedBeforeDisconnecting() {
        fullFeature();
        byte[] logoutResponse = new byte[48];
        logoutResponse[0] = 0x26;
        ByteBuffer.wrap(logoutResponse).putInt(16, 0x77);
        conn.write(Unpooled.wrappedBuffer(logoutResponse));
        conn.close();
        assertEquals(0, sink.closed, "not before the Logout Response has left");
        List<FakeInitiator.Received> got = initiator.receive();
        assertEquals(1, got.size());
        assertEquals(0x26, got.get(0).opcode());
        pollAll();
        assertEquals(1, sink.closed);
        assertEquals(IserConnection.State.CLOSED, conn.state());
        assertNull(conn.failure(), "a close is not a failure");
        assertEquals(1, destroyed);
    }

    /** Responses flushed unsignaled, as in every discovery: the device completes them without a word. */
    private void answerSilently(int responses) {
        fullFeature();
        for (int i = 0; i < responses; i++) {
            conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(0x80 + i)));
            conn.flush();
        }
        assertEquals(responses, initiator.receive().size());
        pollAll();
        assertEquals(0, conn.signaledRequests(), "fewer responses than the signal interval: none signaled");
    }

    private void assertEverythingBack() {
        assertEquals(IserConnection.State.CLOSED, conn.state());
        assertEquals(1, destroyed, "the queue pair is destroyed and the slab free");
        assertTrue(target.destroyed);
        assertEquals(1, sink.closed);
        assertEquals(0, conn.sendBuffersInUse());
        assertEquals(0, conn.dataChunksInUse());
        assertEquals(0, conn.postedReceives());
    }

    @Test
    void anInitiatorThatDisconnectsAfterUnsignaledResponsesLeavesNoQueuePairBehind() {
        answerSilently(3);
        initiatorSide.disconnect();
        CmEvent.deliver(CmEvent.DISCONNECTED, conn);
        assertEquals(IserConnection.State.CLOSING, conn.state());
        pollAll(); // the flushes of the receives and of the drain marker behind the silent Sends
        assertEverythingBack();
        assertNull(conn.failure(), "the initiator leaving is no failure");
    }

    @Test
    void closeByTheTargetAfterFlushedResponsesWaitsForNoCompletionThatCannotCome() {
        answerSilently(2);
        conn.close();
        assertEquals(1, sink.closed, "nothing left to send: the teardown starts at once");
        pollAll();
        assertEverythingBack();
    }

    @Test
    void aLoginRejectFlushedJustBeforeCloseLeavesBeforeTheDisconnect() {
        initiator.send(FakeInitiator.loginRequest(0x31), null);
        pollAll();
        byte[] reject = new byte[48];
        reject[0] = 0x23;
        reject[36] = 0x02; // status class: initiator error
        ByteBuffer.wrap(reject).putInt(16, 0x31);
        conn.write(Unpooled.wrappedBuffer(reject));
        conn.flush();
        conn.close();
        assertEquals(0, sink.closed, "login responses are signaled: close waits for the reject to leave");
        assertEquals(0x23, initiator.receive().get(0).opcode());
        pollAll();
        assertEverythingBack();
    }

    @Test
    void aCloseWaitingForItsLogoutResponseEndsAtOnceWhenTheInitiatorLeaves() {
        answerSilently(1);
        byte[] logoutResponse = new byte[48];
        logoutResponse[0] = 0x26;
        conn.write(Unpooled.wrappedBuffer(logoutResponse));
        conn.close();
        assertEquals(0, sink.closed, "waiting for the Logout Response's completion");
        initiatorSide.disconnect();
        CmEvent.deliver(CmEvent.DISCONNECTED, conn);
        assertEquals(1, sink.closed, "the initiator is gone: no more waiting");
        pollAll();
        assertEverythingBack();
    }

    @Test
    void timewaitExitEndsAConnectionWhoseFlushesNeverCome() {
        answerSilently(2);
        int length = 32 * 1024;
        MemoryRegion writeBuffer = fabric.register(ByteBuffer.allocateDirect(length));
        initiator.send(
                FakeInitiator.scsiCommand(0x61, false, true, length, 1),
                null,
                true,
                writeBuffer.rkey(),
                writeBuffer.address(),
                false,
                0,
                0);
        pollAll();
        target.holdReads = true;
        ByteBuf into = Unpooled.directBuffer(length, length).writerIndex(length);
        conn.getDataOut(0x61, into, 0, length, 0);
        conn.flush();
        target.loseFlushes = true;
        initiatorSide.disconnect();
        CmEvent.deliver(CmEvent.DISCONNECTED, conn);
        pollAll();
        assertEquals(IserConnection.State.CLOSING, conn.state(), "no flush came back");
        assertEquals(0, destroyed);
        CmEvent.deliver(CmEvent.TIMEWAIT_EXIT, conn);
        assertEverythingBack();
        assertEquals(1, into.refCnt(), "the transfer's buffer is given back");
        into.release();
    }

    @Test
    void deviceRemovalDestroysTheQueuePairAtOnce() {
        fullFeature();
        CmEvent.deliver(CmEvent.DEVICE_REMOVAL, conn);
        assertEverythingBack();
    }

    @Test
    void dataInWithoutAReadStagDropsTheConnection() {
        fullFeature();
        initiator.send(FakeInitiator.scsiCommand(0x71, true, false, 4096, 1), null); // RSV not set
        pollAll();
        ByteBuf dataIn = Unpooled.wrappedBuffer(new byte[4096]);
        conn.putDataIn(0x71, dataIn, 4096);
        assertEquals(1, sink.closed);
        assertTrue(conn.failure().contains("read buffer"), conn.failure());
        assertEquals(1, dataIn.refCnt());
        dataIn.release();
    }

    @Test
    void dataOutBeyondTheAdvertisedBufferDropsTheConnection() {
        fullFeature();
        MemoryRegion writeBuffer = fabric.register(ByteBuffer.allocateDirect(8192));
        initiator.send(
                FakeInitiator.scsiCommand(0x72, false, true, 8192, 1),
                null,
                true,
                writeBuffer.rkey(),
                writeBuffer.address(),
                false,
                0,
                0);
        pollAll();
        ByteBuf into = Unpooled.directBuffer(16384).writerIndex(16384);
        conn.getDataOut(0x72, into, 0, 16384, 0);
        assertEquals(0x72, sink.failedItt);
        assertEquals(1, sink.closed);
        assertEquals(1, into.refCnt());
        into.release();
    }

    @Test
    void negotiatedDigestsAreRefused() {
        conn.enterFullFeature(true, false);
        assertEquals(IserConnection.State.CLOSING, conn.state());
        assertEquals(1, sink.closed);
        pollAll();
        assertEquals(IserConnection.State.CLOSED, conn.state());
    }

    @Test
    void helloMessagesAreNotAcceptedOnInfiniBandOrRoce() {
        MemoryRegion scratch = fabric.register(ByteBuffer.allocateDirect(4096));
        IserHeader.put(scratch.buffer(), 0, IserHeader.OPCODE_HELLO, false, 0, 0, false, 0, 0);
        initiatorSide.postSend(1, scratch, 0, 76, true);
        initiatorSide.ring();
        pollAll();
        assertEquals(1, sink.closed);
        assertTrue(conn.failure().contains("HELLO"), conn.failure());
        assertTrue(sink.bhs.isEmpty());
    }

    @Test
    void onlyAFractionOfManyResponsesIsSignaledAndSendBuffersComeBack() {
        fullFeature();
        for (int i = 0; i < 40; i++) {
            conn.write(Unpooled.wrappedBuffer(FakeInitiator.scsiResponse(i)));
            if (i % 4 == 3) {
                conn.flush();
                assertEquals(4, initiator.receive().size());
                pollAll();
            }
        }
        assertEquals(40, conn.sends());
        long signaled = conn.signaledRequests();
        assertTrue(signaled >= 40 / settings.signalInterval() && signaled <= 40 / 2, "signaled " + signaled + " of 40");
        assertTrue(conn.sendBuffersInUse() < settings.signalInterval() + 1, "in use " + conn.sendBuffersInUse());
        assertNull(conn.failure());
        assertFalse(conn.state() == IserConnection.State.CLOSING);
    }
}
