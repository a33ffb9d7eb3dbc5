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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Write-back durability under {@code kill -9}: what the daemon acknowledged before a SYNCHRONIZE CACHE
 * response, every FUA write, and everything written before the target's last logout (the daemon
 * flushes then) must read back exactly after the daemon is SIGKILLed and started again on the same
 * data dir, and everything acknowledged before a SIGTERM under load. Writes after the last flush may be lost (kill
 * -9), but each 512-byte sector must then hold either the old or the new data. Writes go over a raw session ({@link RawBlockIo}) to scattered,
 * non-overlapping extents of 1-128 sectors, many of them straddling a 64 KiB cache block boundary.
 */
@Tag("it")
class WriteBackDurabilityTest {

    static final long LUN_BYTES = 256L << 20;
    /** One extent per slot of 256 sectors: it starts in the slot's first half, so extents never overlap. */
    static final int SLOT_SECTORS = 256;

    static final Duration FLUSH_AFTER_LOGOUT = Duration.ofSeconds(30);
    static final long SEED = 7143;

    /** One WRITE: where, what, and whether the test may lose it. */
    record Extent(long lba, byte[] data, boolean fua) {
        int blocks() {
            return data.length / RawBlockIo.BLOCK;
        }

        @Override
        public String toString() {
            return "lba " + lba + " x" + blocks() + (fua ? " FUA" : "");
        }
    }

    private final Random random = new Random(SEED);
    private final List<Integer> freeSlots = new ArrayList<>();

    @BeforeEach
    void shuffleSlots() {
        Assumptions.assumeTrue(
                System.getProperty("it.external.url", "").isBlank(), "kills and restarts its own daemon");
        freeSlots.clear();
        for (int s = 0; s < LUN_BYTES / RawBlockIo.BLOCK / SLOT_SECTORS; s++) {
            freeSlots.add(s);
        }
        Collections.shuffle(freeSlots, random);
    }

    static DaemonProcess.Setup setup() {
        return DaemonProcess.Setup.fileLun(LUN_BYTES)
                .section("cache: {mode: numa, size-per-node: 64M, block-size: 64K, write-policy: write-back}")
                .section("numa: {pretend-nodes: 2}");
    }

    @Test
    void killAfterSynchronizeCacheLosesNothingAcknowledged() throws Exception {
        String name = "WriteBackDurabilityTest-sync";
        try (RestartableDaemon daemon = RestartableDaemon.start(name, setup())) {
            Path lunFile = daemon.dataDir().resolve("lun0.img");
            List<Extent> synced = extents(200, 4); // every 4th with FUA
            List<Extent> fuaAfterSync = extents(12, 1); // all FUA
            List<Extent> unsynced = extents(100, 0); // plain, after the last FUA: may be lost
            RawBlockIo io = RawBlockIo.login(daemon.target());
            write(io, synced);
            io.synchronizeCache();
            List<Extent> notInFile = differing(lunFile, synced);
            assertTrue(
                    notInFile.isEmpty(),
                    notInFile.size() + " extents acknowledged before the SYNCHRONIZE CACHE "
                            + "response are not in the backing file after it, first "
                            + (notInFile.isEmpty() ? "" : notInFile.get(0))
                            + "\n" + daemon.logTail());
            write(io, fuaAfterSync);
            write(io, unsynced);
            // the session stays open: closing it would make the daemon flush (last session gone)
            int exit = daemon.killAndRestart();
            io.close();
            assertEquals(137, exit, "exit code of the SIGKILLed daemon");

            try (RawBlockIo again = RawBlockIo.login(daemon.target())) {
                assertReadBack(again, synced, "acknowledged before SYNCHRONIZE CACHE", daemon);
                assertReadBack(again, fuaAfterSync, "FUA", daemon);
                int lost = oldOrNew(again, unsynced, daemon);
                report(
                        name,
                        "SIGKILL after SYNCHRONIZE CACHE: " + synced.size() + " synced extents ("
                                + synced.stream().filter(Extent::fua).count() + " FUA) and " + fuaAfterSync.size()
                                + " later FUA extents read back exactly; of " + unsynced.size()
                                + " unsynced extents written after the last FUA, " + lost + " were lost (allowed)");
            }
            daemon.assertAlive();
        }
    }

