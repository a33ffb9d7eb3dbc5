package io.numaiscsi.iser;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The counters of every connection of one portal ({@link ConnectionSlots}): those of the connections gone, folded in
 * as each queue pair is destroyed, plus those of the live ones. Thread-safe: connections register and fold in on
 * their own threads (once each, not per I/O), readers such as a metrics exporter call {@link #snapshot()} or
 * {@link #live()} from any thread.
 */
public final class IserTotals {
    private final Set<IserConnection> live = new LinkedHashSet<>(); // guarded by this
    private IserStats closed = IserStats.ZERO; // guarded by this

    synchronized void opened(IserConnection connection) {
        live.add(connection);
    }

    /** On the connection's thread, after its last count: it moves from the live set to the closed total at once. */
    synchronized void destroyed(IserConnection connection) {
        if (live.remove(connection)) {
            closed = closed.plus(connection.counters());
        }
    }

    /** Closed plus live connections; no connection is counted twice or missed while it closes. */
    public synchronized IserStats snapshot() {
        IserStats sum = closed;
        for (IserConnection c : live) {
            sum = sum.plus(c.counters());
        }
        return sum;
    }

    /** The connections whose queue pair is not yet destroyed, oldest first. */
    public synchronized List<IserConnection> live() {
        return List.copyOf(live);
    }
}
