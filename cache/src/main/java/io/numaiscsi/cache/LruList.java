package io.numaiscsi.cache;

import java.util.Arrays;

/**
 * The evictable slots of one partition in least-recently-used order: a doubly linked list threaded through int arrays
 * indexed by slot (no node objects). Head = most recently used, tail = next victim. Each slot remembers the
 * partition's miss clock when it last went to the head. Its partition's lock held for every call.
 */
final class LruList {
    private final int[] prev;
    private final int[] next;
    private final boolean[] in;
    private final long[] usedAt;
    private int head = -1;
    private int tail = -1;

    LruList(int slots) {
        prev = new int[slots];
        next = new int[slots];
        in = new boolean[slots];
        usedAt = new long[slots];
        Arrays.fill(prev, -1);
        Arrays.fill(next, -1);
    }

    boolean contains(int s) {
        return in[s];
    }

    /** The least recently used slot, or -1 when the list is empty. */
    int tail() {
        return tail;
    }

    /** The miss clock when slot s last went to the head. */
    long usedAt(int s) {
        return usedAt[s];
    }

    void pushHead(int s, long clock) {
        prev[s] = -1;
        next[s] = head;
        if (head >= 0) {
            prev[head] = s;
        }
        head = s;
        if (tail < 0) {
            tail = s;
        }
        in[s] = true;
        usedAt[s] = clock;
    }

    void remove(int s) {
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
        in[s] = false;
    }

    /** Slots least recently used first (tests, diagnostics). */
    int[] order() {
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
}
