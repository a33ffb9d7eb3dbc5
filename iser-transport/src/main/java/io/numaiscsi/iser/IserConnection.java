package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.proto.transport.TransportEvents;

/**
 * One iSER connection (RFC 7145) over a reliable-connected queue pair: control-type PDUs travel in Sends and
 * Receives behind an iSER header; solicited data moves by RDMA Read (data-out) and RDMA Write (data-in), so
 * no R2T, Data-Out or Data-In PDU is ever on the wire. Receive buffers for every command plus the unexpected
 * PDUs are posted before the connection is accepted and reposted as each is consumed, so the initiator never
 * meets receiver-not-ready. Outgoing work requests are queued in order and reach the device once per batch.
 *
 * <p>This class wires the parts and routes completions: {@link IserReceiver} (receives), {@link IserSender} (Sends
 * and RDMA Writes, in order), {@link RdmaDataMover} (data-in and data-out), {@link IserLifecycle} (states, teardown,
 * the doorbell), {@link TaskTable} (STags per command), {@link IserCounters}. Its slab of {@code region} holds the
 * receive buffers, then the send buffers, then the data chunks (staging for RDMA Writes and Reads).
 *
 * <p>Single-threaded: {@link #poll}, {@link #write}, {@link #flush}, {@link #close}, the CM events
 * ({@link #peerDisconnected}, {@link #quiesced}), {@link #putDataIn} and {@link #getDataOut} all run on the
 * connection's thread; its {@link TransportEvents} (received PDUs, data-out arrived, the close) are called there too.
 * The counter getters and {@link #counters()} may be called from any thread. {@link IserTransport} is what the
 * session layer sees of it.
 */
public final class IserConnection {
    public enum State {
        LOGIN,
        FULL_FEATURE,
        CLOSING,
        CLOSED
    }

    private final RdmaEndpoint endpoint;
    private final IserSettings settings;
    private final ChunkPool tx;
    private final ChunkPool data;
    private final SendQueue sq;
    private final HeldBuffers holds;
    private final TaskTable tasks;
    private final IserCounters counters = new IserCounters();
    private final IserLifecycle lifecycle;
    private final IserReceiver receiver;
    private final IserSender sender;
    private final RdmaDataMover mover;
    private final CompletionHandler completions = this::onCompletion;
    private final SendQueue.Retirer retirer = this::retired;

    /**
     * @param slabOffset where this connection's slab ({@link IserSettings#connectionBytes()}) starts in
     *                   {@code region}
     * @param shared memory registered besides the slab (the cache regions): data-in lying there is RDMA-Written in place
     * @param events what it reports: received PDUs, data-out arrived or failed, the close
     * @param onDestroyed runs once when the queue pair is destroyed and the slab may be reused
     * @param touches where its data path touches memory ({@link IserTouches#unmeasured()}: not recorded)
     */
    public IserConnection(
            RdmaEndpoint endpoint,
            MemoryRegion region,
            int slabOffset,
            IserSettings settings,
            RegisteredMemory shared,
            ByteBufAllocator alloc,
            TransportEvents events,
            Runnable onDestroyed,
            IserTouches touches) {
        this.endpoint = endpoint;
        this.settings = settings;
        int at = slabOffset;
        ChunkPool rx = new ChunkPool(region, at, settings.receiveBufferSize(), settings.receiveBuffers());
        at += settings.receiveBuffers() * settings.receiveBufferSize();
        this.tx = new ChunkPool(region, at, settings.sendBufferSize(), settings.sendBuffers());
        at += settings.sendBuffers() * settings.sendBufferSize();
        this.data = new ChunkPool(region, at, settings.dataChunkSize(), settings.dataChunks());
        this.sq = new SendQueue(settings.sendQueueDepth(), settings.signalInterval());
        this.holds = new HeldBuffers(settings.queueDepth());
        this.tasks = new TaskTable(settings.queueDepth());
        this.lifecycle = new IserLifecycle(endpoint, region, sq, retirer, events, counters, onDestroyed);
        this.receiver = new IserReceiver(endpoint, region, rx, alloc, events, lifecycle, tasks, counters, touches);
        ConnectionParts parts =
                new ConnectionParts(endpoint, region, data, sq, lifecycle, tasks, holds, counters, touches);
        this.sender = new IserSender(parts, tx, settings);
        this.mover = new RdmaDataMover(parts, settings, shared, sender, events);
        lifecycle.bind(receiver, sender, mover, tasks);
    }

    /**
     * Posts every receive buffer; call before the CM accept so the initiator's first Send finds one. Returns
     * false (and the connection is closed) when the device refuses.
     */
    public boolean start() {
        return receiver.postAll() && lifecycle.ring();
    }

    public State state() {
        return lifecycle.state();
    }

    /**
     * Login is over: from now on SCSI commands may carry STags. iSER has no digests (RFC 7145 5.1.2): a
     * negotiated digest is a login bug, so the connection is dropped.
     */
    public void enterFullFeature(boolean headerDigest, boolean dataDigest) {
        lifecycle.enterFullFeature(headerDigest, dataDigest);
    }

    /** Reaps up to {@code max} completions and acts on them; returns the work done (0: idle). */
    public int poll(int max) {
        if (lifecycle.state() == State.CLOSED) {
            return 0;
        }
        int n = endpoint.poll(completions, max);
        mover.issueReads();
        sender.drain();
        lifecycle.ring();
        lifecycle.afterPoll();
        return n;
    }