    @Test
    void lastLogoutFlushesTheCache() throws Exception {
        String name = "WriteBackDurabilityTest-logout";
        try (RestartableDaemon daemon = RestartableDaemon.start(name, setup())) {
            Path lunFile = daemon.dataDir().resolve("lun0.img");
            List<Extent> written = extents(200, 0);
            try (RawBlockIo io = RawBlockIo.login(daemon.target())) {
                write(io, written);
                io.logout();
            }
            long t0 = System.nanoTime();
            List<Extent> missing = differing(lunFile, written);
            while (!missing.isEmpty() && System.nanoTime() - t0 < FLUSH_AFTER_LOGOUT.toNanos()) {
                Thread.sleep(100);
                missing = differing(lunFile, written);
            }
            long flushMillis = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(
                    missing.isEmpty(),
                    missing.size() + " of " + written.size() + " extents still not in the "
                            + "backing file " + FLUSH_AFTER_LOGOUT.toSeconds()
                            + " s after the last session's logout, first "
                            + (missing.isEmpty() ? "" : missing.get(0)) + "\n" + daemon.logTail());
            assertEquals(137, daemon.killAndRestart(), "exit code of the SIGKILLed daemon");
            try (RawBlockIo again = RawBlockIo.login(daemon.target())) {
                assertReadBack(again, written, "written before the last logout", daemon);
            }
            report(
                    name,
                    "SIGKILL after the last logout: all " + written.size() + " extents were in the backing file "
                            + flushMillis + " ms after the Logout Response and read back exactly after the restart");
            daemon.assertAlive();
        }
    }

