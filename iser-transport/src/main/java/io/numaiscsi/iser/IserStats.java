package io.numaiscsi.iser;

/**
 * The traffic counters of one iSER connection, or the sum over several, at one moment. Immutable.
 *
 * @param receives Sends received from the initiator (one PDU each)
 * @param sends Sends posted to the initiator
 * @param rdmaWrites RDMA Writes posted (data-in)
 * @param rdmaReads RDMA Reads posted (data-out)
 * @param bytesWritten data-in bytes RDMA-Written
 * @param bytesRead data-out bytes RDMA-Read and handed to the session
 * @param bytesWrittenInPlace the part of {@code bytesWritten} written straight from registered cache memory
 */
public record IserStats(
        long receives,
        long sends,
        long rdmaWrites,
        long rdmaReads,
        long bytesWritten,
        long bytesRead,
        long bytesWrittenInPlace) {
    public static final IserStats ZERO = new IserStats(0, 0, 0, 0, 0, 0, 0);

    public IserStats plus(IserStats o) {
        return new IserStats(
                receives + o.receives,
                sends + o.sends,
                rdmaWrites + o.rdmaWrites,
                rdmaReads + o.rdmaReads,
                bytesWritten + o.bytesWritten,
                bytesRead + o.bytesRead,
                bytesWrittenInPlace + o.bytesWrittenInPlace);
    }
}
