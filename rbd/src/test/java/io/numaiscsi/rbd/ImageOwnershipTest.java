package io.numaiscsi.rbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two gateways' handles on one image with the exclusive lock: one writes, the other is refused until it takes over,
 * and the one taken over from is fenced at the OSDs (its next write refused even before it noticed), recovers as a
 * new client and serves again as standby.
 */
class ImageOwnershipTest {
    private static final long SIZE = 16L << 20;
    private static final Duration DRAIN = Duration.ofSeconds(20);

    @TempDir
    static Path tmp;

    static CephTestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = CephTestCluster.start(tmp.resolve("ceph"), 14250);
        cluster.createImage("shared", SIZE);
        cluster.rbd("create", "--size", "16M", "--image-feature", "layering", CephTestCluster.POOL + "/nolock");
    }

    @AfterAll
    static void stopCluster() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static RbdBlockDevice open() throws IOException {
        return RbdBlockDevice.open(cluster.admin(), CephTestCluster.POOL, "shared", 512, true);
    }

    private static IoStatus write(RbdBlockDevice d, byte fill) throws Exception {
        byte[] b = new byte[4096];
        Arrays.fill(b, fill);
        return RbdBlockDeviceTest.write(d, 0, Unpooled.wrappedBuffer(b), false);
    }

    private static void awaitState(ImageOwnership o, ImageOwnership.State want) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (o.state() != want && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(want, o.state());
    }

    private static int blocklistEntries() throws IOException {
        return (int) cluster.ceph("osd", "blocklist", "ls")
                .lines()
                .filter(l -> l.contains(":"))
                .count();
    }

    @Test
    void theLockMovesOnlyByTakeOverAndFencesTheFormerHolder() throws Exception {
        try (RbdBlockDevice a = open();
                RbdBlockDevice b = open();
                ImageOwnership ownerA = ImageOwnership.start(a, 1, true, DRAIN, ImageOwnership.ClientRecorder.NONE);
                ImageOwnership ownerB = ImageOwnership.start(b, 2, true, DRAIN, ImageOwnership.ClientRecorder.NONE)) {
            List<ImageOwnership.State> seenByA = new CopyOnWriteArrayList<>();
            ownerA.events(new ImageOwnership.Events() {
                @Override
                public void stateChanged(ImageOwnership.State now) {
                    seenByA.add(now);
                }

                @Override
                public void lost(Runnable drained) {
                    drained.run();
                }
            });
            assertEquals(ImageOwnership.State.OWNER, ownerA.state(), "the first gateway takes a free lock");
            assertEquals(ImageOwnership.State.STANDBY, ownerB.state(), "a held lock is never broken at start");
            assertEquals(1, ownerB.ownerGroup(), "the standby knows the holder's group");
            assertEquals(IoStatus.OK, write(a, (byte) 'A'));
            assertEquals(IoStatus.UNAVAILABLE, write(b, (byte) 'b'), "the standby refuses writes before librbd");

            int fencedBefore = blocklistEntries();
            ownerB.takeOver().get(60, TimeUnit.SECONDS);
            assertEquals(ImageOwnership.State.OWNER, ownerB.state());
            assertEquals(fencedBefore + 1, blocklistEntries(), "the former holder's client is blocklisted");
            assertEquals(IoStatus.OK, write(b, (byte) 'B'));
            // A has not noticed yet: its write still goes out, and the OSDs refuse it
            assertEquals(IoStatus.UNAVAILABLE, write(a, (byte) 'X'), "the fenced gateway's stale write");
            awaitState(ownerA, ImageOwnership.State.STANDBY);
            assertTrue(seenByA.contains(ImageOwnership.State.RECOVERING), "A went through recovery: " + seenByA);
            byte[] back = RbdBlockDeviceTest.read(b, 0, 4096, Unpooled.directBuffer(4096));
            byte[] expected = new byte[4096];
            Arrays.fill(expected, (byte) 'B');
            assertArrayEquals(expected, back, "the image holds the new holder's data, not the stale write");
            assertEquals(IoStatus.UNAVAILABLE, write(a, (byte) 'Y'), "recovered as standby: still no writes");
            assertEquals(2, waitForOwnerGroup(ownerA, 2));

            ownerA.takeOver().get(60, TimeUnit.SECONDS);
            assertEquals(IoStatus.OK, write(a, (byte) 'A'));
            awaitState(ownerB, ImageOwnership.State.STANDBY);

            int fencedNow = blocklistEntries();
            ownerA.release().get(60, TimeUnit.SECONDS);
            assertEquals(ImageOwnership.State.STANDBY, ownerA.state());
            ownerB.takeOver().get(60, TimeUnit.SECONDS);
            assertEquals(fencedNow, blocklistEntries(), "a released lock is taken without fencing anyone");
            assertEquals(IoStatus.OK, write(b, (byte) 'B'));
        }
    }

    private static int waitForOwnerGroup(ImageOwnership o, int want) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (o.ownerGroup() != want && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        return o.ownerGroup();
    }

    @Test
    void anImageWithoutExclusiveLockIsRefusedForAPair() {
        IOException e = assertThrows(
                IOException.class,
                () -> RbdBlockDevice.open(cluster.admin(), CephTestCluster.POOL, "nolock", 512, true));
        assertTrue(e.getMessage().contains("rbd feature enable rbd/nolock exclusive-lock"), e.getMessage());
    }
}
