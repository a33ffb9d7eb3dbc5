package io.numaiscsi.blockdev;

/** When a write is acknowledged (the cache's write policy, {@code cache.write-policy}). */
public enum WritePolicy {
    /** After the backing device has it; cached copies of the written blocks are invalidated. */
    WRITE_THROUGH,
    /** After the cache has it (dirty); the backing device gets it on flush, FUA, eviction pressure and close. */
    WRITE_BACK
}
