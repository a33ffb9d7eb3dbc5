package io.numaiscsi.iser;

import io.numaiscsi.iser.IserConnection.State;
import io.numaiscsi.proto.transport.TransportEvents;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one connection's queue pair: LOGIN, FULL_FEATURE, CLOSING (disconnected, waiting for the flushes),
 * CLOSED (queue pair destroyed, slab free), how it got there (close, peer gone, failure) and the doorbell that hands
 * each batch of work requests to the device. The other parts ask it whether the connection is still up and report
 * failures to it; its teardown drops what they still queue. The connection's thread only.
 */
final class IserLifecycle {
    // the connection's logger: these lines are the connection's story
    private static final Logger LOG = LoggerFactory.getLogger(IserConnection.class);

    private final RdmaEndpoint endpoint;
    private final MemoryRegion region;
    private final SendQueue sq;
    private final SendQueue.Retirer retirer;
    private final TransportEvents events;
    private final IserCounters counters;
    private final Runnable onDestroyed;
    private IserReceiver receiver;
    private IserSender sender;
    private RdmaDataMover mover;
    private TaskTable tasks;

    private State state = State.LOGIN;
    private boolean doorbell;
    /** close() asked for: what was queued goes out (its last request signaled), then the teardown. */
    private boolean closeRequested;

    private String failure;
    /** How it ended, for the one line logged when the queue pair is gone: "by the initiator", "by the target"... */
    private String closedBy;

    private long teardownNanos;

    IserLifecycle(
            RdmaEndpoint endpoint,
            MemoryRegion region,
            SendQueue sq,
            SendQueue.Retirer retirer,
            TransportEvents events,
            IserCounters counters,
            Runnable onDestroyed) {
        this.endpoint = endpoint;
        this.region = region;
        this.sq = sq;
        this.retirer = retirer;
        this.events = events;
        this.counters = counters;
        this.onDestroyed = onDestroyed;
    }

    /** The parts whose queued work the teardown drops (they are built with this lifecycle, so bound after). */
    void bind(IserReceiver receiver, IserSender sender, RdmaDataMover mover, TaskTable tasks) {
        this.receiver = receiver;
        this.sender = sender;
        this.mover = mover;
        this.tasks = tasks;
    }

    State state() {
        return state;
    }

    /** LOGIN or FULL_FEATURE: not yet torn down. */
    boolean up() {
        return state.compareTo(State.CLOSING) < 0;
    }

    boolean closeRequested() {
        return closeRequested;
    }

    String failure() {
        return failure;
    }

    void enterFullFeature(boolean headerDigest, boolean dataDigest) {
        if (headerDigest || dataDigest) {
            fail("digests negotiated on an iSER connection (RFC 7145 requires None)");
            return;
        }
        if (state == State.LOGIN) {
            state = State.FULL_FEATURE;
        }
    }

    /** Work requests were queued on the endpoint: {@link #ring()} hands them to the device. */
    void doorbell() {
        doorbell = true;
    }

    boolean ring() {
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

    /** The end of a poll: a requested close whose last response has left tears down; a flushed one is destroyed. */
    void afterPoll() {
        if (closeRequested && up() && !sq.signaledInFlight()) {
            teardown(); // the last response (a Logout Response) has left
        }
        maybeDestroy();
    }

    void close() {
        if (!up() || closeRequested) {
            return;
        }
        LOG.debug("closing iSER connection from {}", endpoint.remoteAddress());
        closeRequested = true;
        closedBy = "by the target";
        long before = sq.postedCount();
        sender.drain();
        ring();
        // wait only for a completion that says the last response has left: of what close() posted (signaled, as
        // everything posted from now on), or of a response flushed just before and signaled (login phase)
        if (up() && sq.postedCount() == before && !sq.newestIsSignaledSend()) {
            teardown();
        }
    }

    void peerDisconnected() {
        if (!up()) {
            return;
        }
        if (closedBy == null) {
            closedBy = "by the initiator";
        }
        teardown();
    }

    void fail(String reason) {
        if (!up()) {
            return;
        }
        failure = reason;
        closedBy = "on error: " + reason;
        teardown();
    }

    void forceDestroy() {
        if (up()) {
            if (closedBy == null) {
                closedBy = "by the target";
            }
            teardown();
        }
        if (state == State.CLOSING) {
            destroy();
        }
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
            LOG.debug(
                    "iSER connection from {}: posting to the disconnected queue pair failed ({})",
                    endpoint.remoteAddress(),
                    rc);
        }
        sender.dropBacklog();
        mover.dropWaitingReads();
        tasks.clear();
        events.onClosed();
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
        if (state == State.CLOSING && receiver.posted() == 0 && sq.inFlight() == 0) {
            destroy();
        }
    }

    private void destroy() {
        state = State.CLOSED;
        endpoint.destroy(); // first: from here on the device touches none of the buffers reclaimed below
        int lost = sq.retireAll(retirer) + receiver.forgetPosted();
        long millis = (System.nanoTime() - teardownNanos) / 1_000_000;
        String line = "iSER connection from {} closed {} (queue pair destroyed {} ms after the disconnect{}): {} "
                + "receives, {} sends, {} RDMA Writes ({} bytes, {} of them in place from registered cache memory), {} "
                + "RDMA Reads ({} bytes), {} of {} send queue requests signaled";
        Object[] args = {
            endpoint.remoteAddress(),
            closedBy,
            millis,
            lost == 0 ? "" : "; " + lost + " work requests never came back",
            counters.receives(),
            counters.sends(),
            counters.rdmaWrites(),
            counters.bytesWritten(),
            counters.bytesWrittenInPlace(),
            counters.rdmaReads(),
            counters.bytesRead(),
            sq.signaledCount(),
            sq.postedCount()
        };
        if (failure != null) {
            LOG.warn(line, args);
        } else {
            LOG.info(line, args);
        }
        onDestroyed.run();
    }
}
