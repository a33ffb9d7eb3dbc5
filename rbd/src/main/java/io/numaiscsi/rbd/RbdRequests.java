package io.numaiscsi.rbd;

import java.util.Arrays;
import jnr.ffi.Memory;
import jnr.ffi.Runtime;

/**
 * The requests of one {@link RbdBlockDevice}: pooled, numbered so that librbd's callback argument finds one without a
 * map, counted while in flight, and refused once the device is closed or while it is fenced.
 */
final class RbdRequests {
    private final Runtime runtime;
    private RbdRequest[] slots = new RbdRequest[0];
    private int[] free = new int[0];
    private int freeCount;
    private int inFlight;
    private boolean closed;
    /** Set while a fenced gateway replaces its client: every request is refused until it is unfenced. */
    private boolean fenced;

    RbdRequests(Runtime runtime, int initial) {
        this.runtime = runtime;
        grow(initial);
    }

    /** A free request, now in flight; null when closed, fenced or {@code refused}. */
    synchronized RbdRequest take(boolean refused) {
        if (closed || fenced || refused) {
            return null;
        }
        if (freeCount == 0) {
            grow(slots.length * 2);
        }
        inFlight++;
        return slots[free[--freeCount]];
    }

    /** The request numbered {@code slot} (librbd's callback argument). */
    synchronized RbdRequest get(int slot) {
        return slots[slot];
    }

    /** {@code r} is done: free again. */
    synchronized void give(RbdRequest r) {
        free[freeCount++] = r.slot;
        if (--inFlight == 0) {
            notifyAll(); // awaitIdle waits for this
        }
    }

    private void grow(int count) {
        int old = slots.length;
        slots = Arrays.copyOf(slots, count);
        free = Arrays.copyOf(free, count);
        for (int i = count - 1; i >= old; i--) {
            slots[i] = new RbdRequest(i, Memory.allocateDirect(runtime, 8));
            free[freeCount++] = i;
        }
    }

    /** Refuses every request from now on; false when that was so already. */
    synchronized boolean close() {
        boolean was = closed;
        closed = true;
        return !was;
    }

    synchronized void fence() {
        fenced = true;
    }

    /** Serves requests again after {@link #fence}; true when the device was closed meanwhile. */
    synchronized boolean unfence() {
        fenced = false;
        return closed;
    }

    synchronized int inFlight() {
        return inFlight;
    }

    /** Waits up to {@code millis} for the requests in flight; true when none is left. */
    synchronized boolean awaitIdle(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (inFlight > 0) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }
}
