package io.numaiscsi.scsi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * The tasks one logical unit is executing (SAM-5 task set): entered when a task passes admission, left when it
 * completes. Confined to the unit's {@link LunThread}. An intrusive list through the tasks themselves, so entering and
 * leaving allocate nothing.
 */
final class TaskSet {
    private ScsiTask head;
    private int size;
    private final ArrayList<Runnable> whenEmpty = new ArrayList<>(1);
    /** Waits for the tasks some nexuses had in the set when each began ({@link #afterTasksOf}). */
    private final ArrayList<Drain> drains = new ArrayList<>(0);
    /** Counts the drains begun: a task remembers the count when it entered, so a drain knows which tasks it waits for. */
    private int drainsBegun;

    private record Drain(Predicate<ScsiTask> which, int begun, Runnable then) {
        boolean waitsFor(ScsiTask t) {
            return t.enteredAtDrain < begun && which.test(t);
        }
    }

    void enter(ScsiTask t) {
        t.enteredAtDrain = drainsBegun;
        t.nextInSet = head;
        t.prevInSet = null;
        if (head != null) {
            head.prevInSet = t;
        }
        head = t;
        t.inSet = true;
        size++;
    }

    /**
     * Removes a completing task. Returns the task that waited for its abort when this was the last one it waited for
     * (the caller completes it after telling the transport about this one), else null.
     */
    ScsiTask leave(ScsiTask t) {
        if (!t.inSet) {
            return null;
        }
        if (t.prevInSet != null) {
            t.prevInSet.nextInSet = t.nextInSet;
        } else {
            head = t.nextInSet;
        }
        if (t.nextInSet != null) {
            t.nextInSet.prevInSet = t.prevInSet;
        }
        t.prevInSet = null;
        t.nextInSet = null;
        t.inSet = false;
        size--;
        ScsiTask waiter = t.abortWaiter;
        t.abortWaiter = null;
        return waiter != null && --waiter.abortsPending == 0 ? waiter : null;
    }

    /**
     * Runs {@code then} once every task of {@code nexuses} in the set now has left (at once, when there is none); with
     * {@code abort} they are aborted first. Tasks of those nexuses that enter later are not waited for.
     */
    void afterTasksOf(Collection<ItNexus> nexuses, boolean abort, Runnable then) {
        Collection<ItNexus> of = List.copyOf(nexuses);
        drain(t -> of.contains(t.nexus), abort, then);
    }

    /**
     * Runs {@code then} once every task in the set now that may change the medium has left (at once, when there is
     * none): after a gateway lost a unit, what it admitted before must be done before it may write again.
     */
    void afterMediumChangesAdmitted(Runnable then) {
        drain(t -> t.kind != null && (t.kind.writesMedium() || t.kind == CommandKind.EXTENDED_COPY), false, then);
    }

    private void drain(Predicate<ScsiTask> which, boolean abort, Runnable then) {
        Drain d = new Drain(which, ++drainsBegun, then);
        boolean waiting = false;
        for (ScsiTask t = head; t != null; t = t.nextInSet) {
            if (d.waitsFor(t)) {
                waiting = true;
                if (abort) {
                    t.abort();
                }
            }
        }
        if (waiting) {
            drains.add(d);
        } else {
            then.run();
        }
    }

    private boolean anyWaitedFor(Drain d) {
        for (ScsiTask t = head; t != null; t = t.nextInSet) {
            if (d.waitsFor(t)) {
                return true;
            }
        }
        return false;
    }

    /** Runs what waits for tasks that have left; called after a leaving task's status went to the transport. */
    void afterLeave() {
        for (int i = 0; i < drains.size(); ) {
            Drain d = drains.get(i);
            if (anyWaitedFor(d)) {
                i++;
            } else {
                drains.remove(i);
                d.then().run();
            }
        }
        if (size == 0 && !whenEmpty.isEmpty()) {
            Runnable[] waiting = whenEmpty.toArray(new Runnable[0]);
            whenEmpty.clear();
            for (Runnable r : waiting) {
                r.run();
            }
        }
    }

    /**
     * Aborts every task of the given I_T nexuses except {@code waiter}; {@code waiter} is completed (GOOD) once the last of
     * them has left. Returns how many it waits for; 0 means the caller completes it now.
     */
    int abortTasksOf(Collection<ItNexus> nexuses, ScsiTask waiter) {
        int n = 0;
        for (ScsiTask t = head; t != null; t = t.nextInSet) {
            if (t != waiter && t.abortWaiter == null && nexuses.contains(t.nexus)) {
                t.abort();
                t.abortWaiter = waiter;
                n++;
            }
        }
        waiter.abortsPending = n;
        return n;
    }

    int size() {
        return size;
    }

    /** The tasks executing, for a log line: operation code, initiator, aborted. */
    String describe() {
        StringBuilder s = new StringBuilder();
        for (ScsiTask t = head; t != null; t = t.nextInSet) {
            if (s.length() > 0) {
                s.append(", ");
            }
            s.append(String.format(
                    "opcode %02x from %s%s", t.opcode(), t.nexus.initiatorName(), t.aborted() ? " (aborted)" : ""));
        }
        return s.toString();
    }

    /** Runs {@code r} once no task is left (now, if none is). */
    void whenEmpty(Runnable r) {
        if (size == 0) {
            r.run();
        } else {
            whenEmpty.add(r);
        }
    }
}
