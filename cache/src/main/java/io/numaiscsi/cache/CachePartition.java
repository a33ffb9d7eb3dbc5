package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One independent slice of a node's region: its own lock, block map, free list and LRU list. The
 * lock covers lookup, pinning and eviction, never I/O or bulk copies. A slot is on the LRU list
 * only when it is valid, clean, mapped and unpinned, so the LRU tail is always evictable; pinned
 * (in use), filling and dirty slots are never evicted. A slot taken out of the map while pinned
 * (invalidated or replaced) is an orphan and goes to the free list on its last unpin.
 */
final class CachePartition {
  static final byte FREE = 0;
  static final byte FILLING = 1;
  static final byte VALID = 2;
  /** Taken for a copy-on-write update; not in the map yet. */
  static final byte RESERVED = 3;
  /** Misses without an eviction, in slots, after which a partition counts as settled. */
  static final int SETTLED_MISSES = 4;
  /**
   * Misses, in slots, for which the least recently used block must have gone unused before a settled partition's
   * admission may evict it (see {@link #roomForNewBlock}).
   */
  static final int IDLE_MISSES = 64;

  final ReentrantLock lock = new ReentrantLock();
  final int node;
  final int slots;
  final int blockSize;
  final ByteBuf[] views;
  final SlotIo[] io;
  final LongIntMap map;
  final long[] blockOf;
  final byte[] state;
  final boolean[] mapped;
  /** Dirty slots: change them only through markDirty / markClean, which keep the device's dirty bytes. */
  final boolean[] dirty;
  /** System.nanoTime() since which the slot's block has been dirty (meaningful while dirty). */
  final long[] dirtySince;
  private int dirtySlots;
  private final DirtyAccount dirtyAccount;
  final boolean[] writeback;
  final int[] pins;
  final int[] version;
  /** Valid granules per slot: a fill marks what it read, a dirty copy is wholly valid. */
  final GranuleMap valid;
  final int granulesPerBlock;
  /** Where each slot's memory comes from, and the pool block it holds (-1: none). */
  private final PoolShare share;
  private final int[] poolBlock;
  /** Free slots holding memory; spare slots hold none (their memory is in the pool or was never taken). */
  private final int[] freeStack;
  private int freeCount;
  private final int[] spareStack;
  private int spareCount;
  private final int[] prev;
  /** Per slot: {@link #missClock} when it last went to the head of the LRU list. */
  private final long[] usedAt;
  private final int[] next;
  private final boolean[] inLru;
  private int head = -1;
  private int tail = -1;
  private final CacheCounters counters;
  /** Requests waiting for a slot (write-back writes only), linked through WriteBackWrite.nextParked. */
  private final ParkedWrites parked = new ParkedWrites();
  /** A slot became reusable while requests were parked: wake them after unlocking. */
  private boolean wakeDue;
  /**
   * Requests waiting for room under the device's hard dirty limit. Kept apart from those waiting for a slot: a slot
   * coming free does not help them, and waking them for it let them evict and refill each other's bases in a loop.
   */
  private final ParkedWrites waitingForRoom = new ParkedWrites();
  /** Read misses looked at in this partition, and that count at its last eviction (see {@link #settled}). */
  private long missClock;
  private long lastEviction;

  /** A partition with a pool of its own over {@code memory} (tests). */
  CachePartition(int node, ByteBuffer memory, int slots, int blockSize, int granule, CacheCounters counters,
                 SlotIo.Sink slotSink) {
    this(node, new PoolShare(NodeBlockPool.over(node, memory, blockSize)), slots, blockSize, granule, counters,
        slotSink, new DirtyAccount((long) slots * blockSize, 0.5, blockSize));
    share.join(new CachePartition[] {this});
  }

  /**
   * Up to {@code slots} blocks, their memory taken from {@code share}'s pool as misses need it; the caller joins the
   * share to the pool once all of its partitions exist.
   */
  CachePartition(int node, PoolShare share, int slots, int blockSize, int granule, CacheCounters counters,
                 SlotIo.Sink slotSink, DirtyAccount dirtyAccount) {
    this.dirtyAccount = dirtyAccount;
    this.share = share;
    this.node = node;
    this.granulesPerBlock = blockSize / granule;
    this.valid = new GranuleMap(slots, granulesPerBlock);
    this.slots = slots;
    this.blockSize = blockSize;
    this.counters = counters;
    views = new ByteBuf[slots];
    poolBlock = new int[slots];
    io = new SlotIo[slots];
    map = new LongIntMap(slots);
    blockOf = new long[slots];
    state = new byte[slots];
    mapped = new boolean[slots];
    dirty = new boolean[slots];
    dirtySince = new long[slots];
    writeback = new boolean[slots];
    pins = new int[slots];
    version = new int[slots];
    freeStack = new int[slots];
    spareStack = new int[slots];
    prev = new int[slots];
    usedAt = new long[slots];
    next = new int[slots];
    inLru = new boolean[slots];
    for (int s = 0; s < slots; s++) {
      poolBlock[s] = -1;
      io[s] = new SlotIo(slotSink, this, s);
      spareStack[s] = slots - 1 - s; // slot 0 handed out first
      prev[s] = -1;
      next[s] = -1;
    }
    spareCount = slots;
  }

