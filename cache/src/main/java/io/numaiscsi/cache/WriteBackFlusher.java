package io.numaiscsi.cache;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one background thread that looks at every write-back device's dirty data about every 100 ms (or at once when
 * kicked) and lets each start a write-back batch when it is over its dirty ratio or holds an expired block. Devices
 * register on open and unregister on close; the thread (a daemon thread) starts with the first device and ends when
 * the last one leaves or on {@link #close}.
 */
public final class WriteBackFlusher {
    private static final Logger LOG = LoggerFactory.getLogger(WriteBackFlusher.class);
    static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final WriteBackFlusher SHARED = new WriteBackFlusher("cache-writeback-flusher");

    /** A registered device's check, run on the flusher thread. */
    interface Member {
        void tick(long nowNanos);
    }

    private final String threadName;
    /** Replaced on (rare) register and unregister, so a tick walks it without a lock or an iterator. */
    private volatile Member[] members = new Member[0];

    private Thread thread;

    public WriteBackFlusher(String threadName) {
        this.threadName = threadName;
    }

    /** The daemon-wide flusher every cache registers with unless it is given another. */
    public static WriteBackFlusher shared() {
        return SHARED;
    }

    synchronized void register(Member m) {
        Member[] ms = Arrays.copyOf(members, members.length + 1);
        ms[ms.length - 1] = m;
        members = ms;
        if (thread == null) {
            thread = new Thread(this::run, threadName);
            thread.setDaemon(true);
            thread.start();
        }
    }

    synchronized void unregister(Member m) {
        Member[] ms = members;
        for (int i = 0; i < ms.length; i++) {
            if (ms[i] == m) {
                Member[] out = new Member[ms.length - 1];
                System.arraycopy(ms, 0, out, 0, i);
                System.arraycopy(ms, i + 1, out, i, ms.length - i - 1);
                members = out;
                break;
            }
        }
        if (members.length == 0 && thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /** Look now rather than at the next period (a device crossed its dirty ratio). */
    void kick() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Stops the thread (it restarts if a device registers again). */
    public void close() {
        Thread t;
        synchronized (this) {
            t = thread;
            thread = null;
        }
        if (t != null) {
            LockSupport.unpark(t);
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        Thread me = Thread.currentThread();
        while (true) {
            synchronized (this) {
                if (thread != me || members.length == 0) {
                    if (thread == me) {
                        thread = null;
                    }
                    return;
                }
            }
            Member[] ms = members;
            long now = System.nanoTime();
            for (Member m : ms) {
                try {
                    m.tick(now);
                } catch (RuntimeException | Error e) {
                    LOG.warn("write-back flusher: a device's check failed", e);
                }
            }
            LockSupport.parkNanos(this, PERIOD_NANOS);
        }
    }
}
