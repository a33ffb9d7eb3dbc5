package io.numaiscsi.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * What the session layer needs from a transport (TCP, iSER): a place to put PDUs, the negotiated limits, and the
 * single thread that owns the connection. The session layer never asks which transport it runs on.
 *
 * <p>The contract. PDUs cross this interface unframed: a 48-byte Basic Header Segment built on the proto flyweights
 * plus a data segment, in both directions (received PDUs arrive as {@link io.numaiscsi.proto.Pdu}). Framing is the
 * transport's: TCP pads the data segment to 4 bytes and adds the negotiated digests; iSER puts its own header in
 * front and moves solicited data by RDMA ({@link #dataMover()}). Every call comes from {@link #executor()}, and the
 * transport calls the session layer ({@link IscsiConnection}) only from there.
 */
public interface PduChannel {
    ByteBufAllocator alloc();

    /** The thread that owns this connection; every session-layer call for it happens there. */
    ConnectionExecutor executor();

    /**
     * Queues one PDU: {@code bhs} (48 bytes) and {@code data} (null for none) become the transport's, which frames,
     * sends and releases them. Nothing reaches the wire before {@link #flush()}.
     */
    void write(ByteBuf bhs, ByteBuf data);

    void flush();

    /** Flush what is queued, then close. Idempotent. */
    void close();

    /**
     * The values login negotiated, in force from the next PDU in either direction: the largest data segment the
     * initiator may send, and whether headers and data carry CRC32C digests.
     */
    void negotiated(int maxRecvDataSegmentLength, boolean headerDigest, boolean dataDigest);

    /**
     * Moves the connection to another event thread (the home of its target after login). Processing of
     * received bytes pauses until the move completes; afterwards {@link #executor()} is the new thread.
     */
    void handOff(java.util.concurrent.Executor destination);

    /** The largest data segment this transport can send in one PDU, whatever the initiator declared. */
    default int maxSendDataSegmentLength() {
        return Integer.MAX_VALUE;
    }

    /**
     * The transport's own mover of solicited data (iSER: RDMA Read and Write), or null when the session layer
     * sends R2T and Data-In PDUs itself (TCP).
     */
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
