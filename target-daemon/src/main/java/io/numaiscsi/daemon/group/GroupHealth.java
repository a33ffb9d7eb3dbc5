package io.numaiscsi.daemon.group;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * What a member of a gateway group says of itself every {@link GroupMember#HEALTH_EVERY}, in the group's members
 * object: when (its clock, milliseconds since the epoch), which version of the group's configuration it serves and
 * which placement it acted on, its port, and the problem it has with the configuration (null: none).
 */
record GroupHealth(long time, long applied, long placement, int port, String problem) {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** An attribute holds at most 4 KiB: a long problem is cut. */
    private static final int MAX_PROBLEM = 1500;

    byte[] bytes() {
        GroupHealth h = problem == null || problem.length() <= MAX_PROBLEM
                ? this
                : new GroupHealth(time, applied, placement, port, problem.substring(0, MAX_PROBLEM) + "...");
        try {
            return JSON.writeValueAsBytes(h);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a record of numbers and a string is always JSON", e);
        }
    }

    /** The health in {@code bytes}, or null when there is none or it is not one (a member of another version). */
    static GroupHealth of(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            return JSON.readValue(bytes, GroupHealth.class);
        } catch (IOException e) {
            return null;
        }
    }
}
