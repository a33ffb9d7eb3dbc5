package io.numaiscsi.proto.transport;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.proto.Pdu;
import io.numaiscsi.proto.PduFailure;

/**
 * What a transport reports to the session layer about one connection, always on the connection's thread
 * ({@link IscsiTransport#executor()}). The session layer's connection implements it; the transport holds it from the
 * connection's start.
 */
public interface TransportEvents {
    /** The connection is accepted and can be closed: the session may refuse it now. Called once, first. */
    void onOpen();

    /** One complete PDU (framing and digests checked, data segment without padding); ownership passes. */
    void onPdu(Pdu pdu);

    /**
     * The byte stream can no longer be framed (RFC 7143: a bad header digest, a data segment over the negotiated
     * limit...); {@code failedBhs} is the header that failed, or null. The session answers and closes.
     */
    void onDecodeFailure(PduFailure failure, ByteBuf failedBhs);

    /** The bytes {@link IscsiTransport#getDataOut} asked for task {@code itt} are in, up to offset {@code end}. */
    void dataOutArrived(int itt, int end);

    /** The transfer for task {@code itt} failed; the connection is going down (its tasks are aborted then). */
    void dataOutFailed(int itt);

    /** The transport takes output again after {@link IscsiTransport#writable()} said it did not. */
    void onWritable();

    /** Once a second, for keepalive and timeouts. */
    void onTick();

    /** The connection is down (the peer left, an error, or our close). Called once, last. */
    void onClosed();
}
