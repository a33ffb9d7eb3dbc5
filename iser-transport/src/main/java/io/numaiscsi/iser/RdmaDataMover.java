package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.iser.IserConnection.State;
import io.numaiscsi.proto.transport.TransportEvents;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Solicited data by RDMA: data-in is RDMA-Written to the buffer the command's Read STag names (straight from
 * registered cache memory when it lies there, else through staging chunks, queued on the {@link IserSender} so the
 * SCSI Response follows), data-out is RDMA-Read from its Write STag a chunk at a time within the read credits and
 * copied into the session's buffer, the session hearing when a transfer is in. The connection's thread only.
 */
final class RdmaDataMover extends PostingSide {
    /** Most pieces (cache blocks) one data-in may have to be RDMA-Written in place. */
    private static final int MAX_PIECES = 64;

    private final int maxOutstandingReads;
    private final RegisteredMemory shared;
    private final IserSender sender;
    private final TransportEvents events;
    private final long[] pieceAddress = new long[MAX_PIECES];
    private final int[] pieceLength = new int[MAX_PIECES];
    private final MemoryRegion[] pieceRegion = new MemoryRegion[MAX_PIECES];
    private final ArrayDeque<ReadOp> waitingReads = new ArrayDeque<>();
    private final ArrayDeque<ReadOp> freeReadOps = new ArrayDeque<>();
    private final ReadOp[] readOpOfChunk;
    private final int[] readOffsetOfChunk;
    private final int[] readLengthOfChunk;
    private int outstandingReads;

    /**
     * @param shared memory registered besides the slab, data-in lying there is RDMA-Written in place
     * @param sender where the data-in RDMA Writes queue, ahead of the SCSI Response
     * @param events told when a data-out transfer is in or failed
     */
    RdmaDataMover(
            ConnectionParts parts,
            IserSettings settings,
            RegisteredMemory shared,
            IserSender sender,
            TransportEvents events) {
        super(parts);
        this.maxOutstandingReads = settings.maxOutstandingReads();
        this.shared = shared;
        this.sender = sender;
        this.events = events;
        this.readOpOfChunk = new ReadOp[data.capacity()];
        this.readOffsetOfChunk = new int[data.capacity()];
        this.readLengthOfChunk = new int[data.capacity()];
        for (int i = 0; i < settings.queueDepth(); i++) {
            freeReadOps.add(new ReadOp());
        }
    }

    void putDataIn(int itt, ByteBuf source, int length) {
        if (lifecycle.state() != State.FULL_FEATURE) {
            return;
        }
        TaskBuffers t = tasks.get(itt);
        long remote = t == null ? -1 : t.dataInAddress(length);
        if (remote == -1) {
            lifecycle.fail("data-in without a read buffer: ITT 0x" + Integer.toHexString(itt) + " has " + length
                    + " bytes of data-in, Read STag "
                    + (t == null ? "never seen" : t.readValid ? "too short, EDTL " + t.expectedLength : "not valid"));
            return;
        }
        if (length == 0 || writeInPlace(source, length, remote, t.readStag)) {
            return;
        }
        sender.queueWrite(source, length, remote, t.readStag);
    }

    /**
     * Queues RDMA Writes straight from {@code source}'s memory when every piece of it lies in registered memory (a
     * read served from the cache blocks); false when it does not, and the data goes through a staging chunk.
     */
    private boolean writeInPlace(ByteBuf source, int length, long remote, int rkey) {
        int count = source.nioBufferCount();
        if (shared.regions() == 0 || count < 1 || count > MAX_PIECES || !holds.available()) {
            return false;
        }
        int index = source.readerIndex();
        if (count == 1) {
            if (!piece(0, source.nioBuffer(index, length))) {
                return false;
            }
        } else {
            ByteBuffer[] buffers = source.nioBuffers(index, length);
            count = buffers.length;
            if (count > MAX_PIECES) {
                return false;
            }
            for (int i = 0; i < count; i++) {
                if (!piece(i, buffers[i])) {
                    return false;
                }
            }
        }
        int hold = holds.hold(source);
        for (int i = 0; i < count; i++) {
            sender.queueWriteInPlace(
                    pieceRegion[i],
                    shared.offsetIn(pieceRegion[i], pieceAddress[i]),
                    pieceLength[i],
                    remote,
                    rkey,
                    i == count - 1 ? hold : -1);
            remote += pieceLength[i];
        }
        return true;
    }