  // ---- everything below runs with the lock held ----

  int lookup(long block) {
    return map.get(block);
  }

  /**
   * Counts a read miss; true when the partition has evicted nothing for the last {@link #SETTLED_MISSES} slots' worth
   * of misses: what it is asked for then fits, and a miss may fill without the reuse the admission otherwise asks for
   * (a LUN that fits in the cache warms up under random reads; on one larger than it, misses evict, and the partition
   * stays strict).
   */
  boolean settled() {
    return ++missClock - lastEviction > (long) SETTLED_MISSES * slots;
  }

  /**
   * Whether a new block can take a slot without evicting one still in use: a free slot, memory of the pool, or an LRU
   * tail unused for {@link #IDLE_MISSES} slots' worth of misses. On a LUN several times larger than the cache, random
   * misses reach each block held every few slots' worth of misses, so the tail is never that idle and a settled
   * admission evicts nothing (before, one admission every {@link #SETTLED_MISSES} slots' worth of misses evicted a
   * block for one that held a granule, turning the whole cache over every few seconds); when the working set moves,
   * the blocks it left go idle and are replaced.
   */
  boolean roomForNewBlock() {
    return freeCount > 0 || spareCount > 0 && share.pool.freeBytes() > 0
        || tail >= 0 && missClock - usedAt[tail] > (long) IDLE_MISSES * slots;
  }

  /** Whether slot s holds granules [g0, g1) or is filling them. */
  boolean holds(int s, int g0, int g1) {
    return valid.covers(s, g0, g1) || state[s] == FILLING && io[s].fillCovers(g0, g1);
  }

  /** A free slot, or the LRU tail evicted; -1 when every slot is pinned, filling or dirty. Pinned once. */
  int acquire() {
    int s;
    if (freeCount > 0) {
      s = freeStack[--freeCount];
    } else if (spareCount > 0 && (s = bindSpare()) >= 0) {
      // memory from the node's pool: nothing evicted
    } else if (tail >= 0) {
      s = evictTail();
    } else {
      return -1;
    }
    state[s] = RESERVED;
    valid.clear(s);
    pins[s] = 1;
    markClean(s);
    version[s]++;
    return s;
  }

  /** Takes the LRU tail (valid, clean, unpinned) out of the list and the map; its memory stays with the slot. */
  private int evictTail() {
    int s = tail;
    lruRemove(s);
    map.remove(blockOf[s]);
    mapped[s] = false;
    counters.evictions[node].increment();
    lastEviction = missClock;
    return s;
  }

  /** A spare slot given a block of the pool's memory, or -1 when the pool has none free. */
  private int bindSpare() {
    int b = share.pool.take(share);
    if (b < 0) {
      return -1;
    }
    int s = spareStack[--spareCount];
    poolBlock[s] = b;
    views[s] = share.pool.view(b);
    return s;
  }

  /**
   * Gives up to {@code wanted} blocks of memory back to the pool: free slots' first, then the least recently used
   * clean blocks' (evicted). Pinned, filling and dirty blocks stay. Returns how many were given.
   */
  int giveBack(int wanted) {
    int given = 0;
    while (given < wanted && freeCount > 0) {
      unbind(freeStack[--freeCount]);
      given++;
    }
    while (given < wanted && tail >= 0) {
      int s = evictTail();
      state[s] = FREE;
      valid.clear(s);
      version[s]++;
      unbind(s);
      given++;
    }
    return given;
  }

  private void unbind(int s) {
    share.pool.give(share, poolBlock[s]);
    poolBlock[s] = -1;
    views[s] = null;
    spareStack[spareCount++] = s;
  }

  /** Maps a freshly acquired slot as FILLING granules [from, to) of {@code block}; the caller holds its pin. */
  void startFill(int s, long block, int from, int to) {
    blockOf[s] = block;
    mapped[s] = true;
    map.put(block, s);
    startSubFill(s, from, to);
  }

  /** A slot already mapped gets granules [from, to) filled; the caller holds its pin (and no one else does). */
  void startSubFill(int s, int from, int to) {
    state[s] = FILLING;
    io[s].fillFrom = from;
    io[s].fillTo = to;
  }

  /** A hit served without a pin: the slot becomes the most recently used. */
  void used(int s) {
    if (inLru[s]) {
      lruRemove(s);
      lruPushHead(s);
    }
  }

  void pin(int s) {
    if (pins[s]++ == 0 && inLru[s]) {
      lruRemove(s);
    }
  }

