package io.numaiscsi.cache;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** Reused requests, so the hot path allocates nothing once warm; also counts the requests in flight (for close). */
final class RequestPool {
  private static final int LIMIT = 1024;

  private final CacheRequest[] pool = new CacheRequest[LIMIT];
  private int pooled;
  private final AtomicInteger inflight = new AtomicInteger();
  /** Makes a request that recycles itself into the pool it is given. */
  private final Function<RequestPool, CacheRequest> factory;

  RequestPool(Function<RequestPool, CacheRequest> factory) {
    this.factory = factory;
  }

  CacheRequest take() {
    inflight.incrementAndGet();
    CacheRequest r;
    synchronized (pool) {
      r = pooled > 0 ? pool[--pooled] : null;
    }
    if (r == null) {
      r = factory.apply(this);
    }
    r.reset();
    return r;
  }

  void recycle(CacheRequest r) {
    r.buf = null;
    r.done = null;
    synchronized (pool) {
      if (pooled < LIMIT) {
        pool[pooled++] = r;
      }
    }
    inflight.decrementAndGet();
  }

  int inflight() {
    return inflight.get();
  }
}
