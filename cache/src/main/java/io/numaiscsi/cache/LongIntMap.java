package io.numaiscsi.cache;

import java.util.Arrays;

/**
 * Open-addressing map from block number (long, >= 0) to slot (int), no boxing: linear probing,
 * deletion by backward shift (no tombstones, so lookups never slow down with churn). Capacity is
 * fixed at construction (a partition never holds more blocks than it has slots). Not thread-safe.
 */
final class LongIntMap {
    static final int MISSING = -1;
    private static final long EMPTY = -1L;

    private final long[] keys;
    private final int[] values;
    private final int mask;
    private int size;

    LongIntMap(int maxEntries) {
        int cap = Integer.highestOneBit(Math.max(4, maxEntries * 2 - 1)) << 1; // load factor <= 0.5
        keys = new long[cap];
        values = new int[cap];
        mask = cap - 1;
        Arrays.fill(keys, EMPTY);
    }

    int size() {
        return size;
    }

    private int home(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    int get(long key) {
        for (int i = home(key); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == EMPTY) {
                return MISSING;
            }
        }
    }

    /** Inserts or replaces; returns the previous value or MISSING. */
    int put(long key, int value) {
        if (key < 0) {
            throw new IllegalArgumentException("negative key " + key);
        }
        for (int i = home(key); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                int old = values[i];
                values[i] = value;
                return old;
            }
            if (k == EMPTY) {
                if (size + 1 > (mask + 1) >>> 1) {
                    throw new IllegalStateException("map full: " + size);
                }
                keys[i] = key;
                values[i] = value;
                size++;
                return MISSING;
            }
        }
    }

    /** Removes the key; returns its value or MISSING. */
    int remove(long key) {
        int i = home(key);
        while (true) {
            long k = keys[i];
            if (k == EMPTY) {
                return MISSING;
            }
            if (k == key) {
                break;
            }
            i = (i + 1) & mask;
        }
        int old = values[i];
        // backward shift: move later entries of the probe run into the hole when their home allows it
        int hole = i;
        for (int j = (i + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            int h = home(keys[j]);
            boolean movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = EMPTY;
        size--;
        return old;
    }
}
