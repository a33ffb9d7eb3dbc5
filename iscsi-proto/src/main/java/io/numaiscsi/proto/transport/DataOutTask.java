package io.numaiscsi.proto.transport;

import io.netty.buffer.ByteBuf;

/**
 * A write's data-out as the session layer hands it to {@link IscsiTransport#getDataOut}: the session's pooled command,
 * valid for that call only. Offsets count from the start of the transfer.
 */
public interface DataOutTask {
    int itt();

    /** Where the data goes: byte {@code i} of the transfer at index {@code i}. */
    ByteBuf buffer();

    /** The first offset the initiator does not send unsolicited; its buffer for solicited data starts there. */
    int unsolicitedEnd();

    /** Contiguous bytes in, from offset 0. */
    int received();

    /** The first offset not asked for yet. */
    int requestedEnd();

    /** The bytes to collect in all. */
    int end();

    /** The transport has asked for {@code [requestedEnd(), end)} itself. */
    void requested(int end);

    /** Asks for what comes next with R2Ts, within MaxOutstandingR2T and MaxBurstLength, through the transport. */
    void solicitWithR2ts();
}
