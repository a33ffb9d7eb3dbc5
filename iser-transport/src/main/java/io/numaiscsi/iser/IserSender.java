package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.iser.IserConnection.State;
import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.Opcode;
import java.util.ArrayDeque;

/**
 * The send side: one backlog, in post order, of the session's PDUs (each a Send behind an iSER header) and the data-in
 * RDMA Writes the {@link RdmaDataMover} queues, posted while send buffers, staging chunks and send queue slots last.
 * One queue for both is what puts a SCSI Response on the wire after the RDMA Writes of its data-in. The connection's
 * thread only.
 */
final class IserSender extends PostingSide {
    private final ChunkPool tx;
    private final int signalInterval;
    private final ArrayDeque<Outgoing> backlog = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> freeOutgoing = new ArrayDeque<>();

    /** {@code tx}: the send buffers the PDUs are copied into behind their iSER headers. */
    IserSender(ConnectionParts parts, ChunkPool tx, IserSettings settings) {
        super(parts);
        this.tx = tx;
        this.signalInterval = settings.signalInterval();
        for (int i = 0; i < settings.sendBuffers() + settings.queueDepth(); i++) {
            freeOutgoing.add(new Outgoing());
        }
    }

    /** Queues one framed PDU for a Send; takes ownership. */
    void write(ByteBuf framedPdu) {
        if (!lifecycle.up()) {
            framedPdu.release();
            return;
        }
        int length = framedPdu.readableBytes();
        int opcode = framedPdu.getByte(framedPdu.readerIndex() + Bhs.OPCODE_OFFSET) & Bhs.OPCODE_MASK;
        boolean movedByRdma = opcode == Opcode.SCSI_DATA_IN.code() || opcode == Opcode.R2T.code();
        if (length + IserHeader.LENGTH > tx.chunkSize() || movedByRdma) {
            framedPdu.release();
            lifecycle.fail(
                    length + IserHeader.LENGTH > tx.chunkSize()
                            ? "a " + length + "-byte PDU exceeds the " + tx.chunkSize() + "-byte send buffers"
                            : "the session sent opcode 0x" + Integer.toHexString(opcode)
                                    + ", which iSER moves by RDMA");
            return;
        }
        if (opcode == Opcode.SCSI_RESPONSE.code()) {
            // the task is over: its STags are spent
            tasks.forget(framedPdu.getInt(framedPdu.readerIndex() + Bhs.INITIATOR_TASK_TAG_OFFSET));
        }
        Outgoing o = outgoing();
        o.kind = SendQueue.SEND;
        o.buffer = framedPdu;
        o.index = framedPdu.readerIndex();
        o.remaining = length;
        backlog.add(o);
    }

    /** Queues an RDMA Write of {@code length} bytes of {@code source} through staging chunks; retains it. */
    void queueWrite(ByteBuf source, int length, long remote, int rkey) {
        Outgoing o = outgoing();
        o.kind = SendQueue.WRITE;
        o.buffer = source.retain();
        o.index = source.readerIndex();
        o.remaining = length;
        o.remote = remote;
        o.rkey = rkey;
        backlog.add(o);
    }

    /** Queues an RDMA Write straight from registered memory; {@code hold} (or -1) is released when it retires. */
    void queueWriteInPlace(MemoryRegion from, int offset, int length, long remote, int rkey, int hold) {
        Outgoing o = outgoing();
        o.kind = SendQueue.WRITE_IN_PLACE;
        o.region = from;
        o.index = offset;
        o.remaining = length;
        o.remote = remote;
        o.rkey = rkey;
        o.hold = hold;
        backlog.add(o);
    }

