package io.numaiscsi.daemon.iser;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.numaiscsi.daemon.events.NettyConnectionExecutor;
import io.numaiscsi.session.ConnectionExecutor;
import io.numaiscsi.session.IscsiConnection;
import io.numaiscsi.session.PduChannel;
import io.numaiscsi.session.SessionServices;
import io.numaiscsi.iser.IserConnection;
import io.numaiscsi.iser.PduSink;
import io.numaiscsi.iser.rdma.IserPortal;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.PduEncoder;
import io.numaiscsi.proto.transport.DataMover;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The session layer's view of one iSER connection: PDUs from the {@link IserConnection} go to a
 * transport-neutral {@link IscsiConnection}; its framed PDUs go back as Sends; solicited data moves by RDMA
 * (the {@link DataMover}). Logged in on a login thread, it then moves to its target's home thread like a TCP
 * connection.
 */
final class IserChannel implements PduChannel, PduSink {
    private static final long TICK_MILLIS = 1000;

    private final IserConnection iser;
    private final IserPortal.Relocation relocation;
    private volatile NettyConnectionExecutor executor;
    private final PduEncoder encoder = new PduEncoder();
    private final ByteBufAllocator alloc;
    private final IscsiConnection connection;
    private ScheduledFuture<?> ticker;

    IserChannel(IserConnection iser, EventExecutor executor, IserPortal.Relocation relocation, SessionServices services,
                ByteBufAllocator alloc, LongSupplier nanoClock) {
        this.iser = iser;
        this.relocation = relocation;
        this.executor = new NettyConnectionExecutor(executor);
        this.alloc = alloc;
        this.connection = new IscsiConnection(this, services, nanoClock);
        startTicker();
        // a login slot like a TCP connection's (limits.max-logins, logins-per-address); once the transport has
        // this channel as its sink, so a refusal can close it
        executor.execute(connection::onOpen);
    }

    private void startTicker() {
        ticker = executor.loop().scheduleAtFixedRate(connection::onTick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Whether the session layer's periodic tick is scheduled (for tests). */
    boolean ticking() {
        return ticker != null && !ticker.isDone();
    }

    // ---- PduSink (from the transport) ----------------------------------------------------------

    @Override
    public void onPdu(Pdu pdu) {
        connection.onPdu(pdu);
    }

    @Override
    public void onClosed() {
        if (ticker != null) {
            ticker.cancel(false);
            ticker = null;
        }
        connection.onClosed();
    }

    // ---- PduChannel (from the session layer) ----------------------------------------------------

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public ConnectionExecutor executor() {
        return executor;
    }

    /** iSER carries no digests (RFC 7145 5.1); the connection puts its iSER header in front. */
    @Override
    public void write(ByteBuf bhs, ByteBuf data) {
        iser.write(encoder.encode(alloc(), bhs, null, data));
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
        if (!(destination instanceof EventExecutor home) || home == executor.loop() || iser.state() != IserConnection.State.FULL_FEATURE) {
            return;
        }
        if (ticker != null) {
            ticker.cancel(false);
            ticker = null;
        }
        relocation.moveTo(home, () -> {
            executor = new NettyConnectionExecutor(home);
            if (iser.state() == IserConnection.State.FULL_FEATURE) {
                startTicker();
            }
        });
    }

    @Override
    public int maxSendDataSegmentLength() {
        return iser.maxSendDataSegmentLength();
    }

    @Override
    public DataMover dataMover() {
        return iser;
    }

    @Override
    public String remoteAddress() {
        return iser.remoteAddress();
    }

    @Override
    public String localAddress() {
        return iser.localAddress();
    }
}
