package io.numaiscsi.iser;

import io.netty.util.collection.IntObjectHashMap;
import java.util.ArrayDeque;

/**
 * The buffers (STags) each command in progress advertised, by ITT: recorded when its SCSI Command arrives, looked up
 * for its data-in and data-out, forgotten when its SCSI Response is queued. Entries are pooled (queue depth); more
 * tasks than that are allocated, as the session answers TASK SET FULL. The connection's thread only.
 */
final class TaskTable {
    private final IntObjectHashMap<TaskBuffers> tasks = new IntObjectHashMap<>();
    private final ArrayDeque<TaskBuffers> free = new ArrayDeque<>();

    TaskTable(int queueDepth) {
        for (int i = 0; i < queueDepth; i++) {
            free.add(new TaskBuffers());
        }
    }

    /** The entry of {@code itt}, a new one if it has none; the caller sets it. */
    TaskBuffers entry(int itt) {
        TaskBuffers t = tasks.get(itt);
        if (t == null) {
            t = free.poll();
            if (t == null) {
                t = new TaskBuffers();
            }
            tasks.put(itt, t);
        }
        return t;
    }

    /** The entry of {@code itt}, or null. */
    TaskBuffers get(int itt) {
        return tasks.get(itt);
    }

    void forget(int itt) {
        TaskBuffers t = tasks.remove(itt);
        if (t != null) {
            free.add(t);
        }
    }

    void clear() {
        for (TaskBuffers t : tasks.values()) {
            free.add(t);
        }
        tasks.clear();
    }

    int size() {
        return tasks.size();
    }
}
