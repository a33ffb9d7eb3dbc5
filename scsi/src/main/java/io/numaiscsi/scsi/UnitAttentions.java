package io.numaiscsi.scsi;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Unit attention conditions of one logical unit: a queue per I_T nexus (SAM-5 5.14). On the unit's thread only. */
final class UnitAttentions {
    private static final int MAX_QUEUED = 16;

    private final HashMap<ItNexus, ArrayDeque<SenseReason>> queues = new HashMap<>();
    /** Conditions queued over all nexuses: lets the hot path skip the lookup. */
    private int pending;

    /** Records that the nexus uses this LU, so later conditions reach it. No condition is queued for it. */
    void touch(ItNexus nexus) {
        if (queues.get(nexus) == null) {
            queues.put(nexus, new ArrayDeque<>());
        }
    }

    /** Takes the oldest condition for the nexus, or null. */
    SenseReason poll(ItNexus nexus) {
        if (pending == 0) {
            return null;
        }
        ArrayDeque<SenseReason> q = queues.get(nexus);
        SenseReason r = q == null ? null : q.poll();
        if (r != null) {
            pending--;
        }
        return r;
    }

    boolean hasPending(ItNexus nexus) {
        if (pending == 0) {
            return false;
        }
        ArrayDeque<SenseReason> q = queues.get(nexus);
        return q != null && !q.isEmpty();
    }

    void post(ItNexus nexus, SenseReason reason) {
        ArrayDeque<SenseReason> q = queues.computeIfAbsent(nexus, n -> new ArrayDeque<>());
        add(q, reason);
    }

    /** Queues the condition for {@code nexus} if it has used this unit here (not a nexus of another gateway). */
    void postIfKnown(ItNexus nexus, SenseReason reason) {
        ArrayDeque<SenseReason> q = queues.get(nexus);
        if (q != null) {
            add(q, reason);
        }
    }

    /** Queues the condition for every known nexus except {@code except} (which may be null). */
    void postToAllExcept(SenseReason reason, ItNexus except) {
        for (Map.Entry<ItNexus, ArrayDeque<SenseReason>> e : queues.entrySet()) {
            if (!e.getKey().equals(except)) {
                add(e.getValue(), reason);
            }
        }
    }

    /** The nexuses that have used this unit (a copy). */
    List<ItNexus> known() {
        return List.copyOf(queues.keySet());
    }

    /** Queues the condition for every known nexus {@code which} selects. */
    void postToMatching(SenseReason reason, Predicate<ItNexus> which) {
        for (Map.Entry<ItNexus, ArrayDeque<SenseReason>> e : queues.entrySet()) {
            if (which.test(e.getKey())) {
                add(e.getValue(), reason);
            }
        }
    }

    void forget(ItNexus nexus) {
        ArrayDeque<SenseReason> q = queues.remove(nexus);
        if (q != null) {
            pending -= q.size();
        }
    }

    private void add(ArrayDeque<SenseReason> q, SenseReason reason) {
        if (q.size() < MAX_QUEUED && !q.contains(reason)) {
            q.add(reason);
            pending++;
        }
    }
}
