package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.collection.IntObjectHashMap;
import io.numaiscsi.proto.Bhs;
import io.numaiscsi.proto.Opcode;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.ScsiCommandHeader;
import io.numaiscsi.proto.transport.DataMover;
import io.numaiscsi.proto.transport.DataOutListener;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One iSER connection (RFC 7145) over a reliable-connected queue pair: control-type PDUs travel in Sends and
 * Receives behind an iSER header; solicited data moves by RDMA Read (data-out) and RDMA Write (data-in), so
 * no R2T, Data-Out or Data-In PDU is ever on the wire. Receive buffers for every command plus the unexpected
 * PDUs are posted before the connection is accepted and reposted as each is consumed, so the initiator never
 * meets receiver-not-ready. Outgoing work requests are queued in order and reach the device once per batch.
 *
 * <p>Single-threaded: {@link #poll}, {@link #write}, {@link #flush}, {@link #close}, the CM events
 * ({@link #peerDisconnected}, {@link #quiesced}) and the {@link DataMover} calls all run on the connection's thread;
 * the {@link PduSink} is called there too.
 */
public final class IserConnection implements DataMover {
    private static final Logger LOG = LoggerFactory.getLogger(IserConnection.class);
    /** Most pieces (cache blocks) one data-in may have to be RDMA-Written in place. */
    private static final int MAX_PIECES = 64;

    public enum State { LOGIN, FULL_FEATURE, CLOSING, CLOSED }

    private final RdmaEndpoint endpoint;
    private final IserSettings settings;
    private final ByteBufAllocator alloc;
    private final PduSink sink;
    private final Runnable onDestroyed;
    private final MemoryRegion region;
    private final ByteBuffer view;
    private final ChunkPool rx;
    private final ChunkPool tx;
    private final ChunkPool data;
    private final SendQueue sq;
    private final CompletionHandler completions = this::onCompletion;
    private final SendQueue.Retirer retirer = this::retired;
    private final RegisteredMemory shared;
    /** Data-in buffers RDMA-Written in place, held until their last write completes; indexed by hold slot. */
    private final ByteBuf[] held;
    private final int[] freeHolds;
    private int freeHoldCount;
    private final long[] pieceAddress = new long[MAX_PIECES];
    private final int[] pieceLength = new int[MAX_PIECES];
    private final MemoryRegion[] pieceRegion = new MemoryRegion[MAX_PIECES];

    private final IntObjectHashMap<TaskBuffers> tasks = new IntObjectHashMap<>();
    private final ArrayDeque<TaskBuffers> freeTasks = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> backlog = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> freeOutgoing = new ArrayDeque<>();
    private final ArrayDeque<ReadOp> waitingReads = new ArrayDeque<>();
    private final ArrayDeque<ReadOp> freeReadOps = new ArrayDeque<>();
    private final ReadOp[] readOpOfChunk;
    private final int[] readOffsetOfChunk;
    private final int[] readLengthOfChunk;

    private State state = State.LOGIN;
    private int postedReceives;
    private int outstandingReads;
    private boolean doorbell;
    /** close() asked for: what was queued goes out (its last request signaled), then the teardown. */
    private boolean closeRequested;
    private String failure;
    /** How it ended, for the one line logged when the queue pair is gone: "by the initiator", "by the target"... */
    private String closedBy;
    private long teardownNanos;

    // Counters (read by tests and metrics; written on this thread only).
    private long receives;
    private long sends;
    private long rdmaWrites;
    private long rdmaReads;
    private long bytesWritten;
    private long bytesRead;
    private long bytesWrittenInPlace;

    /**
     * @param slabOffset where this connection's slab ({@link IserSettings#connectionBytes()}) starts in
     *                   {@code region}
     * @param shared memory registered besides the slab (the cache regions): data-in lying there is RDMA-Written in place
     * @param onDestroyed runs once when the queue pair is destroyed and the slab may be reused
     */
    public IserConnection(RdmaEndpoint endpoint, MemoryRegion region, int slabOffset, IserSettings settings,
                          RegisteredMemory shared, ByteBufAllocator alloc, PduSink sink, Runnable onDestroyed) {
        this.endpoint = endpoint;
        this.settings = settings;
        this.alloc = alloc;
        this.sink = sink;
        this.onDestroyed = onDestroyed;
        this.region = region;
        this.view = region.buffer().duplicate();
        int at = slabOffset;
        this.rx = new ChunkPool(region, at, settings.receiveBufferSize(), settings.receiveBuffers());
        at += settings.receiveBuffers() * settings.receiveBufferSize();
        this.tx = new ChunkPool(region, at, settings.sendBufferSize(), settings.sendBuffers());
        at += settings.sendBuffers() * settings.sendBufferSize();
        this.data = new ChunkPool(region, at, settings.dataChunkSize(), settings.dataChunks());
        this.sq = new SendQueue(settings.sendQueueDepth(), settings.signalInterval());
        this.shared = shared;
        this.held = new ByteBuf[settings.queueDepth()];
        this.freeHolds = new int[settings.queueDepth()];
        for (int i = 0; i < freeHolds.length; i++) {
            freeHolds[freeHoldCount++] = i;
        }
        this.readOpOfChunk = new ReadOp[settings.dataChunks()];
        this.readOffsetOfChunk = new int[settings.dataChunks()];
        this.readLengthOfChunk = new int[settings.dataChunks()];
        for (int i = 0; i < settings.queueDepth(); i++) {
            freeTasks.add(new TaskBuffers());
            freeReadOps.add(new ReadOp());
        }
        for (int i = 0; i < settings.sendBuffers() + settings.queueDepth(); i++) {
            freeOutgoing.add(new Outgoing());
        }
    }

    /**
     * Posts every receive buffer; call before the CM accept so the initiator's first Send finds one. Returns
     * false (and the connection is closed) when the device refuses.
     */
    public boolean start() {
        for (int i = 0; i < rx.capacity(); i++) {
            int chunk = rx.take();
            if (!postReceive(chunk)) {
                return false;
            }
        }
        return ring();
    }

    public State state() {
        return state;
    }

    /**
     * Login is over: from now on SCSI commands may carry STags. iSER has no digests (RFC 7145 5.1.2): a
     * negotiated digest is a login bug, so the connection is dropped.
     */
    public void enterFullFeature(boolean headerDigest, boolean dataDigest) {
        if (headerDigest || dataDigest) {
            fail("digests negotiated on an iSER connection (RFC 7145 requires None)");
            return;
        }
        if (state == State.LOGIN) {
            state = State.FULL_FEATURE;
        }
    }

    // ---- polling -------------------------------------------------------------------------------

    /** Reaps up to {@code max} completions and acts on them; returns the work done (0: idle). */
    public int poll(int max) {
        if (state == State.CLOSED) {
            return 0;
        }
        int n = endpoint.poll(completions, max);
        issueReads();
        drainBacklog();
        ring();
        if (closeRequested && state.compareTo(State.CLOSING) < 0 && !sq.signaledInFlight()) {
            teardown(); // the last response (a Logout Response) has left
        }
        maybeDestroy();
        return n;
    }

    private void onCompletion(long wrId, int status, int byteLength) {
        int kind = SendQueue.kindOf(wrId);
        if (kind == SendQueue.RECV) {
            onReceive(SendQueue.lowBits(wrId), status, byteLength);
            return;
        }
        if (status != WorkCompletion.SUCCESS && state.compareTo(State.CLOSING) < 0) {
            fail("send queue completion " + WorkCompletion.statusName(status) + " (" + kindName(kind) + ")");
        }
        sq.retireThrough(wrId, status, retirer);
    }

    private void retired(int kind, int resource, boolean completedOne, int status) {
        switch (kind) {
            case SendQueue.SEND -> tx.give(resource);
            case SendQueue.WRITE -> data.give(resource);
            case SendQueue.WRITE_IN_PLACE -> {
                if (resource >= 0) {
                    releaseHold(resource);
                }
            }
            case SendQueue.READ -> onReadRetired(resource, status);
            case SendQueue.DRAIN -> { }
            default -> throw new IllegalStateException("unknown send queue kind " + kind);
        }
    }

    // ---- receive -------------------------------------------------------------------------------

    private void onReceive(int chunk, int status, int byteLength) {
        postedReceives--;
        if (status != WorkCompletion.SUCCESS) {
            rx.give(chunk);
            if (state.compareTo(State.CLOSING) < 0) {
                fail("receive completion " + WorkCompletion.statusName(status));
            }
            return;
        }
        if (state.compareTo(State.CLOSING) >= 0 || closeRequested) {
            rx.give(chunk);
            return;
        }
        receives++;
        int at = rx.offset(chunk);
        ByteBuffer b = region.buffer();
        if (byteLength < IserSettings.HEADERS || IserHeader.kind(b, at) != IserHeader.Kind.CONTROL) {
            rx.give(chunk);
            fail(byteLength < IserSettings.HEADERS ? "Send of " + byteLength + " bytes, shorter than the headers"
                    : "iSER opcode " + IserHeader.kind(b, at) + " (Hello is for iWARP only)");
            return;
        }
        int bhsAt = at + IserHeader.LENGTH;
        int ahsLength = (b.get(bhsAt + Bhs.TOTAL_AHS_LENGTH_OFFSET) & 0xff) * 4;
        int lengthAt = bhsAt + Bhs.DATA_SEGMENT_LENGTH_OFFSET;
        int dataLength = ((b.get(lengthAt) & 0xff) << 16) | ((b.get(lengthAt + 1) & 0xff) << 8) | (b.get(lengthAt + 2) & 0xff);
        if (IserSettings.HEADERS + ahsLength + dataLength > byteLength) {
            rx.give(chunk);
            fail("PDU of " + (IserSettings.HEADERS + ahsLength + dataLength) + " bytes in a Send of " + byteLength);
            return;
        }
        int opcode = b.get(bhsAt + Bhs.OPCODE_OFFSET) & Bhs.OPCODE_MASK;
        if (opcode == Opcode.SCSI_COMMAND.code()) {
            recordTaskBuffers(b, at, bhsAt);
        }
        ByteBuf bhs = alloc.buffer(Bhs.LENGTH, Bhs.LENGTH);
        bhs.writeBytes(slice(bhsAt, Bhs.LENGTH));
        ByteBuf ahs = null;
        if (ahsLength > 0) {
            ahs = alloc.buffer(ahsLength, ahsLength);
            ahs.writeBytes(slice(bhsAt + Bhs.LENGTH, ahsLength));
        }
        ByteBuf segment = null;
        if (dataLength > 0) {
            segment = alloc.directBuffer(dataLength, dataLength);
            segment.writeBytes(slice(bhsAt + Bhs.LENGTH + ahsLength, dataLength));
        }
        // Copied out: the buffer goes back to the receive queue before the session sees the PDU.
        if (!postReceive(chunk)) {
            release(bhs, ahs, segment);
            return;
        }
        sink.onPdu(Pdu.newInstance(bhs, ahs, segment));
    }

    private void recordTaskBuffers(ByteBuffer b, int at, int bhsAt) {
        int itt = b.getInt(bhsAt + Bhs.INITIATOR_TASK_TAG_OFFSET);
        int flags = b.get(bhsAt + Bhs.FLAGS_OFFSET);
        TaskBuffers t = tasks.get(itt);
        if (t == null) {
            t = freeTasks.poll();
            if (t == null) {
                t = new TaskBuffers(); // more tasks than the queue depth: the session answers TASK SET FULL
            }
            tasks.put(itt, t);
        }
        boolean wsv = (flags & ScsiCommandHeader.WRITE_BIT) != 0 && IserHeader.writeStagValid(b, at);
        boolean rsv = (flags & ScsiCommandHeader.READ_BIT) != 0 && IserHeader.readStagValid(b, at);
        t.set(itt, wsv, IserHeader.writeStag(b, at), IserHeader.writeBaseOffset(b, at), rsv, IserHeader.readStag(b, at),
                IserHeader.readBaseOffset(b, at),
                b.getInt(bhsAt + ScsiCommandHeader.EXPECTED_DATA_TRANSFER_LENGTH_OFFSET));
    }

    private boolean postReceive(int chunk) {
        int rc = endpoint.postRecv(SendQueue.recvWrId(chunk), region, rx.offset(chunk), rx.chunkSize());
        if (rc != 0) {
            rx.give(chunk);
            fail("ibv_post_recv failed: " + rc);
            return false;
        }
        postedReceives++;
        doorbell = true;
        return true;
    }

    private ByteBuffer slice(int from, int length) {
        view.clear();
        view.position(from).limit(from + length);
        return view;
    }

    // ---- send side: control PDUs ---------------------------------------------------------------

    /**
     * Queues one framed PDU (BHS, AHS, data, padding; no digests) for a Send; takes ownership. Nothing is posted
     * before {@link #flush()}.
     */
    public void write(ByteBuf framedPdu) {
        if (state.compareTo(State.CLOSING) >= 0) {
            framedPdu.release();
            return;
        }
        int length = framedPdu.readableBytes();
        int opcode = framedPdu.getByte(framedPdu.readerIndex() + Bhs.OPCODE_OFFSET) & Bhs.OPCODE_MASK;
        boolean movedByRdma = opcode == Opcode.SCSI_DATA_IN.code() || opcode == Opcode.R2T.code();
        if (length + IserHeader.LENGTH > tx.chunkSize() || movedByRdma) {
            framedPdu.release();
            fail(length + IserHeader.LENGTH > tx.chunkSize()
                    ? "a " + length + "-byte PDU exceeds the " + tx.chunkSize() + "-byte send buffers"
                    : "the session sent opcode 0x" + Integer.toHexString(opcode) + ", which iSER moves by RDMA");
            return;
        }
        if (opcode == Opcode.SCSI_RESPONSE.code()) {
            // the task is over: its STags are spent
            forget(framedPdu.getInt(framedPdu.readerIndex() + Bhs.INITIATOR_TASK_TAG_OFFSET));
        }
        Outgoing o = outgoing();
        o.kind = SendQueue.SEND;
        o.buffer = framedPdu;
        o.index = framedPdu.readerIndex();
        o.remaining = length;
        backlog.add(o);
    }

    /** Posts what is queued and rings the doorbell once. */
    public void flush() {
        issueReads();
        drainBacklog();
        ring();
    }

    private void forget(int itt) {
        TaskBuffers t = tasks.remove(itt);
        if (t != null) {
            freeTasks.add(t);
        }
    }

    /** Posts queued Sends and RDMA Writes in order while send buffers, data chunks and queue slots last. */
    private void drainBacklog() {
        Outgoing o;
        while ((o = backlog.peek()) != null && state.compareTo(State.CLOSING) < 0) {
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
                boolean signal = sq.mustSignal(SendQueue.SEND, closeRequested || state == State.LOGIN
                        || tx.available() < settings.signalInterval());
                long wrId = sq.push(SendQueue.SEND, chunk, signal);
                int rc = endpoint.postSend(wrId, region, at, IserHeader.LENGTH + o.remaining, signal);
                backlog.poll();
                recycle(o);
                sends++;
                doorbell = true;
                if (rc != 0) {
                    fail("ibv_post_send failed: " + rc);
                    return;
                }
            } else if (o.kind == SendQueue.WRITE_IN_PLACE) {
                // the last piece is signaled: its completion releases the pinned cache blocks
                boolean signal = sq.mustSignal(SendQueue.WRITE_IN_PLACE, closeRequested || o.hold >= 0);
                long wrId = sq.push(SendQueue.WRITE_IN_PLACE, o.hold, signal);
                int rc = endpoint.postRdmaWrite(wrId, o.region, o.index, o.remaining, o.remote, o.rkey, signal);
                rdmaWrites++;
                bytesWritten += o.remaining;
                bytesWrittenInPlace += o.remaining;
                doorbell = true;
                backlog.poll();
                o.hold = -1;
                recycle(o);
                if (rc != 0) {
                    fail("ibv_post_send (RDMA Write) failed: " + rc);
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
                boolean signal = sq.mustSignal(SendQueue.WRITE, closeRequested || data.available() < 2);
                long wrId = sq.push(SendQueue.WRITE, chunk, signal);
                int rc = endpoint.postRdmaWrite(wrId, region, at, n, o.remote, o.rkey, signal);
                rdmaWrites++;
                bytesWritten += n;
                doorbell = true;
                o.index += n;
                o.remote += n;
                o.remaining -= n;
                if (o.remaining == 0) {
                    backlog.poll();
                    o.buffer.release();
                    recycle(o);
                }
                if (rc != 0) {
                    fail("ibv_post_send (RDMA Write) failed: " + rc);
                    return;
                }
            }
        }
    }

    private boolean ring() {
        if (!doorbell || state == State.CLOSED) {
            return true;
        }
        doorbell = false;
        int rc = endpoint.ring();
        if (rc != 0) {
            fail("posting work requests failed: " + rc);
            return false;
        }
        return true;
    }

    // ---- DataMover -----------------------------------------------------------------------------

    @Override
    public void putDataIn(int itt, ByteBuf source, int length) {
        if (state != State.FULL_FEATURE) {
            return;
        }
        TaskBuffers t = tasks.get(itt);
        long remote = t == null ? -1 : t.dataInAddress(length);
        if (remote == -1) {
            fail("data-in without a read buffer: ITT 0x" + Integer.toHexString(itt) + " has " + length
                    + " bytes of data-in, Read STag " + (t == null ? "never seen" : t.readValid
                    ? "too short, EDTL " + t.expectedLength : "not valid"));
            return;
        }
        if (length == 0 || writeInPlace(source, length, remote, t.readStag)) {
            return;
        }
        Outgoing o = outgoing();
        o.kind = SendQueue.WRITE;
        o.buffer = source.retain();
        o.index = source.readerIndex();
        o.remaining = length;
        o.remote = remote;
        o.rkey = t.readStag;
        backlog.add(o);
    }

    /**
     * Queues RDMA Writes straight from {@code source}'s memory when every piece of it lies in registered memory (a
     * read served from the cache blocks); false when it does not, and the data goes through a staging chunk.
     */
    private boolean writeInPlace(ByteBuf source, int length, long remote, int rkey) {
        int count = source.nioBufferCount();
        if (shared.regions() == 0 || count < 1 || count > MAX_PIECES || freeHoldCount == 0) {
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
        int hold = freeHolds[--freeHoldCount];
        held[hold] = source.retain();
        for (int i = 0; i < count; i++) {
            Outgoing o = outgoing();
            o.kind = SendQueue.WRITE_IN_PLACE;
            o.region = pieceRegion[i];
            o.index = shared.offsetIn(pieceRegion[i], pieceAddress[i]);
            o.remaining = pieceLength[i];
            o.remote = remote;
            o.rkey = rkey;
            o.hold = i == count - 1 ? hold : -1;
            backlog.add(o);
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

    private void releaseHold(int hold) {
        held[hold].release();
        held[hold] = null;
        freeHolds[freeHoldCount++] = hold;
    }

    @Override
    public void getDataOut(int itt, ByteBuf into, int offset, int length, int solicitedStart, DataOutListener listener) {
        if (state != State.FULL_FEATURE) {
            listener.dataOutFailed(itt);
            return;
        }
        TaskBuffers t = tasks.get(itt);
        long remote = t == null ? -1 : t.dataOutAddress(offset, length, solicitedStart);
        if (remote == -1 || length <= 0) {
            fail("data-out without a write buffer: ITT 0x" + Integer.toHexString(itt) + " needs [" + offset + ", "
                    + (offset + length) + ") but advertised " + (t == null ? "nothing" : t.writeValid
                    ? "EDTL " + t.expectedLength + " from offset " + solicitedStart : "no Write STag"));
            listener.dataOutFailed(itt);
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
        op.listener = listener;
        waitingReads.add(op);
        issueReads();
    }

    /** Posts RDMA Reads for waiting transfers while chunks, read credits and queue slots last. */
    private void issueReads() {
        ReadOp op;
        while ((op = waitingReads.peek()) != null && state.compareTo(State.CLOSING) < 0) {
            while (op.next < op.end) {
                if (outstandingReads >= settings.maxOutstandingReads() || sq.full()) {
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
                int rc = endpoint.postRdmaRead(wrId, region, data.offset(chunk), n, op.remote + (op.next - op.start),
                        op.rkey);
                op.next += n;
                op.pending++;
                outstandingReads++;
                rdmaReads++;
                doorbell = true;
                if (rc != 0) {
                    fail("ibv_post_send (RDMA Read) failed: " + rc);
                    return;
                }
            }
            waitingReads.poll();
        }
    }

    private void onReadRetired(int chunk, int status) {
        ReadOp op = readOpOfChunk[chunk];
        readOpOfChunk[chunk] = null;
        outstandingReads--;
        op.pending--;
        if (status == WorkCompletion.SUCCESS && op.into != null) {
            int n = readLengthOfChunk[chunk];
            op.into.setBytes(readOffsetOfChunk[chunk], slice(data.offset(chunk), n));
            bytesRead += n;
        }
        data.give(chunk);
        if (op.pending > 0 || op.next < op.end && op.into != null) {
            return;
        }
        if (op.into != null) {
            op.into.release();
            op.into = null;
            if (state.compareTo(State.CLOSING) < 0) {
                op.listener.dataOutArrived(op.itt, op.end);
            }
        }
        op.listener = null;
        freeReadOps.add(op);
    }

    // ---- teardown ------------------------------------------------------------------------------

    /**
     * Closes the connection: what the session queued or flushed is sent first (a Logout Response, a login
     * reject must reach the initiator), then the queue pair is disconnected, outstanding transfers are dropped and
     * the sink hears {@link PduSink#onClosed()} once. Idempotent.
     */
    public void close() {
        if (state.compareTo(State.CLOSING) >= 0 || closeRequested) {
            return;
        }
        LOG.debug("closing iSER connection from {}", endpoint.remoteAddress());
        closeRequested = true;
        closedBy = "by the target";
        long before = sq.postedCount();
        drainBacklog();
        ring();
        // wait only for a completion that says the last response has left: of what close() posted (signaled, as
        // everything posted from now on), or of a response flushed just before and signaled (login phase)
        if (state.compareTo(State.CLOSING) < 0 && sq.postedCount() == before && !sq.newestIsSignaledSend()) {
            teardown();
        }
    }

    /**
     * The initiator is gone (RDMA_CM_EVENT_DISCONNECTED, or the connection never got established): nothing queued
     * can reach it any more, so the teardown starts at once.
     */
    public void peerDisconnected() {
        if (state.compareTo(State.CLOSING) >= 0) {
            return;
        }
        if (closedBy == null) {
            closedBy = "by the initiator";
        }
        teardown();
    }

    /**
     * RDMA_CM_EVENT_TIMEWAIT_EXIT: nothing more can arrive on the queue pair. The flushes have normally brought
     * every work request back long before; what has not come back by now never will, so the queue pair goes.
     */
    public void quiesced() {
        while (state == State.CLOSING && poll(64) > 0) {
            // reap the last flushes
        }
        if (state != State.CLOSED) {
            forceDestroy();
        }
    }

    private void fail(String reason) {
        if (state.compareTo(State.CLOSING) >= 0) {
            return;
        }
        failure = reason;
        closedBy = "on error: " + reason;
        teardown();
    }

    private void teardown() {
        state = State.CLOSING;
        teardownNanos = System.nanoTime();
        doorbell = false;
        endpoint.disconnect();
        // what is still batched (the marker, receives reposted just before a failure) goes to the queue pair in
        // the error state, so it all comes back flushed
        int rc = pushDrainMarker();
        if (rc == 0) {
            rc = endpoint.ring();
        }
        if (rc != 0) {
            // then the CM's TIMEWAIT_EXIT (quiesced) destroys the queue pair
            LOG.debug("iSER connection from {}: posting to the disconnected queue pair failed ({})",
                    endpoint.remoteAddress(), rc);
        }
        Outgoing o;
        while ((o = backlog.poll()) != null) {
            if (o.buffer != null) {
                o.buffer.release();
            }
            if (o.hold >= 0) {
                releaseHold(o.hold);
            }
            recycle(o);
        }
        ReadOp op;
        while ((op = waitingReads.poll()) != null) {
            if (op.into != null) {
                op.into.release(); // its posted part, if any, still comes back flushed
                op.into = null;
            }
            op.next = op.end;
            if (op.pending == 0) {
                op.listener = null;
                freeReadOps.add(op);
            }
        }
        for (TaskBuffers t : tasks.values()) {
            freeTasks.add(t);
        }
        tasks.clear();
        sink.onClosed();
        maybeDestroy();
    }

    /**
     * Unsignaled requests the device completed before the disconnect never produce a completion, and a flush only
     * comes for those still queued, so nothing would retire them: a signaled marker behind them (as ib_drain_sq
     * does), posted to the queue pair now in the error state, comes back flushed and retires them all.
     */
    private int pushDrainMarker() {
        if (!sq.silentTail() || sq.full()) {
            return 0; // sq.full(): its last request is signaled (SendQueue.mustSignal), so no silent tail
        }
        // a zero-length RDMA Write: no local or remote memory is named (the shim posts it without a scatter entry)
        return endpoint.postRdmaWrite(sq.push(SendQueue.DRAIN, 0, true), region, 0, 0, 0, 0, true);
    }

    /** Once every posted work request has come back (flushed), the queue pair goes and the slab is free. */
    private void maybeDestroy() {
        if (state == State.CLOSING && postedReceives == 0 && sq.inFlight() == 0) {
            destroy();
        }
    }

    /**
     * Destroys the queue pair now, whatever is still outstanding (the flushes never came back within the
     * caller's patience); buffers are reclaimed as if flushed.
     */
    public void forceDestroy() {
        if (state.compareTo(State.CLOSING) < 0) {
            if (closedBy == null) {
                closedBy = "by the target";
            }
            teardown();
        }
        if (state == State.CLOSING) {
            destroy();
        }
    }

    private void destroy() {
        state = State.CLOSED;
        endpoint.destroy(); // first: from here on the device touches none of the buffers reclaimed below
        int lost = sq.retireAll(retirer) + postedReceives;
        postedReceives = 0;
        long millis = (System.nanoTime() - teardownNanos) / 1_000_000;
        String line = "iSER connection from {} closed {} (queue pair destroyed {} ms after the disconnect{}): {} "
                + "receives, {} sends, {} RDMA Writes ({} bytes, {} of them in place from registered cache memory), {} "
                + "RDMA Reads ({} bytes), {} of {} send queue requests signaled";
        Object[] args = {endpoint.remoteAddress(), closedBy, millis,
                lost == 0 ? "" : "; " + lost + " work requests never came back", receives, sends, rdmaWrites,
                bytesWritten, bytesWrittenInPlace, rdmaReads, bytesRead, sq.signaledCount(), sq.postedCount()};
        if (failure != null) {
            LOG.warn(line, args);
        } else {
            LOG.info(line, args);
        }
        onDestroyed.run();
    }

    // ---- small helpers ---------------------------------------------------------------------------

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

    private static String kindName(int kind) {
        return switch (kind) {
            case SendQueue.SEND -> "Send";
            case SendQueue.WRITE, SendQueue.WRITE_IN_PLACE -> "RDMA Write";
            case SendQueue.READ -> "RDMA Read";
            case SendQueue.DRAIN -> "drain marker";
            default -> "kind " + kind;
        };
    }

    /** The largest data segment a Send of ours can carry (the send buffers'). */
    public int maxSendDataSegmentLength() {
        return settings.sendDataSegmentLength();
    }

    /** Why the connection failed, or null (closed normally or still up). */
    public String failure() {
        return failure;
    }

    public String remoteAddress() {
        return endpoint.remoteAddress();
    }

    public String localAddress() {
        return endpoint.localAddress();
    }

    public long receives() {
        return receives;
    }

    public long sends() {
        return sends;
    }

    public long rdmaWrites() {
        return rdmaWrites;
    }

    public long rdmaReads() {
        return rdmaReads;
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    public long bytesRead() {
        return bytesRead;
    }

    /** Bytes of data-in RDMA-Written straight from registered memory (the cache), no staging copy. */
    public long bytesWrittenInPlace() {
        return bytesWrittenInPlace;
    }

    long signaledRequests() {
        return sq.signaledCount();
    }

    long sendQueueRequests() {
        return sq.postedCount();
    }

    int postedReceives() {
        return postedReceives;
    }

    int sendBuffersInUse() {
        return tx.inUse();
    }

    int dataChunksInUse() {
        return data.inUse();
    }

    int tasksTracked() {
        return tasks.size();
    }

    int backlogLength() {
        return backlog.size();
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
        DataOutListener listener;
    }
}
