package io.numaiscsi.proto.transport;

import io.netty.buffer.ByteBuf;

/**
 * A READ's data-in as the session layer hands it to {@link IscsiTransport#queueDataIn}: the session's pooled command,
 * valid for that call only.
 */
public interface DataInTask {
    int itt();

    /** The data from its readerIndex; the session's reference (the transport retains what it keeps). */
    ByteBuf data();

    /** How many bytes of {@link #data()} to send: no more than the initiator expects. */
    int length();

    /**
     * Sends the data as iSCSI Data-In PDUs (each within the initiator's MaxRecvDataSegmentLength, the F bit at every
     * MaxBurstLength), the status in the last, through {@link IscsiTransport#sendPdu}.
     */
    void sendDataInPdus();

    /** Sends the status as a SCSI Response ({@link IscsiTransport#queueStatus}), after data the transport placed. */
    void sendStatus();
}