    private void onCompletion(long wrId, int status, int byteLength) {
        int kind = SendQueue.kindOf(wrId);
        if (kind == SendQueue.RECV) {
            receiver.onReceive(SendQueue.lowBits(wrId), status, byteLength);
            return;
        }
        if (status != WorkCompletion.SUCCESS && lifecycle.up()) {
            lifecycle.fail("send queue completion " + WorkCompletion.statusName(status) + " ("
                    + SendQueue.kindName(kind) + ")");
        }
        sq.retireThrough(wrId, status, retirer);
    }

    private void retired(int kind, int resource, boolean completedOne, int status) {
        switch (kind) {
            case SendQueue.SEND -> tx.give(resource);
            case SendQueue.WRITE -> data.give(resource);
            case SendQueue.WRITE_IN_PLACE -> {
                if (resource >= 0) {
                    holds.release(resource);
                }
            }
            case SendQueue.READ -> mover.onReadRetired(resource, status);
            case SendQueue.DRAIN -> {}
            default -> throw new IllegalStateException("unknown send queue kind " + kind);
        }
    }

    /**
     * Queues one framed PDU (BHS, AHS, data, padding; no digests) for a Send; takes ownership. Nothing is posted
     * before {@link #flush()}.
     */
    public void write(ByteBuf framedPdu) {
        sender.write(framedPdu);
    }

    /** Posts what is queued and rings the doorbell once. */
    public void flush() {
        mover.issueReads();
        sender.drain();
        lifecycle.ring();
    }

    /**
     * Places {@code length} bytes of {@code data} (from its readerIndex) at the start of task {@code itt}'s data-in
     * buffer at the initiator, by RDMA Write; the PDU written next (the SCSI Response) leaves after it. The connection
     * retains what it needs; the caller keeps its reference. A task without a usable initiator buffer is an initiator
     * protocol error: the connection is dropped.
     */
    public void putDataIn(int itt, ByteBuf data, int length) {
        mover.putDataIn(itt, data, length);
    }

    /**
     * RDMA-Reads the bytes {@code [offset, offset + length)} of task {@code itt}'s data-out into {@code into} at the
     * same offsets; {@code solicitedStart} is where the initiator's advertised buffer starts (the first byte it did not
     * send unsolicited). Reports {@link TransportEvents#dataOutArrived} when all is in, or
     * {@link TransportEvents#dataOutFailed}. Retains {@code into} until then, so the caller may release its own
     * reference at any time (an aborted task).
     */
    public void getDataOut(int itt, ByteBuf into, int offset, int length, int solicitedStart) {
        mover.getDataOut(itt, into, offset, length, solicitedStart);
    }

    /**
     * Closes the connection: what the session queued or flushed is sent first (a Logout Response, a login
     * reject must reach the initiator), then the queue pair is disconnected, outstanding transfers are dropped and
     * the session hears {@link TransportEvents#onClosed()} once. Idempotent.
     */
    public void close() {
        lifecycle.close();
    }

    /**
     * The initiator is gone (RDMA_CM_EVENT_DISCONNECTED, or the connection never got established): nothing queued
     * can reach it any more, so the teardown starts at once.
     */
    public void peerDisconnected() {
        lifecycle.peerDisconnected();
    }

    /**
     * RDMA_CM_EVENT_TIMEWAIT_EXIT: nothing more can arrive on the queue pair. The flushes have normally brought
     * every work request back long before; what has not come back by now never will, so the queue pair goes.
     */
    public void quiesced() {
        while (lifecycle.state() == State.CLOSING && poll(64) > 0) {
            // reap the last flushes
        }
        if (lifecycle.state() != State.CLOSED) {
            forceDestroy();
        }
    }

    /**
     * Destroys the queue pair now, whatever is still outstanding (the flushes never came back within the
     * caller's patience); buffers are reclaimed as if flushed.
     */
    public void forceDestroy() {
        lifecycle.forceDestroy();
    }

    /** The largest data segment a Send of ours can carry (the send buffers'). */
    public int maxSendDataSegmentLength() {
        return settings.sendDataSegmentLength();
    }

    /** Why the connection failed, or null (closed normally or still up). */
    public String failure() {
        return lifecycle.failure();
    }

    public String remoteAddress() {
        return endpoint.remoteAddress();
    }

    public String localAddress() {
        return endpoint.localAddress();
    }

    /** This connection's counters now; any thread. */
    public IserStats counters() {
        return counters.snapshot();
    }

    public long receives() {
        return counters.receives();
    }

    public long sends() {
        return counters.sends();
    }

    public long rdmaWrites() {
        return counters.rdmaWrites();
    }

    public long rdmaReads() {
        return counters.rdmaReads();
    }

    public long bytesWritten() {
        return counters.bytesWritten();
    }

    public long bytesRead() {
        return counters.bytesRead();
    }

    /** Bytes of data-in RDMA-Written straight from registered memory (the cache), no staging copy. */
    public long bytesWrittenInPlace() {
        return counters.bytesWrittenInPlace();
    }

    // ---- test probes ----

    long signaledRequests() {
        return sq.signaledCount();
    }

    long sendQueueRequests() {
        return sq.postedCount();
    }

    int postedReceives() {
        return receiver.posted();
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
        return sender.backlogLength();
    }
}
