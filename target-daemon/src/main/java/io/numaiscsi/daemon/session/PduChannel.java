package io.numaiscsi.daemon.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;

/**
 * What the session layer needs from a transport (TCP today, iSER later): a place to put framed PDUs,
 * receive-side limits, and the single thread that owns the connection. The session layer never asks
 * which transport it runs on.
 */
public interface PduChannel {
    ByteBufAllocator alloc();

    /** The thread that owns this connection; every session-layer call for it happens there. */
    EventExecutor executor();

    /** Queue one framed PDU; nothing reaches the wire before {@link #flush()}. */
    void write(ByteBuf framedPdu);

    void flush();

    /** Flush what is queued, then close. Idempotent. */
    void close();

    /** Limits for what the initiator may send from now on (after login: the negotiated values). */
    void receiveLimits(int maxRecvDataSegmentLength, boolean headerDigest, boolean dataDigest);

    /**
     * Moves the connection to another event thread (the home of its target after login). Processing of
     * received bytes pauses until the move completes; afterwards {@link #executor()} is the new thread.
     */
    void handOff(java.util.concurrent.Executor destination);

    /**
     * The transport's own mover of solicited data (iSER: RDMA Read and Write), or null when the session layer
     * sends R2T and Data-In PDUs itself (TCP).
     */
    /** The largest data segment this transport can send in one PDU, whatever the initiator declared. */
    default int maxSendDataSegmentLength() {
        return Integer.MAX_VALUE;
    }

    default io.numaiscsi.proto.transport.DataMover dataMover() {
        return null;
    }

    /**
     * Whether the transport takes more output now. While it does not, the session layer starts no READ on this
     * connection, and the transport stops reading new PDUs, so a peer that does not drain its responses cannot make
     * the target queue data without bound; the transport calls {@link IscsiConnection#onWritable()} when it drains.
     */
    default boolean writable() {
        return true;
    }

    /** "host:port" of the initiator, for logs. */
    String remoteAddress();

    /**
     * The initiator's IP address, for access lists; null when unknown. The default parses {@link #remoteAddress()}
     * ("a.b.c.d:port" or "[v6]:port"), which holds a literal, so no name is ever looked up.
     */
    default java.net.InetAddress remoteInetAddress() {
        return RemoteAddresses.parse(remoteAddress());
    }

    /** "host:port" this connection arrived on (SendTargets answers with it when the portal is a wildcard). */
    String localAddress();
}
