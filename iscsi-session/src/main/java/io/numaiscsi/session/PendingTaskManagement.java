package io.numaiscsi.session;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A task management request waiting for the commands it aborted to finish executing: the response
 * goes out only after no aborted command can still touch the medium (SAM-5 task management rules).
 * Commands on several connections (LUN reset) count down from their own threads.
 */
final class PendingTaskManagement {
    private final IscsiConnection requester;
    private final int itt;
    private final int response;
    private final Runnable beforeResponse;
    private final AtomicInteger pending = new AtomicInteger(1);

    PendingTaskManagement(IscsiConnection requester, int itt, int response, Runnable beforeResponse) {
        this.requester = requester;
        this.itt = itt;
        this.response = response;
        this.beforeResponse = beforeResponse;
    }

    void add(int n) {
        pending.addAndGet(n);
    }

    /** One participant finished; the last one sends the response on the requester's thread. */
    void done() {
        if (pending.decrementAndGet() == 0) {
            requester.transport().executor().execute(() -> {
                if (beforeResponse != null) {
                    beforeResponse.run();
                }
                requester.sendTaskManagementResponse(itt, response);
            });
        }
    }
}
