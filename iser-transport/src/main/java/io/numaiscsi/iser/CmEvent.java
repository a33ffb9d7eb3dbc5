package io.numaiscsi.iser;

/**
 * The RDMA CM events (librdmacm's {@code enum rdma_cm_event_type}) a portal sees, and what those of an accepted
 * connection do to it. {@link #deliver} runs on the connection's own thread.
 */
public final class CmEvent {
    public static final int CONNECT_REQUEST = 4;
    public static final int CONNECT_ERROR = 6;
    public static final int UNREACHABLE = 7;
    public static final int REJECTED = 8;
    public static final int ESTABLISHED = 9;
    public static final int DISCONNECTED = 10;
    public static final int DEVICE_REMOVAL = 11;
    public static final int ADDR_CHANGE = 14;
    public static final int TIMEWAIT_EXIT = 15;

    private CmEvent() {}

    /** Whether an event of {@code type} is for the connection of its id ({@link #deliver}). */
    public static boolean concernsConnection(int type) {
        return switch (type) {
            case CONNECT_ERROR, UNREACHABLE, REJECTED, DISCONNECTED, DEVICE_REMOVAL, ADDR_CHANGE, TIMEWAIT_EXIT -> true;
            default -> false;
        };
    }

    public static void deliver(int type, IserConnection connection) {
        switch (type) {
            // the initiator disconnected, or the connection never got established: the teardown starts now
            case CONNECT_ERROR, UNREACHABLE, REJECTED, DISCONNECTED, ADDR_CHANGE -> connection.peerDisconnected();
            // out of timewait: what has not come back flushed by now never will
            case TIMEWAIT_EXIT -> connection.quiesced();
            // the device is going away and its queue pairs must go first
            case DEVICE_REMOVAL -> connection.forceDestroy();
            default -> {}
        }
    }

    public static String name(int type) {
        return switch (type) {
            case CONNECT_REQUEST -> "CONNECT_REQUEST";
            case CONNECT_ERROR -> "CONNECT_ERROR";
            case UNREACHABLE -> "UNREACHABLE";
            case REJECTED -> "REJECTED";
            case ESTABLISHED -> "ESTABLISHED";
            case DISCONNECTED -> "DISCONNECTED";
            case DEVICE_REMOVAL -> "DEVICE_REMOVAL";
            case ADDR_CHANGE -> "ADDR_CHANGE";
            case TIMEWAIT_EXIT -> "TIMEWAIT_EXIT";
            default -> "event " + type;
        };
    }
}
