package io.numaiscsi.iser.rdma;

import io.netty.util.concurrent.EventExecutor;
import io.numaiscsi.iser.IserConnection;
import io.numaiscsi.iser.Relocation;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's poll task: scheduled once per completion event, run on the connection's executor. A
 * run that lands on a thread the connection has left forwards itself.
 */
final class PolledConnection implements Runnable, Relocation {
    private static final Logger LOG = LoggerFactory.getLogger(IserPortal.class);
    /** Completions reaped per poll call (the endpoint's completion array holds as many). */
    static final int POLL_BUDGET = 64;

    final NativeEndpoint endpoint;
    volatile EventExecutor executor;
    final AtomicBoolean scheduled = new AtomicBoolean();
    volatile IserConnection connection;
    private EventExecutor moveTo; // owner thread only
    private Runnable onArrival;

    PolledConnection(NativeEndpoint endpoint, EventExecutor executor) {
        this.endpoint = endpoint;
        this.executor = executor;
    }

    void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            executor.execute(this);
        }
    }

    /**
     * Runs {@code action} on the thread that owns the connection (after its open, which was queued there first),
     * then polls: a teardown it started has flushes to reap.
     */
    void onOwner(Consumer<IserConnection> action) {
        try {
            runOnOwner(() -> {
                IserConnection c = connection;
                if (c != null && c.state() != IserConnection.State.CLOSED) {
                    action.accept(c);
                    schedule();
                }
            });
        } catch (RuntimeException e) {
            LOG.debug("CM event for {} dropped: its thread is shut down ({})", endpoint.remoteAddress(), e.toString());
        }
    }

    /** Runs {@code task} on the connection's current thread; throws when that executor is shut down. */
    void runOnOwner(Runnable task) {
        executor.execute(() -> {
            if (executor.inEventLoop()) {
                task.run();
            } else {
                runOnOwner(task); // the connection moved meanwhile
            }
        });
    }

    @Override
    public void moveTo(EventExecutor destination, Runnable arrival) {
        moveTo = destination;
        onArrival = arrival;
    }

    @Override
    public void run() {
        EventExecutor owner = executor;
        if (!owner.inEventLoop()) {
            owner.execute(this);
            return;
        }
        scheduled.set(false);
        IserConnection c = connection;
        if (c == null) {
            return;
        }
        int n;
        do {
            n = c.poll(POLL_BUDGET);
        } while (n == POLL_BUDGET);
        if (moveTo != null && c.state() != IserConnection.State.CLOSED) {
            EventExecutor destination = moveTo;
            Runnable arrival = onArrival;
            moveTo = null;
            onArrival = null;
            executor = destination; // from here on, events are dispatched there
            destination.execute(() -> {
                arrival.run();
                run(); // arms the notification there and picks up what came meanwhile
            });
            return;
        }
        if (c.state() != IserConnection.State.CLOSED) {
            endpoint.armNotify();
            if (c.poll(POLL_BUDGET) > 0) {
                schedule(); // completions raced the re-arm
            }
        }
    }
}
