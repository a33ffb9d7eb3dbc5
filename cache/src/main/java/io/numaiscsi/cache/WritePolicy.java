package io.numaiscsi.cache;

/** When a write is acknowledged. */
public enum WritePolicy {
  /** After the backing device has it; cached copies of the written blocks are invalidated. */
  WRITE_THROUGH,
  /** After the cache has it (dirty); the backing device gets it on flush, FUA, eviction pressure and close. */
  WRITE_BACK
}
