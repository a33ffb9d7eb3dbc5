package io.numaiscsi.daemon.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compare-and-swap on a file object: two handles stand for two gateways (the IT runs two processes). */
class LocalFileObjectTest {
    @TempDir
    Path dir;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aNewObjectIsEmptyAtVersionZero() throws IOException {
        LocalFileObject o = new LocalFileObject(dir, "pr.x.lun-0");
        assertEquals(0, o.knownVersion());
        assertEquals(0, o.read().version());
        assertEquals(0, o.read().bytes().length);
    }

    @Test
    void replaceWinsOnlyAtTheVersionItExpects() throws IOException {
        LocalFileObject a = new LocalFileObject(dir, "pr.x.lun-0");
        LocalFileObject b = new LocalFileObject(dir, "pr.x.lun-0");
        assertEquals(1, a.replace(0, utf8("from a"), false).version());
        assertEquals(1, b.knownVersion(), "the other handle knows at once, without reading");
        assertEquals(-1, b.replace(0, utf8("from b"), false).version(), "b decided on version 0: it loses");
        VersionedObject.Contents now = b.read();
        assertEquals(1, now.version());
        assertArrayEquals(utf8("from a"), now.bytes(), "the loser wrote nothing");
        assertEquals(2, b.replace(1, utf8("from b"), false).version());
        assertArrayEquals(utf8("from b"), a.read().bytes());
        assertEquals(2, new LocalFileObject(dir, "pr.x.lun-0").knownVersion(), "a handle opened later sees it too");
    }

    @Test
    void ofConcurrentReplacesOnOneVersionExactlyOneWins() throws Exception {
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < 20; round++) {
                long version = round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Long>> results = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    LocalFileObject handle = new LocalFileObject(dir, "pr.race.lun-0");
                    byte[] mine = utf8("writer " + w);
                    results.add(pool.submit(() -> {
                        go.await();
                        return handle.replace(version, mine, false).version();
                    }));
                }
                go.countDown();
                int won = 0;
                for (Future<Long> f : results) {
                    won += f.get() == version + 1 ? 1 : 0;
                }
                assertEquals(1, won, "round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aMissingDirectoryIsNamed() {
        NoSuchFileException e =
                assertThrows(NoSuchFileException.class, () -> new LocalFileObject(dir.resolve("absent"), "pr.x.lun-0"));
        assertEquals(dir.resolve("absent").toString(), e.getFile());
    }

    @Test
    void aTruncatedObjectIsAnError() throws IOException {
        LocalFileObject o = new LocalFileObject(dir, "pr.x.lun-0");
        Files.write(dir.resolve("pr.x.lun-0.data"), new byte[3]);
        assertThrows(IOException.class, o::read);
    }

    @Test
    void objectNamesAreOnePathElementPerTargetAndLun() {
        assertEquals("pr.iqn.2026-11.io.example:ha.lun-3", VersionedObjects.objectName("IQN.2026-11.io.example:ha", 3));
    }
}
