package io.numaiscsi.blockdev.backstore;

/**
 * Requests waiting their turn, first in first out, linked through {@link IoRequest#next} (no allocation). Not
 * thread-safe: its owner's lock guards it.
 */
final class IoRequestQueue {
    private IoRequest head;
    private IoRequest tail;

    boolean isEmpty() {
        return head == null;
    }

    void add(IoRequest r) {
        r.next = null;
        if (tail == null) {
            head = r;
        } else {
            tail.next = r;
        }
        tail = r;
    }

    /** The oldest request, unlinked; null when none waits. */
    IoRequest poll() {
        IoRequest r = head;
        if (r != null) {
            head = r.next;
            r.next = null;
            if (head == null) {
                tail = null;
            }
        }
        return r;
    }

    /** Every waiting request, still linked in order; the queue is empty afterwards. */
    IoRequest takeAll() {
        IoRequest all = head;
        head = null;
        tail = null;
        return all;
    }
}
