package io.numaiscsi.iser;

/**
 * Accounting of the work requests posted on a send queue (Sends, RDMA Writes, RDMA Reads), in post order.
 * Most are posted unsignaled; a signaled completion retires every earlier request too, because a reliable
 * connection completes its send queue in order. A request is signaled when it must be (RDMA Read), when
 * {@code signalInterval} unsignaled ones are in a row, when the queue is about to fill, or when the caller's
 * buffers run low. Work request ids carry the kind and the sequence number.
 */
final class SendQueue {
    static final int SEND = 1;
    static final int WRITE = 2;
    static final int READ = 3;
    static final int RECV = 4;
    /** An RDMA Write straight from registered memory outside the slab (no chunk to give back). */
    static final int WRITE_IN_PLACE = 5;
    /** A signaled marker posted after the disconnect: its flush says every earlier request is done. */
    static final int DRAIN = 6;

    private static final int KIND_SHIFT = 48;

    /** Called for each request retired, oldest first. */
    interface Retirer {
        void retired(int kind, int resource, boolean completedOne, int status);
    }

    private final int capacity;
    private final int mask;
    private final int signalInterval;
    private final byte[] kinds;
    private final int[] resources;
    private long head; // sequence number of the next request
    private long tail; // oldest request not retired
    private long newestSignaled = -1;
    private int unsignaledRun;
    private long signaled;
    private long posted;

    SendQueue(int capacity, int signalInterval) {
        if (Integer.bitCount(capacity) != 1 || capacity < 2) {
            throw new IllegalArgumentException("send queue capacity must be a power of two >= 2: " + capacity);
        }
        if (signalInterval < 1 || signalInterval > capacity) {
            throw new IllegalArgumentException("signal interval " + signalInterval + " outside 1.." + capacity);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.signalInterval = signalInterval;
        this.kinds = new byte[capacity];
        this.resources = new int[capacity];
    }

    static long recvWrId(int rxIndex) {
        return ((long) RECV << KIND_SHIFT) | (rxIndex & 0xffffffffL);
    }

    static int kindOf(long wrId) {
        return (int) (wrId >>> KIND_SHIFT) & 0xff;
    }

    static int lowBits(long wrId) {
        return (int) wrId;
    }

    boolean full() {
        return head - tail >= capacity;
    }

    int inFlight() {
        return (int) (head - tail);
    }

    /** Whether the next request should be signaled, given the kind and whether its resources run low. */
    boolean mustSignal(int kind, boolean resourcesLow) {
        return kind == READ || resourcesLow || unsignaledRun + 1 >= signalInterval || inFlight() + 1 >= capacity;
    }

    /** Records a request about to be posted; returns its work request id. The caller must check {@link #full()}. */
    long push(int kind, int resource, boolean signal) {
        int slot = (int) head & mask;
        kinds[slot] = (byte) kind;
        resources[slot] = resource;
        long wrId = ((long) kind << KIND_SHIFT) | (head & 0xffffffffL);
        head++;
        posted++;
        if (signal) {
            newestSignaled = head - 1;
            unsignaledRun = 0;
            signaled++;
        } else {
            unsignaledRun++;
        }
        return wrId;
    }

    /**
     * Retires every request up to and including the one of {@code wrId}; the one named by the completion gets
     * {@code completedOne} true and the completion's status, earlier ones SUCCESS (they finished before it).
     * A completion for an already retired request does nothing. Returns the number retired.
     */
    int retireThrough(long wrId, int status, Retirer retirer) {
        long distance = (lowBits(wrId) - (int) tail) & 0xffffffffL;
        if (distance >= head - tail) {
            return 0;
        }
        long target = tail + distance;
        int n = 0;
        while (tail <= target) {
            int slot = (int) tail & mask;
            boolean last = tail == target;
            tail++;
            n++;
            retirer.retired(kinds[slot], resources[slot], last, last ? status : WorkCompletion.SUCCESS);
        }
        return n;
    }

    /** Whether a signaled request is outstanding: its completion (success or flush) is sure to come. */
    boolean signaledInFlight() {
        return newestSignaled >= tail;
    }

    /**
     * Whether unsignaled requests are outstanding behind the newest signaled one. The device may have completed
     * them already without a word, so after a disconnect only a later signaled request's flush retires them.
     */
    boolean silentTail() {
        return head > tail && newestSignaled != head - 1;
    }

    /** Whether the newest request is a Send, signaled and not yet retired: its completion will say it left. */
    boolean newestIsSignaledSend() {
        return head > tail && newestSignaled == head - 1 && kinds[(int) newestSignaled & mask] == SEND;
    }

    /** Retires everything outstanding (the queue pair is gone): each with WR_FLUSH_ERR. */
    int retireAll(Retirer retirer) {
        int n = 0;
        while (tail < head) {
            int slot = (int) tail & mask;
            tail++;
            n++;
            retirer.retired(kinds[slot], resources[slot], true, WorkCompletion.WR_FLUSH_ERR);
        }
        return n;
    }

    /** A kind's name for logs (the error path only). */
    static String kindName(int kind) {
        return switch (kind) {
            case SEND -> "Send";
            case WRITE, WRITE_IN_PLACE -> "RDMA Write";
            case READ -> "RDMA Read";
            case DRAIN -> "drain marker";
            default -> "kind " + kind;
        };
    }

    long signaledCount() {
        return signaled;
    }

    long postedCount() {
        return posted;
    }
}
