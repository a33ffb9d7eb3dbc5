package io.numaiscsi.iser;

import io.numaiscsi.proto.Bhs;

/**
 * Sizes of one iSER connection's resources, fixed at start.
 *
 * @param queueDepth commands the initiator may have outstanding (the CmdSN window)
 * @param maxOutstandingUnexpectedPdus NOP-Out, task management, text and logout PDUs beyond the commands
 * @param recvDataSegmentLength the largest data segment the initiator may Send us (our declared
 *        MaxRecvDataSegmentLength / TargetRecvDataSegmentLength, immediate data included)
 * @param sendDataSegmentLength the largest data segment we Send (the initiator's receive buffers)
 * @param dataChunkSize bytes one RDMA Read or Write moves at most
 * @param dataChunks registered chunks for RDMA Read and Write staging
 * @param maxOutstandingReads RDMA Reads in flight at once (the initiator's responder resources)
 * @param sendQueueDepth send queue work requests (power of two)
 * @param signalInterval at most this many unsignaled send queue requests in a row
 */
public record IserSettings(
        int queueDepth,
        int maxOutstandingUnexpectedPdus,
        int recvDataSegmentLength,
        int sendDataSegmentLength,
        int dataChunkSize,
        int dataChunks,
        int maxOutstandingReads,
        int sendQueueDepth,
        int signalInterval) {
    /** iSER header + BHS: what precedes the data segment in every Send. */
    public static final int HEADERS = IserHeader.LENGTH + Bhs.LENGTH;
    /** AHS we accept in a received PDU (an Extended CDB). */
    public static final int AHS_ALLOWANCE = 256;
    /** RFC 7143 default data segment length; login PDUs never exceed it. */
    public static final int MIN_SEGMENT = 8192;

    public IserSettings {
        check("queueDepth", queueDepth, 1, 4096);
        check("maxOutstandingUnexpectedPdus", maxOutstandingUnexpectedPdus, 2, 4096); // RFC 7145: 2 or more
        check("recvDataSegmentLength", recvDataSegmentLength, MIN_SEGMENT, 16777215);
        check("sendDataSegmentLength", sendDataSegmentLength, MIN_SEGMENT, 16777215);
        check("dataChunkSize", dataChunkSize, 4096, 16 << 20);
        check("dataChunks", dataChunks, 1, 65536);
        check("maxOutstandingReads", maxOutstandingReads, 1, 256);
        if (Integer.bitCount(sendQueueDepth) != 1 || sendQueueDepth < 16) {
            throw new IllegalArgumentException("sendQueueDepth must be a power of two >= 16: " + sendQueueDepth);
        }
        check("signalInterval", signalInterval, 1, sendQueueDepth / 2);
    }

    /** A connection for {@code queueDepth} commands with 8 KiB control PDUs and 128 KiB RDMA chunks. */
    public static IserSettings defaults(int queueDepth) {
        return new IserSettings(queueDepth, 16, MIN_SEGMENT, MIN_SEGMENT, 128 * 1024, 32, 16, 512, 16);
    }

    /** Receive buffers posted ahead: one per command plus the unexpected PDUs, so the initiator never sees RNR. */
    public int receiveBuffers() {
        return queueDepth + maxOutstandingUnexpectedPdus;
    }

    /** Bytes of one receive buffer. */
    public int receiveBufferSize() {
        return align(HEADERS + AHS_ALLOWANCE + recvDataSegmentLength);
    }

    /** Send buffers: each response waits for its completion, so as many as receive buffers plus slack. */
    public int sendBuffers() {
        return receiveBuffers() + signalInterval;
    }

    public int sendBufferSize() {
        return align(HEADERS + AHS_ALLOWANCE + sendDataSegmentLength + 4);
    }

    /** Registered bytes one connection needs: receive, send and data chunks, in that order. */
    public long connectionBytes() {
        return (long) receiveBuffers() * receiveBufferSize()
                + (long) sendBuffers() * sendBufferSize()
                + (long) dataChunks * dataChunkSize;
    }

    private static int align(int n) {
        return (n + 63) & ~63;
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + " outside " + min + ".." + max);
        }
    }
}
