package io.numaiscsi.iser;

/**
 * One reliable-connected queue pair with its completion queue (send and receive share it), as the iSER
 * connection uses it. Work requests are queued by the post calls and reach the device together at
 * {@link #ring()} (one doorbell per batch). Post calls return 0 or an errno-like code; they never throw.
 * Single-threaded: the connection's thread owns it.
 */
public interface RdmaEndpoint {
    int postRecv(long wrId, MemoryRegion region, int offset, int length);

    int postSend(long wrId, MemoryRegion region, int offset, int length, boolean signaled);

    int postRdmaWrite(
            long wrId, MemoryRegion region, int offset, int length, long remoteAddress, int rkey, boolean signaled);

    /** RDMA Reads are always signaled: their completion says the data is here. */
    int postRdmaRead(long wrId, MemoryRegion region, int offset, int length, long remoteAddress, int rkey);

    /** Hands the queued work requests to the device; 0 or an error code. */
    int ring();

    /** Reaps at most {@code max} completions into {@code handler}; returns how many. */
    int poll(CompletionHandler handler, int max);

    /** rdma_disconnect: the queue pair goes to the error state and flushes what is outstanding. */
    void disconnect();

    /** Frees the queue pair, completion queue and CM id; after this nothing completes. */
    void destroy();

    /** "host:port" of the peer, for logs. */
    String remoteAddress();

    String localAddress();
}
