package io.numaiscsi.numa;

import jnr.ffi.LibraryLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every large malloc a fresh mapping. glibc raises its mmap threshold each time a mapped block is freed; from
 * then on large blocks come from its heaps, recycled from whatever thread freed them, with their pages already on
 * that thread's node. Netty's pooled allocator takes its 4 MiB chunks from malloc, so a node's pool would hand out
 * another node's memory (seen as Data-In buffers of a node-1 LUN on node 0 in the two-node guest). A fixed threshold
 * turns the raising off: each chunk is a new mapping, placed by the first thread that touches it, one of the pool's
 * own node.
 */
public final class FreshLargeBlocks {
    private static final Logger LOG = LoggerFactory.getLogger(FreshLargeBlocks.class);
    private static final int M_MMAP_THRESHOLD = -3;
    /** glibc's own starting value: blocks from 128 KiB up are mapped. */
    static final int THRESHOLD = 128 << 10;

    private FreshLargeBlocks() {}

    /** glibc's mallopt; public only because jnr-ffi generates its implementation in another class loader. */
    public interface Malloc {
        int mallopt(int param, int value);
    }

    /** Fixes the threshold; false (and says why once) where the C library is not glibc. */
    public static boolean fixThreshold() {
        try {
            Malloc libc = LibraryLoader.create(Malloc.class).failImmediately().load("c");
            if (libc.mallopt(M_MMAP_THRESHOLD, THRESHOLD) == 1) {
                return true;
            }
            LOG.info("mallopt(M_MMAP_THRESHOLD) refused: a node's buffer pool may reuse another node's freed memory");
        } catch (RuntimeException | LinkageError e) {
            LOG.info("no glibc mallopt ({}): a node's buffer pool may reuse another node's freed memory", e.toString());
        }
        return false;
    }
}
