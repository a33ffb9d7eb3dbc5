package io.numaiscsi.session;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of read and write data buffers of all connections together (limits.buffer-memory). A connection
 * charges a command's buffer before it allocates it and releases it when the buffer is gone; a charge that
 * does not fit leaves the command parked on its connection, which registers a wake-up here and is called back
 * when bytes are released.
 */
public final class BufferBudget {
    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final ConcurrentLinkedQueue<Runnable> waiters = new ConcurrentLinkedQueue<>();

    public BufferBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("buffer budget must be positive");
        }
        this.limit = limit;
    }

    /** Charges {@code bytes} if they fit under the limit. */
    public boolean tryCharge(long bytes) {
        while (true) {
            long now = used.get();
            if (now + bytes > limit) {
                return false;
            }
            if (used.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Charges {@code bytes} even past the limit: for the bounded amounts a connection is always granted. */
    public void forceCharge(long bytes) {
        used.addAndGet(bytes);
    }

    public void release(long bytes) {
        if (bytes == 0) {
            return;
        }
        used.addAndGet(-bytes);
        // Only those waiting now: one woken inline that fails again registers anew, for the next release.
        for (int n = waiters.size(); n > 0; n--) {
            Runnable w = waiters.poll();
            if (w == null) {
                break;
            }
            w.run();
        }
    }

    /**
     * Calls {@code wakeUp} (on the releasing thread; it must only hand off) after the next release. If bytes were
     * released between the failed charge and this call, it is called at once.
     */
    public void awaitRelease(Runnable wakeUp, long bytesWanted) {
        waiters.add(wakeUp);
        if (used.get() + bytesWanted <= limit && waiters.remove(wakeUp)) {
            wakeUp.run();
        }
    }

    public long used() {
        return used.get();
    }

    public long limit() {
        return limit;
    }
}
