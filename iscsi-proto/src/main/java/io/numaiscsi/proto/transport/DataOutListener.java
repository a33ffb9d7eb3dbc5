package io.numaiscsi.proto.transport;

/** Completion of {@link DataMover#getDataOut}, on the connection's thread. */
public interface DataOutListener {
    /** All requested bytes of task {@code itt} are in its buffer, up to offset {@code end}. */
    void dataOutArrived(int itt, int end);

    /** The transfer for task {@code itt} failed; the connection is going down (its tasks are aborted then). */
    void dataOutFailed(int itt);
}
