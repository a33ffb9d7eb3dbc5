package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.numaiscsi.proto.PduEncoder;
import io.numaiscsi.proto.transport.ConnectionExecutor;
import io.numaiscsi.proto.transport.DataInTask;
import io.numaiscsi.proto.transport.DataOutTask;
import io.numaiscsi.proto.transport.IscsiTransport;
import io.numaiscsi.proto.transport.NettyConnectionExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A transport that keeps what is written, for session-layer tests without a network: data travels as TCP carries it
 * (R2T, Data-Out and Data-In PDUs).
 */
class FakeTransport implements IscsiTransport {
    final List<ByteBuf> written = new ArrayList<>();
    final String remote;
    boolean closed;
    /** What {@link #writable()} answers: false plays a peer that does not read its socket. */
    boolean writable = true;
    /** The connection's thread; tests that need scheduling use an EmbeddedChannel's event loop. */
    EventExecutor executor = ImmediateEventExecutor.INSTANCE;

    int flushes;
    private final PduEncoder encoder = new PduEncoder();

    FakeTransport(String remote) {
        this.remote = remote;
    }

    @Override
    public ByteBufAllocator alloc() {
        return UnpooledByteBufAllocator.DEFAULT;
    }

    @Override
    public ConnectionExecutor executor() {
        return new NettyConnectionExecutor(executor);
    }

    @Override
    public void queueDataIn(DataInTask task) {
        task.sendDataInPdus();
    }

    @Override
    public void getDataOut(DataOutTask task) {
        task.solicitWithR2ts();
    }

    /** Keeps the PDU framed as TCP would send it without digests, so tests read it as bytes on the wire. */
    @Override
    public void sendPdu(ByteBuf bhs, ByteBuf data) {
        written.add(encoder.encode(alloc(), bhs, null, data));
    }

    @Override
    public void flush() {
        flushes++;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public boolean writable() {
        return writable;
    }

    @Override
    public boolean sendsDataInInPlace() {
        return false;
    }

    @Override
    public boolean kernelCopiesData() {
        return true;
    }

    @Override
    public void negotiated(int maxRecvDataSegmentLength, boolean headerDigest, boolean dataDigest) {}

    @Override
    public void handOff(Executor destination) {}

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public String localAddress() {
        return "127.0.0.1:3260";
    }

    /** The last PDU written; the caller releases nothing (the list keeps them). */
    ByteBuf last() {
        return written.get(written.size() - 1);
    }

    void release() {
        for (ByteBuf b : written) {
            b.release();
        }
        written.clear();
    }
}