  /** Drops one pin; true when the slot became available for reuse (free list or LRU). */
  boolean unpin(int s) {
    if (--pins[s] > 0) {
      return false;
    }
    if (pins[s] < 0) {
      throw new IllegalStateException("unpin of unpinned slot " + s);
    }
    if (!mapped[s]) {
      release(s);
      return true;
    }
    if (state[s] == VALID && !dirty[s]) {
      lruPushHead(s);
      return true;
    }
    return false;
  }

  private void release(int s) {
    state[s] = FREE;
    markClean(s);
    freeStack[freeCount++] = s;
    wakeDue |= !parked.isEmpty();
  }

  /** Whether parked requests must be woken (clears the flag). Lock held. */
  boolean takeWakeDue() {
    boolean w = wakeDue;
    wakeDue = false;
    return w;
  }

  /** Takes the slot out of the map; freed now if unpinned, else on its last unpin. */
  void unmapSlot(int s) {
    if (!mapped[s]) {
      return;
    }
    map.remove(blockOf[s]);
    mapped[s] = false;
    markClean(s); // superseded: a batch never writes an unmapped slot back, so it is no longer dirty data
    if (inLru[s]) {
      lruRemove(s);
    }
    if (pins[s] == 0) {
      release(s);
    }
  }

  /** Installs a reserved, pinned slot as the block's current version (replacing any other). */
  void install(int s, long block, boolean isDirty) {
    int old = map.get(block);
    // A block rewritten again and again keeps its first dirty time, so it still expires; one whose older
    // version is being written back is dirty from now.
    boolean inherit = old >= 0 && dirty[old] && !writeback[old];
    long since = inherit ? dirtySince[old] : 0;
    if (old >= 0) {
      unmapSlot(old);
    }
    state[s] = VALID;
    valid.mark(s, 0, granulesPerBlock);
    blockOf[s] = block;
    mapped[s] = true;
    if (isDirty) {
      markDirty(s, inherit ? since : System.nanoTime());
    } else {
      markClean(s);
    }
    map.put(block, s);
  }

  private void markDirty(int s, long since) {
    if (!dirty[s]) {
      dirty[s] = true;
      dirtySlots++;
      dirtyAccount.blockDirtied();
    }
    dirtySince[s] = since;
  }

  /** The slot's data is on the backing device (or superseded). */
  void markClean(int s) {
    if (dirty[s]) {
      dirty[s] = false;
      dirtySlots--;
      dirtyAccount.blockCleaned();
    }
  }

  /** Whether a dirty block not being written back has been dirty since {@code cutoff} (System.nanoTime) or before. */
  boolean hasDirtySince(long cutoff) {
    if (dirtySlots == 0) {
      return false;
    }
    for (int s = 0; s < slots; s++) {
      if (dirty[s] && !writeback[s] && dirtySince[s] - cutoff <= 0) {
        return true;
      }
    }
    return false;
  }

  /** Returns a reserved slot that will not be installed. */
  void abandon(int s) {
    pins[s] = 0;
    release(s);
  }

  void park(WriteBackWrite r) {
    parked.add(r);
  }

  /** Takes the whole list of requests waiting for a slot (resume it after unlocking), or null. */
  WriteBackWrite takeParked() {
    return parked.takeAll();
  }

  /** Parks a write until the device's dirty bytes leave room for one more block. */
  void parkForDirtyRoom(WriteBackWrite r) {
    waitingForRoom.add(r);
  }

  /** Takes the whole list of requests waiting for dirty room, or null. */
  WriteBackWrite takeParkedForDirtyRoom() {
    return waitingForRoom.takeAll();
  }

  boolean hasParked() {
    return !parked.isEmpty() || !waitingForRoom.isEmpty();
  }

  // ---- LRU: head = most recently used, tail = next victim ----

  private void lruPushHead(int s) {
    prev[s] = -1;
    next[s] = head;
    if (head >= 0) {
      prev[head] = s;
    }
    head = s;
    if (tail < 0) {
      tail = s;
    }
    inLru[s] = true;
    usedAt[s] = missClock;
    wakeDue |= !parked.isEmpty();
  }

  private void lruRemove(int s) {
    int p = prev[s];
    int n = next[s];
    if (p >= 0) {
      next[p] = n;
    } else {
      head = n;
    }
    if (n >= 0) {
      prev[n] = p;
    } else {
      tail = p;
    }
    inLru[s] = false;
  }

  /** Slots in LRU order, least recently used first (tests). */
  int[] lruOrder() {
    int n = 0;
    for (int s = tail; s >= 0; s = prev[s]) {
      n++;
    }
    int[] out = new int[n];
    int i = 0;
    for (int s = tail; s >= 0; s = prev[s]) {
      out[i++] = s;
    }
    return out;
  }

  int freeCount() {
    return freeCount;
  }
}
