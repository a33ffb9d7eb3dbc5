package io.numaiscsi.proto.transport;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** The single thread that owns one connection, as the session layer needs it. Transports adapt their own loops. */
public interface ConnectionExecutor extends Executor {

    /** Whether the caller runs on this thread. */
    boolean inThread();

    /** Runs {@code task} on this thread after {@code delay}. */
    void schedule(Runnable task, long delay, TimeUnit unit);
}