    /** Posts queued Sends and RDMA Writes in order while send buffers, data chunks and queue slots last. */
    void drain() {
        Outgoing o;
        while ((o = backlog.peek()) != null && lifecycle.up()) {
            if (sq.full()) {
                return;
            }
            if (o.kind == SendQueue.SEND) {
                int chunk = tx.take();
                if (chunk < 0) {
                    return;
                }
                int at = tx.offset(chunk);
                IserHeader.putControl(region.buffer(), at);
                o.buffer.getBytes(o.index, slice(at + IserHeader.LENGTH, o.remaining));
                o.buffer.release();
                // login PDUs are signaled: a login reject flushed just before close() must be seen to leave
                boolean signal = sq.mustSignal(
                        SendQueue.SEND,
                        lifecycle.closeRequested()
                                || lifecycle.state() == State.LOGIN
                                || tx.available() < signalInterval);
                long wrId = sq.push(SendQueue.SEND, chunk, signal);
                int rc = endpoint.postSend(wrId, region, at, IserHeader.LENGTH + o.remaining, signal);
                backlog.poll();
                recycle(o);
                counters.sent();
                lifecycle.doorbell();
                if (rc != 0) {
                    lifecycle.fail("ibv_post_send failed: " + rc);
                    return;
                }
            } else if (o.kind == SendQueue.WRITE_IN_PLACE) {
                // the last piece is signaled: its completion releases the pinned cache blocks
                boolean signal = sq.mustSignal(SendQueue.WRITE_IN_PLACE, lifecycle.closeRequested() || o.hold >= 0);
                long wrId = sq.push(SendQueue.WRITE_IN_PLACE, o.hold, signal);
                int rc = endpoint.postRdmaWrite(wrId, o.region, o.index, o.remaining, o.remote, o.rkey, signal);
                counters.wroteInPlace(o.remaining);
                touches.deviceRead(o.region.address() + o.index, o.remaining);
                lifecycle.doorbell();
                backlog.poll();
                o.hold = -1;
                recycle(o);
                if (rc != 0) {
                    lifecycle.fail("ibv_post_send (RDMA Write) failed: " + rc);
                    return;
                }
            } else {
                int chunk = data.take();
                if (chunk < 0) {
                    return;
                }
                int n = Math.min(o.remaining, data.chunkSize());
                int at = data.offset(chunk);
                o.buffer.getBytes(o.index, slice(at, n));
                boolean signal = sq.mustSignal(SendQueue.WRITE, lifecycle.closeRequested() || data.available() < 2);
                long wrId = sq.push(SendQueue.WRITE, chunk, signal);
                int rc = endpoint.postRdmaWrite(wrId, region, at, n, o.remote, o.rkey, signal);
                counters.wrote(n);
                touches.copiedIn(o.buffer, o.index, n, region.address() + at);
                touches.deviceRead(region.address() + at, n);
                lifecycle.doorbell();
                o.index += n;
                o.remote += n;
                o.remaining -= n;
                if (o.remaining == 0) {
                    backlog.poll();
                    o.buffer.release();
                    recycle(o);
                }
                if (rc != 0) {
                    lifecycle.fail("ibv_post_send (RDMA Write) failed: " + rc);
                    return;
                }
            }
        }
    }

    /** Teardown: what never got posted is dropped, its buffers and holds released. */
    void dropBacklog() {
        Outgoing o;
        while ((o = backlog.poll()) != null) {
            if (o.buffer != null) {
                o.buffer.release();
            }
            if (o.hold >= 0) {
                holds.release(o.hold);
            }
            recycle(o);
        }
    }

    int backlogLength() {
        return backlog.size();
    }

    private Outgoing outgoing() {
        Outgoing o = freeOutgoing.poll();
        return o == null ? new Outgoing() : o;
    }

    private void recycle(Outgoing o) {
        o.buffer = null;
        o.region = null;
        o.hold = -1;
        freeOutgoing.add(o);
    }

    /**
     * A Send or RDMA Write waiting for buffers, in post order. An in-place write is one piece of registered memory
     * ({@code region} from {@code index}); the last piece of a data-in carries its hold slot.
     */
    private static final class Outgoing {
        int kind;
        ByteBuf buffer;
        MemoryRegion region;
        int hold = -1;
        int index;
        int remaining;
        long remote;
        int rkey;
    }
}
