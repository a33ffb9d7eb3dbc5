package io.numaiscsi.cache;

/**
 * A FIFO of parked write-back writes, linked through {@link WriteBackWrite#nextParked}; its partition's lock held.
 * {@link #resumeAll} resumes a list taken from one, after the lock is released.
 */
final class ParkedWrites {
    private static final ThreadLocal<ResumeQueue> RESUMING = ThreadLocal.withInitial(ResumeQueue::new);

    private WriteBackWrite head;
    private WriteBackWrite tail;

    void add(WriteBackWrite r) {
        r.nextParked = null;
        if (tail == null) {
            head = r;
        } else {
            tail.nextParked = r;
        }
        tail = r;
    }

    /** Takes the whole list (resume it after unlocking), or null. */
    WriteBackWrite takeAll() {
        WriteBackWrite h = head;
        head = null;
        tail = null;
        return h;
    }

    boolean isEmpty() {
        return head == null;
    }

    /**
     * Resumes parked writes (a list from {@link #takeAll}, or null) one after another, never one inside another: a
     * resumed write may park again and run a write-back batch inline, which frees slots and resumes more; nested, a
     * long chain of parked writes overflowed the stack. Writes to resume while this thread is already resuming join its
     * queue.
     */
    static void resumeAll(WriteBackWrite list) {
        if (list == null) {
            return;
        }
        ResumeQueue q = RESUMING.get();
        q.append(list);
        if (q.draining) {
            return;
        }
        q.draining = true;
        try {
            WriteBackWrite r;
            while ((r = q.poll()) != null) {
                r.resume();
            }
        } finally {
            q.draining = false;
        }
    }

    /** This thread's writes waiting to be resumed, linked through {@code nextParked}. */
    private static final class ResumeQueue {
        private WriteBackWrite head;
        private WriteBackWrite tail;
        private boolean draining;

        void append(WriteBackWrite list) {
            if (head == null) {
                head = list;
            } else {
                tail.nextParked = list;
            }
            WriteBackWrite last = list;
            while (last.nextParked != null) {
                last = last.nextParked;
            }
            tail = last;
        }

        WriteBackWrite poll() {
            WriteBackWrite r = head;
            if (r != null) {
                head = r.nextParked;
                if (head == null) {
                    tail = null;
                }
                r.nextParked = null;
            }
            return r;
        }
    }
}
