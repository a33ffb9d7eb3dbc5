package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The background write-back flusher seen from outside: two sessions stream writes into a write-back cache of 8 MiB
 * (dirty-ratio 20%, dirty-expire 1s) while {@code /metrics} is sampled; every sample's {@code cache_dirty_bytes} stays
 * within the bound, and once the stream stops the dirty bytes drain to 0 and the backing file holds every
 * acknowledged write, with no SYNCHRONIZE CACHE and the sessions still open (the last logout would flush). Then more
 * writes, a SYNCHRONIZE CACHE and kill -9: everything acknowledged reads back after the restart.
 */
@Tag("it")
class BackgroundWriteBackTest {

    static final long LUN_BYTES = 64L << 20;
    static final long CAPACITY = 2 * (4L << 20); // 2 pretend nodes x size-per-node
    static final int CACHE_BLOCK = 64 << 10;
    static final double RATIO = 0.2;
    static final long EXPIRE_MS = 1000;
    static final int WRITERS = 2;
    static final long STREAM_MS = 6000;
    /** Each writer owns every WRITERS-th slot of SLOT_BYTES; a write is a random run of sectors inside one slot. */
    static final int SLOT_BYTES = 128 << 10;

    static final int SLOTS = (int) (LUN_BYTES / SLOT_BYTES);

    /**
     * The cache's limits as it computes them: a batch starts above soft = ratio x capacity; a write installs a block
     * only while dirty + one block <= hard = min(2 soft, (capacity + soft) / 2). Each writer has one command in flight
     * and installs one block at a time, so dirty bytes never exceed hard + (WRITERS - 1) x block.
     */
    static final long SOFT = (long) (CAPACITY * RATIO);

    static final long HARD = Math.max(CACHE_BLOCK, Math.min(2 * SOFT, (CAPACITY + SOFT) / 2));
    static final long BOUND = HARD + (WRITERS - 1) * (long) CACHE_BLOCK;

    private final byte[][] model = new byte[SLOTS][];

