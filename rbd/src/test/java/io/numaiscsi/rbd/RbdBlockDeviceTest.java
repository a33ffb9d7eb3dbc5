package io.numaiscsi.rbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RbdBlockDevice on a throw-away cluster: data round trips, UNMAP reading zeros, start errors, a cluster gone away. */
class RbdBlockDeviceTest {
    private static final long SIZE = 64L << 20;

    @TempDir
    static Path tmp;

    static CephTestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = CephTestCluster.start(tmp.resolve("ceph"), 14100);
        cluster.createImage("disk", SIZE);
    }

    @AfterAll
    static void stopCluster() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** An IoCompletion to wait on. */
    static final class Done implements IoCompletion {
        final CompletableFuture<IoStatus> status = new CompletableFuture<>();

        @Override
        public void ioComplete(IoStatus s) {
            status.complete(s);
        }

        IoStatus await() throws Exception {
            return status.get(60, TimeUnit.SECONDS);
        }
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static IoStatus write(RbdBlockDevice d, long offset, ByteBuf src, boolean fua) throws Exception {
        Done done = new Done();
        d.write(offset, src, fua, done);
        return done.await();
    }

    static byte[] read(RbdBlockDevice d, long offset, int length, ByteBuf dst) throws Exception {
        Done done = new Done();
        d.read(offset, length, dst, done);
        assertEquals(IoStatus.OK, done.await());
        byte[] b = new byte[length];
        dst.getBytes(dst.writerIndex() - length, b);
        return b;
    }

    @Test
    void sizeComesFromTheImage() throws Exception {
        try (RbdBlockDevice d = RbdBlockDevice.open(cluster.admin(), CephTestCluster.POOL, "disk", 512)) {
            assertEquals(SIZE / 512, d.blockCount());
            assertEquals(512, d.blockSize());
        }
    }

    @Test
    void writesAndReadsDirectAndHeapBuffers() throws Exception {
        try (RbdBlockDevice d = RbdBlockDevice.open(cluster.admin(), CephTestCluster.POOL, "disk", 512)) {
            byte[] a = random(64 << 10, 1);
            byte[] b = random(4096, 2);
            ByteBuf direct = Unpooled.directBuffer(a.length).writeBytes(a);
            assertEquals(IoStatus.OK, write(d, 1 << 20, direct, false));
            assertEquals(0, direct.readerIndex(), "the device must not move the source's reader index");
            assertEquals(IoStatus.OK, write(d, 3L << 20, Unpooled.wrappedBuffer(b), true));
            Done flushed = new Done();
            d.flush(flushed);
            assertEquals(IoStatus.OK, flushed.await());

            ByteBuf dst = Unpooled.directBuffer(a.length + 7).writeZero(7);
            assertArrayEquals(a, read(d, 1 << 20, a.length, dst));
            assertEquals(7 + a.length, dst.writerIndex());
            assertArrayEquals(b, read(d, 3L << 20, b.length, Unpooled.buffer(16)));
            assertArrayEquals(new byte[512], read(d, SIZE - 512, 512, Unpooled.directBuffer(512)), "never written");
            assertEquals(0, d.inFlight());
            dst.release();
            direct.release();
        }
    }

    @Test
    void unmapReadsBackZerosEvenForPartOfAnObject() throws Exception {
        try (RbdBlockDevice d = RbdBlockDevice.open(cluster.admin(), CephTestCluster.POOL, "disk", 512)) {
            long at = 8L << 20;
            byte[] data = random(256 << 10, 3);
            assertEquals(IoStatus.OK, write(d, at, Unpooled.wrappedBuffer(data), false));
            Done unmapped = new Done();
            d.unmap(at + 512, 1024, unmapped); // two blocks inside a 4 MiB object: a partial discard
            assertEquals(IoStatus.OK, unmapped.await());
            Done whole = new Done();
            d.unmap(at + (128 << 10), 128 << 10, whole);
            assertEquals(IoStatus.OK, whole.await());
            byte[] back = read(d, at, data.length, Unpooled.directBuffer(data.length));
            byte[] expected = data.clone();
            Arrays.fill(expected, 512, 1536, (byte) 0);
            Arrays.fill(expected, 128 << 10, 256 << 10, (byte) 0);
            assertArrayEquals(expected, back);

            Done zeroed = new Done();
            assertTrue(d.writeZeroes(at, 4096, zeroed));
            assertEquals(IoStatus.OK, zeroed.await());
            assertArrayEquals(new byte[4096], read(d, at, 4096, Unpooled.directBuffer(4096)));
        }
    }

    @Test
    void outOfRangeIsRefusedBeforeLibrbd() throws Exception {
        try (RbdBlockDevice d = RbdBlockDevice.open(cluster.admin(), CephTestCluster.POOL, "disk", 512)) {
            assertEquals(IoStatus.OUT_OF_RANGE, write(d, SIZE - 512, Unpooled.wrappedBuffer(new byte[1024]), false));
        }
    }

    @Test
    void missingImageIsNamed() {
        IOException e = assertThrows(
                IOException.class, () -> RbdBlockDevice.open(cluster.admin(), CephTestCluster.POOL, "nosuch", 512));
        assertTrue(e.getMessage().contains("RBD image rbd/nosuch does not exist"), e.getMessage());
        IOException p =
                assertThrows(IOException.class, () -> RbdBlockDevice.open(cluster.admin(), "nopool", "disk", 512));
        assertTrue(p.getMessage().contains("pool nopool does not exist"), p.getMessage());
    }

    @Test
    void wrongKeyIsRefused() throws Exception {
        Path keyring = tmp.resolve("wrong.keyring");
        // a well-formed key the cluster never issued for client.admin
        Files.writeString(keyring, "[client.admin]\n\tkey = AQBg5ztmAAAAABAAmFoVxRwXZV3hYFzDbtPE7Q==\n");
        CephClient wrong = new CephClient(cluster.conf(), "admin", keyring, Duration.ofSeconds(10));
        IOException e =
                assertThrows(IOException.class, () -> RbdBlockDevice.open(wrong, CephTestCluster.POOL, "disk", 512));
        assertTrue(e.getMessage().contains("refused the key"), e.getMessage());
    }

    @Test
    void unreachableClusterFailsWithinTheTimeout() throws Exception {
        Path conf = tmp.resolve("nowhere.conf");
        Files.writeString(conf, "[global]\nmon host = [v2:127.0.0.1:14098,v1:127.0.0.1:14099]\n");
        CephClient nowhere = new CephClient(conf, "admin", cluster.adminKeyring(), Duration.ofSeconds(3));
        IOException e =
                assertThrows(IOException.class, () -> RbdBlockDevice.open(nowhere, CephTestCluster.POOL, "disk", 512));
        assertTrue(e.getMessage().contains("no monitor answered within 3 s"), e.getMessage());
        IOException c = assertThrows(
                IOException.class,
                () -> RbdBlockDevice.open(
                        new CephClient(tmp.resolve("absent.conf"), "admin", null, Duration.ofSeconds(3)),
                        "rbd",
                        "disk",
                        512));
        assertTrue(c.getMessage().contains("absent.conf is missing"), c.getMessage());
    }

    /** The OSD stops answering (SIGSTOP): I/O fails NOT READY-style after the timeout, and works once it is back. */
    @Test
    void clusterGoneAwayFailsRetryablyAndRecovers() throws Exception {
        try (RbdBlockDevice d =
                RbdBlockDevice.open(cluster.admin(Duration.ofSeconds(3)), CephTestCluster.POOL, "disk", 512)) {
            byte[] data = random(4096, 4);
            assertEquals(IoStatus.OK, write(d, 0, Unpooled.wrappedBuffer(data), false));
            long osd = cluster.osdPid();
            signal("STOP", osd);
            awaitStopped(osd);
            IoStatus during;
            try {
                during = write(d, 0, Unpooled.wrappedBuffer(random(4096, 5)), true);
            } finally {
                signal("CONT", osd);
            }
            assertEquals(IoStatus.UNAVAILABLE, during);
            IoStatus after = IoStatus.UNAVAILABLE;
            for (int i = 0; i < 30 && after != IoStatus.OK; i++) {
                after = write(d, 0, Unpooled.wrappedBuffer(data), true);
            }
            assertEquals(IoStatus.OK, after);
            assertArrayEquals(data, read(d, 0, 4096, Unpooled.directBuffer(4096)));
            assertFalse(d.inFlight() > 0);
        }
    }

    /** SIGSTOP reaches each thread when it next runs: waits until every thread of {@code pid} is stopped ('T'). */
    private static void awaitStopped(long pid) throws Exception {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        for (int i = 0; i < 500; i++) {
            boolean all = true;
            try (var threads = Files.list(tasks)) {
                for (Path t : threads.toList()) {
                    String stat = Files.readString(t.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    all &= state == 'T' || state == 't';
                }
            }
            if (all) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("ceph-osd " + pid + " did not stop within 5 s of SIGSTOP");
    }

    private static void signal(String sig, long pid) throws Exception {
        assertEquals(
                0,
                new ProcessBuilder("kill", "-" + sig, Long.toString(pid))
                        .start()
                        .waitFor());
    }
}
