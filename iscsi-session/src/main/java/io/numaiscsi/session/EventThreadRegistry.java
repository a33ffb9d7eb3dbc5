package io.numaiscsi.session;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The stats of every thread that has served a command; a thread registers itself once, on first use. */
public final class EventThreadRegistry {
    private final List<EventThreadStats> all = new CopyOnWriteArrayList<>();
    private final ThreadLocal<EventThreadStats> mine = ThreadLocal.withInitial(this::register);

    private EventThreadStats register() {
        EventThreadStats s = new EventThreadStats(Thread.currentThread());
        all.add(s);
        return s;
    }

    /** The calling thread's stats. */
    public EventThreadStats current() {
        return mine.get();
    }

    public List<EventThreadStats> snapshot() {
        return new ArrayList<>(all);
    }
}
