package io.numaiscsi.cache;

import io.numaiscsi.numa.NodeThread;

/**
 * Where a cache request runs: one of at least the route threshold is forwarded once to the workers of the node
 * holding most of its bytes ({@link AffinityRouter}); any other starts on the calling thread.
 */
final class RequestDispatch {
    private final AffinityRouter router;
    private final NodeExecutors executors;
    private final CacheCounters counters;

    RequestDispatch(AffinityRouter router, NodeExecutors executors, CacheCounters counters) {
        this.router = router;
        this.executors = executors;
        this.counters = counters;
    }

    /** Whether a request of {@code length} bytes arriving on this thread would be considered for forwarding. */
    boolean mayForward(int length) {
        return executors.present() && router.routes(length, Math.max(0, NodeThread.currentNode()));
    }

    void dispatch(RoutedRequest r) {
        int arrival = Math.max(0, NodeThread.currentNode());
        r.servingNode = arrival;
        if (executors.present() && router.routes((int) r.length, arrival)) {
            int node = router.route(r.offset, r.length, arrival);
            if (node != arrival) {
                r.routed = true;
                r.servingNode = node;
                counters.forward(node);
                if (executors.execute(node, r)) {
                    return;
                }
                r.servingNode = arrival; // served here rather than refused
            }
        }
        r.start();
    }
}