    @Test
    void dirtyBytesStayBoundedDrainWithoutFlushAndSurviveKillAfterSync() throws Exception {
        Assumptions.assumeTrue(
                System.getProperty("it.external.url", "").isBlank(), "kills and restarts its own daemon");
        String name = "BackgroundWriteBackTest";
        int metricsPort = DaemonProcess.freeLoopbackPort();
        DaemonProcess.Setup setup = DaemonProcess.Setup.fileLun(LUN_BYTES)
                .section("cache: {mode: numa, size-per-node: 4M, block-size: 64K, partitions-per-node: 4, "
                        + "write-policy: write-back, dirty-ratio: 20%, dirty-expire: " + EXPIRE_MS + "ms}")
                .section("numa: {pretend-nodes: 2}")
                .daemonArgs("--metrics", "127.0.0.1:" + metricsPort);
        for (int s = 0; s < SLOTS; s++) {
            model[s] = new byte[SLOT_BYTES];
        }
        try (RestartableDaemon daemon = RestartableDaemon.start(name, setup)) {
            Path lunFile = daemon.dataDir().resolve("lun0.img");
            List<RawBlockIo> sessions = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                sessions.add(RawBlockIo.login(daemon.target()));
            }

            // 1. the stream, sampled
            long[] writes = new long[WRITERS];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long end = System.nanoTime() + STREAM_MS * 1_000_000;
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int id = w;
                Thread t = new Thread(
                        () -> {
                            Random r = new Random(31 + id);
                            try {
                                while (System.nanoTime() < end) {
                                    writeOne(sessions.get(id), r, id);
                                    writes[id]++;
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "writer-" + w);
                writers.add(t);
                t.start();
            }
            double maxDirty = 0;
            int samples = 0;
            List<String> over = new ArrayList<>();
            while (System.nanoTime() < end) {
                double dirty = PromText.fetch(metricsPort).sum("cache_dirty_bytes");
                samples++;
                maxDirty = Math.max(maxDirty, dirty);
                if (dirty > BOUND) {
                    over.add(Long.toString((long) dirty));
                }
                Thread.sleep(20);
            }
            for (Thread t : writers) {
                t.join(120_000);
            }
            if (failure.get() != null) {
                throw new AssertionError("a writer failed\n" + daemon.logTail(), failure.get());
            }
            PromText afterStream = PromText.fetch(metricsPort);
            assertTrue(
                    over.isEmpty(),
                    over.size() + " of " + samples + " samples of cache_dirty_bytes above the bound " + BOUND + ": "
                            + over.subList(0, Math.min(10, over.size())));

            // 2. no SYNCHRONIZE CACHE, sessions open: the flusher alone drains the dirty bytes
            long t0 = System.nanoTime();
            double dirty = afterStream.sum("cache_dirty_bytes");
            while (dirty > 0 && System.nanoTime() - t0 < 10 * EXPIRE_MS * 1_000_000) {
                Thread.sleep(50);
                dirty = PromText.fetch(metricsPort).sum("cache_dirty_bytes");
            }
            long drainMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(
                    0.0,
                    dirty,
                    "cache_dirty_bytes " + (10 * EXPIRE_MS) + " ms after the stream stopped\n" + daemon.logTail());
            List<Integer> notInFile = slotsDiffering(lunFile);
            assertTrue(
                    notInFile.isEmpty(),
                    notInFile.size() + " slots of acknowledged writes not in the backing file "
                            + "after the drain (no flush was sent), first "
                            + (notInFile.isEmpty() ? "" : notInFile.get(0)));
            PromText drained = PromText.fetch(metricsPort);
            double batches = drained.sum("cache_writeback_batches_total");
            double wroteBack = drained.sum("cache_writeback_bytes_total");
            assertTrue(batches > 0 && wroteBack > 0, "batches " + batches + ", bytes " + wroteBack);

            // 3. more writes, SYNCHRONIZE CACHE, kill -9
            Random r = new Random(99);
            for (int i = 0; i < 300; i++) {
                writeOne(sessions.get(i % WRITERS), r, i % WRITERS);
            }
            sessions.get(0).synchronizeCache();
            int exit = daemon.killAndRestart();
            for (RawBlockIo s : sessions) {
                s.close();
            }
            assertEquals(137, exit, "exit code of the SIGKILLed daemon");
            int bad = 0;
            try (RawBlockIo again = RawBlockIo.login(daemon.target())) {
                for (int s = 0; s < SLOTS; s++) {
                    byte[] got = again.read((long) s * SLOT_BYTES / RawBlockIo.BLOCK, SLOT_BYTES / RawBlockIo.BLOCK);
                    if (!Arrays.equals(got, model[s])) {
                        bad++;
                    }
                }
            }
            if (bad > 0) {
                fail(bad + " of " + SLOTS + " slots differ from what was acknowledged before SYNCHRONIZE CACHE after "
                        + "kill -9\n" + daemon.logTail());
            }
            report(
                    name,
                    String.format(
                            "%d writes by %d sessions in %d ms; %d samples of cache_dirty_bytes, max %d "
                                    + "(soft %d, hard %d, bound %d); drained to 0 in %d ms with no SYNCHRONIZE CACHE "
                                    + "(dirty-expire %d ms), backing file matched; %d batches, %d bytes written back; "
                                    + "kill -9 after SYNCHRONIZE CACHE: all %d slots read back exactly",
                            Arrays.stream(writes).sum(),
                            WRITERS,
                            STREAM_MS,
                            samples,
                            (long) maxDirty,
                            SOFT,
                            HARD,
                            BOUND,
                            drainMs,
                            EXPIRE_MS,
                            (long) batches,
                            (long) wroteBack,
                            SLOTS));
            daemon.assertAlive();
        }
    }

    /** A WRITE of 1..128 random sectors inside a random slot of writer {@code id}, recorded in the model. */
    private void writeOne(RawBlockIo io, Random r, int id) throws IOException {
        int slot = r.nextInt(SLOTS / WRITERS) * WRITERS + id;
        int sectorsPerSlot = SLOT_BYTES / RawBlockIo.BLOCK;
        int first = r.nextInt(sectorsPerSlot);
        int n = 1 + r.nextInt(Math.min(128, sectorsPerSlot - first));
        byte[] data = new byte[n * RawBlockIo.BLOCK];
        r.nextBytes(data);
        io.write((long) slot * sectorsPerSlot + first, data, false);
        System.arraycopy(data, 0, model[slot], first * RawBlockIo.BLOCK, data.length);
    }

    /** Slots whose bytes in the backing file (read on the host) are not the model's. */
    private List<Integer> slotsDiffering(Path lunFile) throws IOException {
        List<Integer> out = new ArrayList<>();
        try (RandomAccessFile f = new RandomAccessFile(lunFile.toFile(), "r")) {
            byte[] b = new byte[SLOT_BYTES];
            for (int s = 0; s < SLOTS; s++) {
                Arrays.fill(b, (byte) 0);
                f.seek((long) s * SLOT_BYTES);
                f.read(b); // a short read past the end of a sparse file leaves zeros
                if (!Arrays.equals(b, model[s])) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    private static void report(String name, String line) throws IOException {
        System.out.println("[" + name + "] " + line);
        Files.writeString(
                DaemonProcess.logDir().resolve("background-write-back.txt"),
                name + ": " + line + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
