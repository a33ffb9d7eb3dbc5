package io.numaiscsi.proto.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetAddress;
import java.util.concurrent.Executor;

/**
 * One connection's transport as the session layer drives it: the one contract iSCSI/TCP and iSER (RFC 7145) implement,
 * in the shape of LIO's {@code iscsit_transport}. The session layer builds every PDU and owns every sequence number;
 * the transport frames and moves them, and decides how a command's data travels: TCP carries it in the session's R2T,
 * Data-Out and Data-In PDUs, iSER moves it by RDMA Read and Write. The session never asks which transport it has.
 *
 * <p>PDUs cross unframed: a 48-byte Basic Header Segment built on the proto flyweights plus a data segment (null for
 * none), both becoming the transport's, which frames, sends and releases them (TCP pads the data segment and adds the
 * negotiated digests, iSER puts its header in front). Nothing reaches the wire before {@link #flush()}. What arrives
 * goes to the session through {@link TransportEvents}, complete PDUs decoded.
 *
 * <p>One thread owns a connection ({@link #executor()}): every call in either direction happens there.
 */
public interface IscsiTransport {
    ByteBufAllocator alloc();

    /** The thread that owns this connection; every session-layer call for it happens there. */
    ConnectionExecutor executor();

    /**
     * A READ's data-in, then its status (LIO's queue_data_in). A transport that carries Data-In PDUs has the task send
     * them, the status in the last ({@link DataInTask#sendDataInPdus()}); one that places the data itself does so and
     * then has the task send the status ({@link DataInTask#sendStatus()}), which leaves after the data. The data stays
     * the session's: the transport retains or copies what it needs past the call.
     */
    void queueDataIn(DataInTask task);

    /**
     * A write wants more of its data-out: {@code [task.requestedEnd(), task.end())} has not been asked for yet (LIO's
     * get_dataout). TCP asks with R2Ts ({@link DataOutTask#solicitWithR2ts()}), the initiator's Data-Out PDUs then
     * arriving through {@link TransportEvents#onPdu}; iSER RDMA-Reads the rest into {@link DataOutTask#buffer()} once
     * the unsolicited part is in and reports through {@link TransportEvents#dataOutArrived}. The session calls again
     * whenever data arrives while some is not asked for.
     */
    void getDataOut(DataOutTask task);

    /**
     * A SCSI Response: the status of a command that returns no data-in, or of a READ after its data (LIO's
     * queue_status); {@code sense} (null for none) is its data segment.
     */
    default void queueStatus(ByteBuf bhs, ByteBuf sense) {
        sendPdu(bhs, sense);
    }

    /**
     * Any other PDU: Login, Text and Logout Responses, NOP-In, R2T and Data-In (built for TCP), Reject, Task Management
     * Response, Asynchronous Message.
     */
    void sendPdu(ByteBuf bhs, ByteBuf data);

    void flush();

    /** Flush what is queued, then close. Idempotent; {@link TransportEvents#onClosed()} follows once. */
    void close();

    /**
     * The values login negotiated, in force from the next PDU in either direction: the largest data segment the
     * initiator may send, and whether headers and data carry CRC32C digests.
     */
    void negotiated(int maxRecvDataSegmentLength, boolean headerDigest, boolean dataDigest);

    /**
     * Moves the connection to another event thread (the home of its target after login). Processing of received
     * PDUs pauses until the move completes; afterwards {@link #executor()} is the new thread.
     */
    void handOff(Executor destination);

    /** The largest data segment this transport can send in one PDU, whatever the initiator declared. */
    default int maxSendDataSegmentLength() {
        return Integer.MAX_VALUE;
    }

    /**
     * Whether the transport takes more output now. While it does not, the session starts no READ on this connection,
     * and the transport reads no new PDUs, so a peer that does not drain its responses cannot make the target queue
     * data without bound; the transport calls {@link TransportEvents#onWritable()} when it drains.
     */
    default boolean writable() {
        return true;
    }

    /**
     * Whether data-in of any size is best left where it lies (cache blocks) until sent: an RDMA Write straight from
     * registered memory saves a copy, while a socket copies a small read more cheaply than it gathers its pieces.
     */
    boolean sendsDataInInPlace();

    /**
     * Whether the kernel copies this connection's data between a socket and our buffers, on the connection's thread:
     * the session then records those copies in the LUN's data touches. A transport whose device moves the data (RDMA)
     * records its own.
     */
    boolean kernelCopiesData();

    /** "host:port" of the initiator, for logs. */
    String remoteAddress();

    /**
     * The initiator's IP address, for access lists; null when unknown. The default parses {@link #remoteAddress()}
     * ("a.b.c.d:port" or "[v6]:port"), which holds a literal, so no name is ever looked up.
     */
    default InetAddress remoteInetAddress() {
        return RemoteAddresses.parse(remoteAddress());
    }

    /** "host:port" this connection arrived on (SendTargets answers with it when the portal is a wildcard). */
    String localAddress();
}
