package io.numaiscsi.proto.transport;

import io.netty.buffer.ByteBuf;

/**
 * How a transport moves solicited SCSI data when it does not use R2T and Data-In PDUs (LIO's
 * {@code iscsit_transport} get_dataout / queue_data_in): iSER (RFC 7145) pulls Data-Out with RDMA Read and
 * places Data-In with RDMA Write. Every call happens on the connection's own thread, and every
 * {@link DataOutListener} call comes back on it. A transport that has no mover (TCP) leaves the session layer
 * to send R2Ts and Data-In PDUs itself.
 */
public interface DataMover {
    /**
     * Pulls the bytes {@code [offset, offset + length)} of task {@code itt}'s data-out into {@code into} at the
     * same offsets. {@code solicitedStart} is the first offset the initiator did not send unsolicited (immediate
     * data and unsolicited Data-Out end there): the initiator's advertised buffer starts at it. The transport
     * retains {@code into} until it reports through {@code listener}, so the caller may release its own
     * reference at any time (an aborted task).
     */
    void getDataOut(int itt, ByteBuf into, int offset, int length, int solicitedStart, DataOutListener listener);

    /**
     * Places {@code length} bytes of {@code data} (from its readerIndex) at the start of task {@code itt}'s
     * data-in buffer at the initiator. The status PDU the session queues next is ordered after the data.
     * The transport copies or retains what it needs; the caller keeps its reference. A task without a usable
     * initiator buffer is an initiator protocol error: the transport drops the connection.
     */
    void putDataIn(int itt, ByteBuf data, int length);
}
