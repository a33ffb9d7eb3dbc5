package io.numaiscsi.cache;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** The per-node worker executors requests are forwarded to; none means no forwarding. */
final class NodeExecutors {
    private final Executor[] executors;

    NodeExecutors(Executor[] executors, int nodes) {
        if (executors != null && executors.length != nodes) {
            throw new IllegalArgumentException("one executor per node needed: " + executors.length + " for " + nodes);
        }
        this.executors = executors == null ? null : executors.clone();
    }

    boolean present() {
        return executors != null;
    }

    /** Runs {@code task} on {@code node}'s workers; false when there are none or they refuse it. */
    boolean execute(int node, Runnable task) {
        if (executors == null) {
            return false;
        }
        try {
            executors[node].execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }
}
