package io.numaiscsi.numa;

/** A thread that belongs to one node; cheap to ask on the hot path ({@link #currentNode()}). */
public final class NodeThread extends Thread {
    private final int node;

    NodeThread(Runnable task, String name, int node) {
        super(task, name);
        this.node = node;
    }

    public int node() {
        return node;
    }

    /** Node of threads created elsewhere (e.g. Netty's event loops) that bound themselves with {@link #bindCurrentThread}. */
    private static final ThreadLocal<int[]> BOUND = new ThreadLocal<>();

    /** The node index of the calling thread, or -1 when it is neither a node thread nor bound to a node. */
    public static int currentNode() {
        if (Thread.currentThread() instanceof NodeThread t) {
            return t.node;
        }
        int[] bound = BOUND.get();
        return bound == null ? -1 : bound[0];
    }

    /** Declares that the calling thread (created by someone else's factory) belongs to {@code node}. */
    public static void bindCurrentThread(int node) {
        BOUND.set(new int[] {node});
    }
}
