package io.numaiscsi.daemon.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The Ceph clients a gateway has used for one LUN, recorded as extended attributes of the LUN's watch object so that
 * a gateway whose change notice went unanswered can fence the silent one: {@code pr.<port>} lists "GID ADDRESS" of the
 * clients that watched the object (a notify reply names a silent watcher by its global id only), {@code image.<port>}
 * the addresses of the clients that opened the RBD image. Newest first, the last {@link #REMEMBERED} of each: a
 * restarted gateway's old client still watches until the OSD drops it (30 s), and it must be fenceable too.
 */
final class GatewayClients {
    static final int REMEMBERED = 4;

    private GatewayClients() {}

    static String watcherKey(int port) {
        return "pr." + port;
    }

    static String imageKey(int port) {
        return "image." + port;
    }

    /** {@code entry} first, then the entries of {@code old} (null: none) other than it, at most {@link #REMEMBERED}. */
    static byte[] prepend(byte[] old, String entry) {
        List<String> entries = new ArrayList<>();
        entries.add(entry);
        for (String e : entries(old)) {
            if (!e.equals(entry) && entries.size() < REMEMBERED) {
                entries.add(e);
            }
        }
        return String.join("\n", entries).getBytes(StandardCharsets.US_ASCII);
    }

    static List<String> entries(byte[] value) {
        List<String> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        for (String line : new String(value, StandardCharsets.US_ASCII).split("\n", -1)) {
            if (!line.isBlank()) {
                out.add(line.strip());
            }
        }
        return out;
    }

    static String watcherEntry(long gid, String address) {
        return gid + " " + address;
    }

    /** The address a watcher entry records for global id {@code gid}, or null. */
    static String addressOf(List<String> watcherEntries, long gid) {
        String prefix = gid + " ";
        for (String e : watcherEntries) {
            if (e.startsWith(prefix)) {
                return e.substring(prefix.length());
            }
        }
        return null;
    }
}
