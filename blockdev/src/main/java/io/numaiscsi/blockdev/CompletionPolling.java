package io.numaiscsi.blockdev;

import java.util.Arrays;

/**
 * The stores a thread reaps completions from itself while it would otherwise wait. A store that submits I/O from a
 * polling thread (a LUN's event thread) leaves the completions to that thread instead of waking its reaper; the
 * thread polls it each time it looks for work, until nothing is in flight, and hands it back to its reaper before it
 * blocks. A completion then costs no thread wake-up at all when it comes while the thread is awake, and never more
 * than one.
 *
 * <p>Touched by its own thread only: a store adds itself from {@link #current()}, the thread polls and hands off.
 */
public final class CompletionPolling {
    /** A store whose completions a polling thread can reap. */
    public interface Pollable {
        /** Reaps and delivers what is ready, on the calling thread; true while something is still in flight. */
        boolean poll();

        /** The polling thread stops polling: the store's own reaper takes what is still in flight. */
        void handOff();
    }

    private static final ThreadLocal<CompletionPolling> CURRENT = new ThreadLocal<>();

    private Pollable[] stores = new Pollable[4];
    private int count;

    private CompletionPolling() {}

    /** The calling thread polls from now on; its loop calls {@link #poll()} and, before it blocks, {@link #handOff()}. */
    public static CompletionPolling installOnCurrentThread() {
        CompletionPolling p = CURRENT.get();
        if (p == null) {
            p = new CompletionPolling();
            CURRENT.set(p);
        }
        return p;
    }

    /** The calling thread's, or null when it does not poll. */
    public static CompletionPolling current() {
        return CURRENT.get();
    }

    /** By a store on this thread that left its completions to it: polled until it has nothing in flight. */
    public void add(Pollable store) {
        if (count == stores.length) {
            stores = Arrays.copyOf(stores, count * 2);
        }
        stores[count++] = store;
    }

    /** true while a store waits for this thread to reap its completions. */
    public boolean active() {
        return count > 0;
    }

    /** Polls every store once (delivering its completions here); a store with nothing left in flight leaves. */
    public void poll() {
        int i = 0;
        while (i < count) {
            if (stores[i].poll()) {
                i++;
            } else {
                // a store that a delivery re-added sits at the end; the swap keeps it and polls it next
                stores[i] = stores[--count];
                stores[count] = null;
            }
        }
    }

    /** The thread is about to block: every store's reaper takes over. */
    public void handOff() {
        while (count > 0) {
            Pollable p = stores[--count];
            stores[count] = null;
            p.handOff();
        }
    }
}