    /**
     * SIGTERM while four sessions keep the write-back cache full of dirty blocks, each write covering parts of two
     * blocks (so blocks are read in before they are written, and writes wait for a free block when the stop comes): the daemon writes what it acknowledged to the store before it exits 0, and logs no error on
     * the way (the soak found a stop that lost its completion thread this way and waited for ever on its flush).
     */
    @Test
    void sigtermUnderLoadWritesEverythingAcknowledgedAndExitsCleanly() throws Exception {
        String name = "WriteBackDurabilityTest-sigterm";
        try (RestartableDaemon daemon = RestartableDaemon.start(name, setup())) {
            List<Extent> written = extents(200, 0);
            List<Integer> loadSlots = new ArrayList<>(freeSlots.subList(0, 1024));
            RawBlockIo io = RawBlockIo.login(daemon.target());
            write(io, written);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong loadWrites = new AtomicLong();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                List<Integer> mine = loadSlots.subList(w * 256, (w + 1) * 256);
                Thread t = new Thread(
                        () -> {
                            byte[] data = new byte[(SLOT_SECTORS - 56) * RawBlockIo.BLOCK]; // parts of two cache blocks
                            new Random(mine.get(0)).nextBytes(data);
                            try (RawBlockIo load = RawBlockIo.login(daemon.target())) {
                                for (int i = 0; !stop.get(); i++) {
                                    load.write((long) mine.get(i % mine.size()) * SLOT_SECTORS + 3, data, false);
                                    loadWrites.incrementAndGet();
                                }
                            } catch (IOException | RuntimeException | AssertionError e) {
                                // the stop closes the session: the writer ends there
                            }
                        },
                        "load-" + w);
                t.start();
                writers.add(t);
            }
            long t0 = System.nanoTime();
            while (loadWrites.get() < 2000
                    && System.nanoTime() - t0 < Duration.ofSeconds(60).toNanos()) {
                Thread.sleep(50);
            }
            long logBefore = Files.size(daemon.log());
            int exit = daemon.restart();
            stop.set(true);
            for (Thread t : writers) {
                t.join(30_000);
            }
            io.close();
            byte[] log = Files.readAllBytes(daemon.log());
            String stopLog = new String(log, (int) logBefore, log.length - (int) logBefore, StandardCharsets.UTF_8);
            assertEquals(0, exit, "exit code of the SIGTERMed daemon\n" + stopLog);
            List<String> errors =
                    stopLog.lines().filter(DaemonLogLines::isError).toList();
            assertTrue(errors.isEmpty(), "errors logged while stopping: " + errors + "\n" + stopLog);
            try (RawBlockIo again = RawBlockIo.login(daemon.target())) {
                assertReadBack(again, written, "acknowledged before the SIGTERM", daemon);
            }
            report(
                    name,
                    "SIGTERM with " + loadWrites.get() + " 100 KiB load writes done by four sessions and more in "
                            + "flight: exit 0, no error logged, all " + written.size()
                            + " acknowledged extents read back");
            daemon.assertAlive();
        }
    }

    /** {@code n} extents on fresh slots; every {@code fuaEvery}-th has FUA (0: none, 1: all). */
    private List<Extent> extents(int n, int fuaEvery) {
        List<Extent> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int slot = freeSlots.remove(freeSlots.size() - 1);
            long lba = (long) slot * SLOT_SECTORS + random.nextInt(SLOT_SECTORS / 2);
            int blocks = 1 + random.nextInt(SLOT_SECTORS / 2);
            byte[] data = new byte[blocks * RawBlockIo.BLOCK];
            random.nextBytes(data);
            out.add(new Extent(lba, data, fuaEvery > 0 && i % fuaEvery == fuaEvery - 1));
        }
        return out;
    }

    private static void write(RawBlockIo io, List<Extent> extents) throws IOException {
        for (Extent e : extents) {
            io.write(e.lba(), e.data(), e.fua());
        }
    }

    /** The extents whose bytes the backing file does not hold (read with plain file I/O on the host). */
    private static List<Extent> differing(Path lunFile, List<Extent> extents) throws IOException {
        List<Extent> out = new ArrayList<>();
        try (RandomAccessFile f = new RandomAccessFile(lunFile.toFile(), "r")) {
            for (Extent e : extents) {
                byte[] b = new byte[e.data().length];
                f.seek(e.lba() * RawBlockIo.BLOCK);
                int n = f.read(b);
                if (n != b.length || !Arrays.equals(b, e.data())) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    private static void assertReadBack(RawBlockIo io, List<Extent> extents, String what, RestartableDaemon daemon)
            throws IOException {
        List<String> bad = new ArrayList<>();
        for (Extent e : extents) {
            byte[] got = io.read(e.lba(), e.blocks());
            if (!Arrays.equals(got, e.data())) {
                bad.add(e + ": " + sectorsDiffering(got, e.data(), e.data()));
            }
        }
        if (!bad.isEmpty()) {
            fail(bad.size() + " of " + extents.size() + " extents " + what + " did not survive kill -9, first: "
                    + bad.subList(0, Math.min(5, bad.size())) + "\n" + daemon.logTail());
        }
    }

    /**
     * Each sector of an extent that may be lost must hold the new data or the old (zeros: the LUN file
     * starts sparse and no two extents overlap); returns how many extents were not fully there.
     */
    private static int oldOrNew(RawBlockIo io, List<Extent> extents, RestartableDaemon daemon) throws IOException {
        int lost = 0;
        for (Extent e : extents) {
            byte[] got = io.read(e.lba(), e.blocks());
            byte[] zeros = new byte[got.length];
            String garbage = sectorsDiffering(got, e.data(), zeros);
            if (!garbage.isEmpty()) {
                fail("unsynced extent " + e + " holds sectors that are neither the old nor the new data: " + garbage
                        + "\n" + daemon.logTail());
            }
            if (!Arrays.equals(got, e.data())) {
                lost++;
            }
        }
        return lost;
    }

    /** The sector numbers (within the extent) that match neither {@code a} nor {@code b}, or "". */
    private static String sectorsDiffering(byte[] got, byte[] a, byte[] b) {
        StringBuilder sb = new StringBuilder();
        int block = RawBlockIo.BLOCK;
        for (int s = 0; s < got.length / block; s++) {
            int from = s * block;
            boolean isA = Arrays.equals(got, from, from + block, a, from, from + block);
            boolean isB = Arrays.equals(got, from, from + block, b, from, from + block);
            if (!isA && !isB) {
                sb.append(sb.length() == 0 ? "sectors " : ",").append(s);
            }
        }
        return sb.toString();
    }

    private static void report(String name, String line) throws IOException {
        System.out.println("[" + name + "] " + line);
        Files.writeString(
                DaemonProcess.logDir().resolve("write-back-durability.txt"),
                name + ": " + line + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
