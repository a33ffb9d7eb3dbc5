package io.numaiscsi.daemon.state;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The thread a store of state files writes on: one at a time, in the order asked, never on an event thread. Closing
 * finishes what was asked (commands wait for those writes) and stops the thread.
 */
public final class StateFileWriter implements Executor, AutoCloseable {
    private static final long WAIT_SECONDS = 30;

    private final ExecutorService io;

    public StateFileWriter(String threadName) {
        io = Executors.newSingleThreadExecutor(new DefaultThreadFactory(threadName, true));
    }

    /** Runs {@code write} on the thread. @throws java.util.concurrent.RejectedExecutionException once closed */
    @Override
    public void execute(Runnable write) {
        io.execute(write);
    }

    /** A change to a file that may fail. */
    @FunctionalInterface
    public interface FileAction {
        void run() throws IOException;
    }

    /** Runs {@code action} on {@code file} on the thread, after what was asked before, and waits for it. */
    public void runAndWait(FileAction action, Path file) throws IOException {
        try {
            io.submit(() -> {
                        action.run();
                        return null;
                    })
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted changing " + file, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException failure ? failure : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("changing " + file + " took longer than " + WAIT_SECONDS + " s", e);
        }
    }

    @Override
    public void close() {
        io.shutdown();
        try {
            io.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