    private boolean piece(int i, ByteBuffer b) {
        if (!b.isDirect()) {
            return false;
        }
        long address = RegisteredMemory.cpuAddress(b) + b.position();
        MemoryRegion r = shared.find(address, b.remaining());
        pieceAddress[i] = address;
        pieceLength[i] = b.remaining();
        pieceRegion[i] = r;
        return r != null;
    }

    void getDataOut(int itt, ByteBuf into, int offset, int length, int solicitedStart) {
        if (lifecycle.state() != State.FULL_FEATURE) {
            events.dataOutFailed(itt);
            return;
        }
        TaskBuffers t = tasks.get(itt);
        long remote = t == null ? -1 : t.dataOutAddress(offset, length, solicitedStart);
        if (remote == -1 || length <= 0) {
            lifecycle.fail("data-out without a write buffer: ITT 0x" + Integer.toHexString(itt) + " needs [" + offset
                    + ", " + (offset + length) + ") but advertised "
                    + (t == null
                            ? "nothing"
                            : t.writeValid
                                    ? "EDTL " + t.expectedLength + " from offset " + solicitedStart
                                    : "no Write STag"));
            events.dataOutFailed(itt);
            return;
        }
        ReadOp op = freeReadOps.poll();
        if (op == null) {
            op = new ReadOp();
        }
        op.itt = itt;
        op.into = into.retain();
        op.start = offset;
        op.next = offset;
        op.end = offset + length;
        op.remote = remote;
        op.rkey = t.writeStag;
        op.pending = 0;
        waitingReads.add(op);
        issueReads();
    }

    /** Posts RDMA Reads for waiting transfers while chunks, read credits and queue slots last. */
    void issueReads() {
        ReadOp op;
        while ((op = waitingReads.peek()) != null && lifecycle.up()) {
            while (op.next < op.end) {
                if (outstandingReads >= maxOutstandingReads || sq.full()) {
                    return;
                }
                int chunk = data.take();
                if (chunk < 0) {
                    return;
                }
                int n = Math.min(op.end - op.next, data.chunkSize());
                readOpOfChunk[chunk] = op;
                readOffsetOfChunk[chunk] = op.next;
                readLengthOfChunk[chunk] = n;
                long wrId = sq.push(SendQueue.READ, chunk, true);
                int rc = endpoint.postRdmaRead(
                        wrId, region, data.offset(chunk), n, op.remote + (op.next - op.start), op.rkey);
                op.next += n;
                op.pending++;
                outstandingReads++;
                counters.readPosted();
                lifecycle.doorbell();
                if (rc != 0) {
                    lifecycle.fail("ibv_post_send (RDMA Read) failed: " + rc);
                    return;
                }
            }
            waitingReads.poll();
        }
    }

    /** A Read's completion (or flush) retired it: its data goes to the session, the last one tells it so. */
    void onReadRetired(int chunk, int status) {
        ReadOp op = readOpOfChunk[chunk];
        readOpOfChunk[chunk] = null;
        outstandingReads--;
        op.pending--;
        if (status == WorkCompletion.SUCCESS && op.into != null) {
            int n = readLengthOfChunk[chunk];
            op.into.setBytes(readOffsetOfChunk[chunk], slice(data.offset(chunk), n));
            counters.readLanded(n);
            long landed = region.address() + data.offset(chunk);
            touches.deviceWrote(landed, n);
            touches.copiedOut(landed, n, op.into, readOffsetOfChunk[chunk]);
        }
        data.give(chunk);
        if (op.pending > 0 || (op.next < op.end && op.into != null)) {
            return;
        }
        if (op.into != null) {
            op.into.release();
            op.into = null;
            if (lifecycle.up()) {
                events.dataOutArrived(op.itt, op.end);
            }
        }
        freeReadOps.add(op);
    }

    /** Teardown: transfers not fully posted are dropped; their posted part still comes back flushed. */
    void dropWaitingReads() {
        ReadOp op;
        while ((op = waitingReads.poll()) != null) {
            if (op.into != null) {
                op.into.release();
                op.into = null;
            }
            op.next = op.end;
            if (op.pending == 0) {
                freeReadOps.add(op);
            }
        }
    }

    /** One getDataOut: RDMA Reads of up to a chunk each, copied into the session's buffer as they land. */
    private static final class ReadOp {
        int itt;
        ByteBuf into;
        int start;
        int next;
        int end;
        long remote;
        int rkey;
        int pending;
    }
}
