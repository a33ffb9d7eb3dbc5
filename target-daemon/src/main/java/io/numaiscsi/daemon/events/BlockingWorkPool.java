package io.numaiscsi.daemon.events;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fixed set of threads that run blocking work (backing-store I/O, node workers) handed to them through a bounded
 * lock-free ring ({@link TaskRing}), allocating nothing per task. The JDK's fixed thread pool allocates a queue node
 * for every task and a condition node every time a worker waits: about 40 bytes per file-LUN write measured
 * (fio-tests/bench/measure-allocation.sh --file 128M --write). A worker spins briefly on an empty ring, then marks
 * itself parked and parks; {@link #execute} wakes one parked worker. The worker re-reads the ring after marking
 * itself and the producer reads the marks after publishing its task, so a task is never left with every worker
 * asleep. A full ring rejects the task ({@link RejectedExecutionException}), as a shut-down pool does.
 */
public final class BlockingWorkPool implements Executor, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BlockingWorkPool.class);
    private static final int SPINS = 64;
    private static final int PARKED = 1;
    private static final int AWAKE = 0;

    private final String name;
    private final TaskRing ring;
    private final Thread[] workers;
    private final AtomicIntegerArray state;
    private final AtomicInteger parked = new AtomicInteger();
    private volatile boolean shutdown;

    /** Starts {@code threads} workers from {@code factory}; {@code capacity} tasks may wait (rounded up to a power of 2). */
    public BlockingWorkPool(String name, int threads, int capacity, ThreadFactory factory) {
        if (threads < 1) {
            throw new IllegalArgumentException(name + ": threads " + threads + " < 1");
        }
        this.name = name;
        this.ring = new TaskRing(capacity);
        this.workers = new Thread[threads];
        this.state = new AtomicIntegerArray(threads);
        for (int i = 0; i < threads; i++) {
            int index = i;
            workers[i] = factory.newThread(() -> work(index));
        }
        for (Thread t : workers) {
            t.start();
        }
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException(name + " is shut down");
        }
        if (!ring.offer(task)) {
            throw new RejectedExecutionException(name + ": " + ring.capacity() + " tasks already wait");
        }
        if (parked.get() > 0) {
            wakeOne();
        }
    }

    /** Tasks waiting for a worker (a snapshot). */
    public int waiting() {
        return ring.size();
    }

    public int threads() {
        return workers.length;
    }

    /** No new tasks; the workers finish what is queued and end. */
    public void shutdown() {
        shutdown = true;
        for (Thread t : workers) {
            LockSupport.unpark(t);
        }
    }

    /** {@link #shutdown}, then waits up to {@code timeout} for the workers to end; true if they all did. */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        shutdown();
        for (Thread t : workers) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedJoin(t, left);
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        shutdown();
    }

    private void wakeOne() {
        for (int i = 0; i < workers.length; i++) {
            if (state.get(i) == PARKED && state.compareAndSet(i, PARKED, AWAKE)) {
                parked.decrementAndGet();
                LockSupport.unpark(workers[i]);
                return;
            }
        }
    }

    private void work(int index) {
        while (true) {
            Runnable task = ring.poll();
            for (int spin = 0; task == null && spin < SPINS; spin++) {
                Thread.onSpinWait();
                task = ring.poll();
            }
            if (task == null) {
                task = parkUntilWork(index);
                if (task == null) {
                    return; // shut down and drained
                }
            }
            run(task);
        }
    }

    /** Marks this worker parked, then re-reads the ring before each park; null once shut down with nothing left. */
    private Runnable parkUntilWork(int index) {
        state.set(index, PARKED);
        parked.incrementAndGet();
        while (true) {
            Runnable task = ring.poll();
            if (task != null || shutdown) {
                if (state.compareAndSet(index, PARKED, AWAKE)) {
                    parked.decrementAndGet();
                }
                return task; // a waker that got here first left an unpark permit: the next park returns at once
            }
            if (state.get(index) == AWAKE) {
                state.set(index, PARKED); // woken for a task another worker took: park again
                parked.incrementAndGet();
                continue;
            }
            LockSupport.park(this);
        }
    }

    private void run(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            LOG.error("{}: a task failed: {}", name, io.numaiscsi.daemon.Reasons.of(t));
            LOG.debug("{}: a task failed", name, t);
        }
    }
}
