package io.numaiscsi.blockdev.backstore;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IoRequestQueueTest {

    @Test
    void firstInFirstOutAndEmptyAfterTakingAll() {
        IoRequestQueue q = new IoRequestQueue();
        IoRequest a = new IoRequest(null);
        IoRequest b = new IoRequest(null);
        IoRequest c = new IoRequest(null);
        assertTrue(q.isEmpty());
        q.add(a);
        q.add(b);
        assertSame(a, q.poll());
        assertNull(a.next, "a polled request is unlinked");
        q.add(c);
        assertSame(b, q.poll());
        assertSame(c, q.poll());
        assertNull(q.poll());
        assertTrue(q.isEmpty());

        q.add(a);
        q.add(b);
        IoRequest all = q.takeAll();
        assertSame(a, all);
        assertSame(b, all.next);
        assertTrue(q.isEmpty());
        q.add(c);
        assertSame(c, q.poll(), "the queue is usable after taking all");
    }
}
