package io.numaiscsi.rbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Versioned reads and compare-and-swap replaces of RADOS objects, with two clients racing. */
class RadosObjectTest {
    @TempDir
    static Path tmp;

    static CephTestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = CephTestCluster.start(tmp.resolve("ceph"), 14150);
    }

    @AfterAll
    static void stopCluster() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void createReadReplaceWithVersions() throws Exception {
        try (RadosConnection c = RadosConnection.connect(cluster.admin());
                RadosObject objects = RadosObject.open(c, CephTestCluster.POOL)) {
            RadosObject.Versioned none = objects.read("state-a");
            assertEquals(RadosObject.ABSENT, none.version());
            assertEquals(0, none.data().length);
            assertTrue(objects.replace("state-a", text("one"), RadosObject.ABSENT));
            assertFalse(objects.replace("state-a", text("again"), RadosObject.ABSENT), "exists: create must lose");
            RadosObject.Versioned one = objects.read("state-a");
            assertArrayEquals(text("one"), one.data());
            assertNotEquals(RadosObject.ABSENT, one.version());
            assertTrue(objects.replace("state-a", text("two"), one.version()));
            assertFalse(objects.replace("state-a", text("stale"), one.version()), "a stale version must lose");
            RadosObject.Versioned two = objects.read("state-a");
            assertArrayEquals(text("two"), two.data());
            assertTrue(two.version() > one.version());
        }
    }

    /** Two connections (two gateways) read the same version and both try to replace: exactly one wins, each round. */
    @Test
    void racingWritersOnOneVersionCannotBothWin() throws Exception {
        try (RadosConnection c1 = RadosConnection.connect(cluster.admin());
                RadosConnection c2 = RadosConnection.connect(cluster.admin());
                RadosObject g1 = RadosObject.open(c1, CephTestCluster.POOL);
                RadosObject g2 = RadosObject.open(c2, CephTestCluster.POOL)) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                for (int round = 0; round < 50; round++) {
                    String oid = "race";
                    long version = g1.read(oid).version();
                    assertEquals(version, g2.read(oid).version());
                    CyclicBarrier go = new CyclicBarrier(2);
                    List<Future<Boolean>> wins = new ArrayList<>();
                    for (RadosObject g : List.of(g1, g2)) {
                        String me = g == g1 ? "g1" : "g2";
                        Callable<Boolean> attempt = () -> {
                            go.await();
                            return g.replace(oid, text(me + " round " + version), version);
                        };
                        wins.add(pool.submit(attempt));
                    }
                    boolean w1 = wins.get(0).get();
                    boolean w2 = wins.get(1).get();
                    assertTrue(w1 ^ w2, "round " + round + ": exactly one writer wins (g1 " + w1 + ", g2 " + w2 + ")");
                    String winner = w1 ? "g1" : "g2";
                    assertArrayEquals(
                            text(winner + " round " + version), g2.read(oid).data());
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void writeReturnsTheVersionAReadGives() throws Exception {
        try (RadosConnection c = RadosConnection.connect(cluster.admin());
                RadosObject objects = RadosObject.open(c, CephTestCluster.POOL)) {
            long v1 = objects.write("state-w", text("one"), RadosObject.ABSENT);
            assertEquals(objects.read("state-w").version(), v1);
            long v2 = objects.write("state-w", text("two"), v1);
            assertTrue(v2 > v1);
            assertEquals(objects.read("state-w").version(), v2);
            assertEquals(RadosObject.LOST, objects.write("state-w", text("stale"), v1));
        }
    }

    @Test
    void aNotifyReturnsAfterEveryWatcherSawIt() throws Exception {
        try (RadosConnection a = RadosConnection.connect(cluster.admin());
                RadosConnection b = RadosConnection.connect(cluster.admin());
                RadosObject objectsA = RadosObject.open(a, CephTestCluster.POOL);
                RadosObject objectsB = RadosObject.open(b, CephTestCluster.POOL)) {
            objectsA.replace("watched", new byte[0], RadosObject.ABSENT);
            List<String> seen = Collections.synchronizedList(new ArrayList<>());
            long cookie = objectsB.watch("watched", new RadosObject.Watcher() {
                @Override
                public void notified(byte[] payload, long notifierId, Runnable acknowledge) {
                    seen.add(new String(payload, StandardCharsets.UTF_8));
                    acknowledge.run();
                }

                @Override
                public void broken(int errno) {
                    seen.add("broken " + errno);
                }
            });
            assertTrue(objectsB.watchCheck(cookie) >= 0, "a new watch is confirmed");
            for (int i = 1; i <= 5; i++) {
                assertTrue(
                        objectsA.notify("watched", text("v" + i), Duration.ofSeconds(10))
                                .complete(),
                        "acked");
                assertEquals("v" + i, seen.get(seen.size() - 1), "seen before the notify returned");
            }
            assertEquals(5, seen.size());
            objectsB.unwatch(cookie);
            assertTrue(
                    objectsA.notify("watched", text("none"), Duration.ofSeconds(10))
                            .complete(),
                    "no watcher: nothing to wait for");
            assertEquals(5, seen.size());
        }
    }

    /**
     * A watcher that does not acknowledge is named in the notify's outcome by its client's global id; blocklisting that
     * client's address makes the cluster refuse it, and breaks its watch.
     */
    @Test
    void aWatcherThatDoesNotAnswerIsNamedAndCanBeFenced() throws Exception {
        try (RadosConnection a = RadosConnection.connect(cluster.admin());
                RadosConnection b = RadosConnection.connect(cluster.admin());
                RadosObject objectsA = RadosObject.open(a, CephTestCluster.POOL);
                RadosObject objectsB = RadosObject.open(b, CephTestCluster.POOL)) {
            objectsA.replace("silent", new byte[0], RadosObject.ABSENT);
            List<Long> notifiers = Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<Integer> broken = new CompletableFuture<>();
            long cookie = objectsB.watch("silent", new RadosObject.Watcher() {
                @Override
                public void notified(byte[] payload, long notifierId, Runnable acknowledge) {
                    notifiers.add(notifierId); // and never acknowledges
                }

                @Override
                public void broken(int errno) {
                    broken.complete(errno);
                }
            });
            RadosObject.NotifyOutcome outcome = objectsA.notify("silent", text("x"), Duration.ofSeconds(2));
            assertFalse(outcome.complete());
            assertEquals(List.of(b.instanceId()), outcome.missed(), "the silent watcher's global id");
            assertEquals(List.of(a.instanceId()), notifiers, "the watcher is told who notified");

            objectsA.setAttribute("silent", "who", text(b.address()));
            assertArrayEquals(text(b.address()), objectsA.attribute("silent", "who"));
            assertEquals(null, objectsA.attribute("silent", "nobody"));

            a.blocklist(b.address(), Duration.ofMinutes(5));
            IOException refused = Assertions.assertThrows(IOException.class, () -> objectsB.read("silent"));
            assertTrue(refused.getMessage().contains("ESHUTDOWN"), refused.getMessage());
            assertTrue(
                    objectsB.watchCheck(cookie) < 0 || broken.get(30, TimeUnit.SECONDS) < 0,
                    "the fenced client's watch breaks");
            RadosObject.NotifyOutcome after = objectsA.notify("silent", text("y"), Duration.ofSeconds(10));
            assertTrue(after.complete() || after.missed().contains(b.instanceId()), "after: " + after);
        }
    }
}
