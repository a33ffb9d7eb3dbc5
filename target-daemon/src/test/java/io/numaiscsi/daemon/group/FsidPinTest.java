package io.numaiscsi.daemon.group;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A member remembers the cluster it joined: a later start reaching another cluster is refused with the fix. */
class FsidPinTest {
    @Test
    void anotherClusterIsRefusedNamingBothAndTheFile(@TempDir Path dataDir) throws IOException {
        assertDoesNotThrow(() -> FsidPin.check(dataDir, "g", "cluster-a"), "nothing joined yet");
        FsidPin.record(dataDir, "g", "cluster-a");
        assertDoesNotThrow(() -> FsidPin.check(dataDir, "g", "cluster-a"));
        IOException e = assertThrows(IOException.class, () -> FsidPin.check(dataDir, "g", "cluster-b"));
        assertTrue(e.getMessage().contains("joined it in cluster cluster-a"), e.getMessage());
        assertTrue(e.getMessage().contains("reaches cluster cluster-b"), e.getMessage());
        assertTrue(e.getMessage().contains(FsidPin.file(dataDir, "g").toString()), e.getMessage());
        assertDoesNotThrow(() -> FsidPin.check(dataDir, "other-group", "cluster-b"));
    }

    @Test
    void healthReadsBackAndALongProblemIsCut() {
        GroupHealth h = new GroupHealth(1234, 7, 2, 3, "x".repeat(5000));
        GroupHealth back = GroupHealth.of(h.bytes());
        assertTrue(back.problem().length() < 2000);
        assertTrue(h.bytes().length < 4096, "fits an attribute");
        assertTrue(GroupHealth.of("not json".getBytes()) == null);
        assertTrue(GroupHealth.of(null) == null);
        assertTrue(!GroupMember.up(new GroupHealth(0, 1, 1, 1, null)), "told long ago: down");
        assertTrue(GroupMember.up(new GroupHealth(System.currentTimeMillis(), 1, 1, 1, null)));
    }
}
