package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.Opcode;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.ScsiCommandHeader;
import io.numaiscsi.proto.transport.TransportEvents;
import java.nio.ByteBuffer;

/**
 * The receive side: keeps every receive buffer posted, and turns each Send that lands (iSER header, BHS, AHS, data
 * segment) into a {@link Pdu} for the session, after recording the task buffers a SCSI Command advertises. The
 * connection's thread only.
 */
final class IserReceiver {
    private final RdmaEndpoint endpoint;
    private final MemoryRegion region;
    private final ChunkPool rx;
    private final ByteBufAllocator alloc;
    private final TransportEvents events;
    private final IserLifecycle lifecycle;
    private final TaskTable tasks;
    private final IserCounters counters;
    private final IserTouches touches;
    /** Per receive chunk, the registered memory from its BHS on: what the iscsi-proto flyweights read. */
    private final ByteBuf[] pduOf;

    private final ScsiCommandHeader command = new ScsiCommandHeader();
    private int posted;

    IserReceiver(
            RdmaEndpoint endpoint,
            MemoryRegion region,
            ChunkPool rx,
            ByteBufAllocator alloc,
            TransportEvents events,
            IserLifecycle lifecycle,
            TaskTable tasks,
            IserCounters counters,
            IserTouches touches) {
        this.touches = touches;
        this.endpoint = endpoint;
        this.region = region;
        this.rx = rx;
        this.alloc = alloc;
        this.events = events;
        this.lifecycle = lifecycle;
        this.tasks = tasks;
        this.counters = counters;
        ByteBuf slab = Unpooled.wrappedBuffer(region.buffer().duplicate().clear());
        this.pduOf = new ByteBuf[rx.capacity()];
        for (int chunk = 0; chunk < pduOf.length; chunk++) {
            pduOf[chunk] = slab.slice(rx.offset(chunk) + IserHeader.LENGTH, rx.chunkSize() - IserHeader.LENGTH);
        }
    }

    /** Posts every receive buffer; false (the connection failed) when the device refuses one. */
    boolean postAll() {
        for (int i = 0; i < rx.capacity(); i++) {
            int chunk = rx.take();
            if (!post(chunk)) {
                return false;
            }
        }
        return true;
    }

    void onReceive(int chunk, int status, int byteLength) {
        posted--;
        if (status != WorkCompletion.SUCCESS) {
            rx.give(chunk);
            if (lifecycle.up()) {
                lifecycle.fail("receive completion " + WorkCompletion.statusName(status));
            }
            return;
        }
        if (!lifecycle.up() || lifecycle.closeRequested()) {
            rx.give(chunk);
            return;
        }
        counters.received();
        int at = rx.offset(chunk);
        ByteBuffer b = region.buffer();
        if (byteLength < IserSettings.HEADERS || IserHeader.kind(b, at) != IserHeader.Kind.CONTROL) {
            rx.give(chunk);
            lifecycle.fail(
                    byteLength < IserSettings.HEADERS
                            ? "Send of " + byteLength + " bytes, shorter than the headers"
                            : "iSER opcode " + IserHeader.kind(b, at) + " (Hello is for iWARP only)");
            return;
        }
        ByteBuf pdu = pduOf[chunk];
        int ahsLength = Bhs.totalAhsLength(pdu);
        int dataLength = Bhs.dataSegmentLength(pdu);
        if (IserSettings.HEADERS + ahsLength + dataLength > byteLength) {
            rx.give(chunk);
            lifecycle.fail(
                    "PDU of " + (IserSettings.HEADERS + ahsLength + dataLength) + " bytes in a Send of " + byteLength);
            return;
        }
        if (Bhs.opcode(pdu) == Opcode.SCSI_COMMAND.code()) {
            recordTaskBuffers(b, at, command.wrap(pdu));
        }
        ByteBuf bhs = alloc.buffer(Bhs.LENGTH, Bhs.LENGTH);
        bhs.writeBytes(pdu, 0, Bhs.LENGTH);
        ByteBuf ahs = null;
        if (ahsLength > 0) {
            ahs = alloc.buffer(ahsLength, ahsLength);
            ahs.writeBytes(pdu, Bhs.LENGTH, ahsLength);
        }
        ByteBuf segment = null;
        if (dataLength > 0) {
            segment = alloc.directBuffer(dataLength, dataLength);
            segment.writeBytes(pdu, Bhs.LENGTH + ahsLength, dataLength);
            long data = region.address() + at + IserSettings.HEADERS + ahsLength;
            touches.deviceWrote(data, dataLength);
            touches.copiedOut(data, dataLength, segment, 0);
        }
        // Copied out: the buffer goes back to the receive queue before the session sees the PDU.
        if (!post(chunk)) {
            release(bhs, ahs, segment);
            return;
        }
        events.onPdu(Pdu.newInstance(bhs, ahs, segment));
    }

    private void recordTaskBuffers(ByteBuffer b, int at, ScsiCommandHeader cmd) {
        int itt = cmd.initiatorTaskTag();
        boolean wsv = cmd.writeBit() && IserHeader.writeStagValid(b, at);
        boolean rsv = cmd.readBit() && IserHeader.readStagValid(b, at);
        tasks.entry(itt)
                .set(
                        itt,
                        wsv,
                        IserHeader.writeStag(b, at),
                        IserHeader.writeBaseOffset(b, at),
                        rsv,
                        IserHeader.readStag(b, at),
                        IserHeader.readBaseOffset(b, at),
                        (int) cmd.expectedDataTransferLength());
    }

    private boolean post(int chunk) {
        int rc = endpoint.postRecv(SendQueue.recvWrId(chunk), region, rx.offset(chunk), rx.chunkSize());
        if (rc != 0) {
            rx.give(chunk);
            lifecycle.fail("ibv_post_recv failed: " + rc);
            return false;
        }
        posted++;
        lifecycle.doorbell();
        return true;
    }

    /** Receives posted and not yet completed. */
    int posted() {
        return posted;
    }

    /** The queue pair is destroyed: the receives still posted never complete. Returns how many. */
    int forgetPosted() {
        int n = posted;
        posted = 0;
        return n;
    }

    private static void release(ByteBuf a, ByteBuf b, ByteBuf c) {
        if (a != null) {
            a.release();
        }
        if (b != null) {
            b.release();
        }
        if (c != null) {
            c.release();
        }
    }
}
