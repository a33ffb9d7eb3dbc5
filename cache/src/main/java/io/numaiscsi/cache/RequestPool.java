package io.numaiscsi.cache;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** Reused requests of one kind, so the hot path allocates nothing once warm; counts them in flight (for close). */
final class RequestPool<T extends RequestPool.Pooled> {
    private static final int LIMIT = 1024;

    /** A pooled request: made ready for its next use, and told to drop what it references when recycled. */
    interface Pooled {
        void reset();

        void clear();
    }

    private final Object[] pool = new Object[LIMIT];
    private int pooled;
    /** Shared by every pool of one cache. */
    private final AtomicInteger inflight;
    /** Makes a request that recycles itself into the pool it is given. */
    private final Function<RequestPool<T>, T> factory;

    RequestPool(AtomicInteger inflight, Function<RequestPool<T>, T> factory) {
        this.inflight = inflight;
        this.factory = factory;
    }

    @SuppressWarnings("unchecked")
    T take() {
        inflight.incrementAndGet();
        T r;
        synchronized (pool) {
            r = pooled > 0 ? (T) pool[--pooled] : null;
        }
        if (r == null) {
            r = factory.apply(this);
        }
        r.reset();
        return r;
    }

    void recycle(T r) {
        r.clear();
        synchronized (pool) {
            if (pooled < LIMIT) {
                pool[pooled++] = r;
            }
        }
        inflight.decrementAndGet();
    }
}
