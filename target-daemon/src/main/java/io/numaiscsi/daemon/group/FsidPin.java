package io.numaiscsi.daemon.group;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The cluster a member joined, kept in its data directory: a later start reaching another cluster is refused. */
final class FsidPin {
    private FsidPin() {}

    static Path file(Path dataDir, String group) {
        return dataDir.resolve("group-" + group + ".fsid");
    }

    static void check(Path dataDir, String group, String fsid) throws IOException {
        Path f = file(dataDir, group);
        if (!Files.exists(f)) {
            return;
        }
        String joined = Files.readString(f, StandardCharsets.US_ASCII).strip();
        if (!joined.equals(fsid)) {
            throw new IOException("gateway group " + group + ": this gateway joined it in cluster " + joined
                    + ", but its ceph-conf now reaches cluster " + fsid
                    + "; point ceph-conf at the group's cluster,"
                    + " or delete " + f + " to join a group of this cluster");
        }
    }

    static void record(Path dataDir, String group, String fsid) throws IOException {
        Files.createDirectories(dataDir);
        Files.writeString(file(dataDir, group), fsid + "\n", StandardCharsets.US_ASCII);
    }
}
