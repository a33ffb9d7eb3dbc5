package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.PduEncoder;
import io.numaiscsi.proto.PduFailure;
import io.numaiscsi.proto.transport.ConnectionExecutor;
import io.numaiscsi.proto.transport.DataInTask;
import io.numaiscsi.proto.transport.DataOutTask;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.proto.transport.NettyConnectionExecutor;
import io.numaiscsi.proto.transport.TransportEvents;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * iSER as the session layer sees it: the {@link IscsiTransport} over one {@link IserConnection}. PDUs leave as Sends
 * behind an iSER header (no digests, RFC 7145 5.1); a READ's data leaves by RDMA Write and its SCSI Response is queued
 * behind it on the same send queue; a write's solicited data is RDMA-Read once its unsolicited part is in. What the
 * connection reports goes on to the session. Built on a login thread, the connection later moves to its target's
 * thread with its completion handling ({@link Relocation}); the session's tick follows it.
 */
public final class IserTransport implements IscsiTransport {
    private static final long TICK_MILLIS = 1000;

    private final Relocation relocation;
    private final ByteBufAllocator alloc;
    private final PduEncoder encoder = new PduEncoder();
    /** Read by other threads (completions, aborts) to reach the connection's thread. */
    private volatile NettyConnectionExecutor executor;

    private final TransportEvents relay = new Relay();
    private IserConnection iser;
    private TransportEvents session;
    private ScheduledFuture<?> ticker;

    /** A transport for a connection owned by {@code executor}, which {@code relocation} can move. */
    public IserTransport(EventExecutor executor, Relocation relocation, ByteBufAllocator alloc) {
        this.executor = new NettyConnectionExecutor(executor);
        this.relocation = relocation;
        this.alloc = alloc;
    }

    /** What an {@link IserConnection} built for this transport reports to: relayed to the session. */
    public TransportEvents connectionEvents() {
        return relay;
    }

    /**
     * Serves {@code connection} (built with {@link #connectionEvents()}) to the session {@code sessions} makes over
     * this transport, starting its tick; the session's {@link TransportEvents#onOpen()} follows on the connection's
     * thread (a login slot like a TCP connection's, refused by closing). On the connection's thread, before the
     * connection starts receiving.
     */
    public void open(IserConnection connection, Function<IscsiTransport, TransportEvents> sessions) {
        this.iser = connection;
        this.session = sessions.apply(this);
        startTicker();
        executor.execute(session::onOpen);
    }

    private void startTicker() {
        ticker = executor.loop().scheduleAtFixedRate(session::onTick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Whether the session's periodic tick is scheduled (for tests). */
    public boolean ticking() {
        return ticker != null && !ticker.isDone();
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public ConnectionExecutor executor() {
        return executor;
    }

    /** RDMA Write of the data, then the SCSI Response, which the one send queue posts after it. */
    @Override
    public void queueDataIn(DataInTask task) {
        iser.putDataIn(task.itt(), task.data(), task.length());
        task.sendStatus();
    }

    /**
     * The rest of the data-out by RDMA Read from the initiator's buffer, in one request, once the unsolicited part is
     * in: the buffer the initiator advertises starts where its unsolicited data ends.
     */
    @Override
    public void getDataOut(DataOutTask task) {
        if (task.received() < task.unsolicitedEnd()) {
            return; // the session asks again as the unsolicited data arrives
        }
        int from = task.requestedEnd();
        int end = task.end();
        task.requested(end);
        iser.getDataOut(task.itt(), task.buffer(), from, end - from, task.unsolicitedEnd());
    }

    /** The connection puts its iSER header in front; iSER carries no digests and no R2T or Data-In PDUs. */
    @Override
    public void sendPdu(ByteBuf bhs, ByteBuf data) {
        iser.write(encoder.encode(alloc, bhs, null, data));
    }

    @Override
    public void flush() {
        iser.flush();
    }

    @Override
    public void close() {
        iser.close();
    }

    @Override
    public void negotiated(int maxRecvDataSegmentLength, boolean headerDigest, boolean dataDigest) {
        iser.enterFullFeature(headerDigest, dataDigest);
    }

    @Override
    public void handOff(Executor destination) {
        if (!(destination instanceof EventExecutor home)
                || home == executor.loop()
                || iser.state() != IserConnection.State.FULL_FEATURE) {
            return;
        }
        stopTicker();
        relocation.moveTo(home, () -> {
            executor = new NettyConnectionExecutor(home);
            if (iser.state() == IserConnection.State.FULL_FEATURE) {
                startTicker();
            }
        });
    }

    private void stopTicker() {
        if (ticker != null) {
            ticker.cancel(false);
            ticker = null;
        }
    }

    @Override
    public int maxSendDataSegmentLength() {
        return iser.maxSendDataSegmentLength();
    }

    /** RDMA-Written from registered cache memory, data-in needs no copy at any size. */
    @Override
    public boolean sendsDataInInPlace() {
        return true;
    }

    /** The HCA moves the data; the connection records its own touches ({@link IserTouches}). */
    @Override
    public boolean kernelCopiesData() {
        return false;
    }

    @Override
    public String remoteAddress() {
        return iser.remoteAddress();
    }

    @Override
    public String localAddress() {
        return iser.localAddress();
    }

    /** The connection's reports, on to the session; the close also ends the tick. */
    private final class Relay implements TransportEvents {
        @Override
        public void onOpen() {
            session.onOpen();
        }

        @Override
        public void onPdu(Pdu pdu) {
            if (session == null) {
                pdu.release(); // not yet opened: nothing can have been asked of it
                return;
            }
            session.onPdu(pdu);
        }

        @Override
        public void onDecodeFailure(PduFailure failure, ByteBuf failedBhs) {
            session.onDecodeFailure(failure, failedBhs);
        }

        @Override
        public void dataOutArrived(int itt, int end) {
            session.dataOutArrived(itt, end);
        }

        @Override
        public void dataOutFailed(int itt) {
            session.dataOutFailed(itt);
        }

        @Override
        public void onWritable() {
            session.onWritable();
        }

        @Override
        public void onTick() {
            session.onTick();
        }

        @Override
        public void onClosed() {
            stopTicker();
            if (session != null) {
                session.onClosed();
            }
        }
    }
}
