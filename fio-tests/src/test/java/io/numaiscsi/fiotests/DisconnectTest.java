package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Initiators that vanish in the middle of a command: after a WRITE's command PDU (the target waits with an R2T),
 * halfway through the solicited Data-Out, and after a few Data-In PDUs of a large READ (the target still has data to
 * send into a closed socket). Each case runs {@link #ROUNDS} times; afterwards the daemon runs, a fresh session writes
 * and reads back, and its file descriptors and threads are back to where they were. The LUN sits behind the NUMA
 * cache, so the large READ leaves from pinned cache blocks (zero-copy): no block may stay pinned at the end.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DisconnectTest {
    static final Duration ANSWER = Duration.ofSeconds(10);
    static final int ROUNDS = 20;
    static final int WRITE_BYTES = 256 * 1024;
    static final int READ_BLOCKS = 8192; // 4 MiB in Data-In PDUs of at most 8 KiB
    static final long LUN_BYTES = 64L << 20;

    private DaemonProcess daemon;
    private RawIo.ProcStats baseline;
    private int metricsPort;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        metricsPort = DaemonProcess.freeLoopbackPort();
        daemon = DaemonProcess.start(
                "DisconnectTest",
                DaemonProcess.Setup.fileLun(LUN_BYTES)
                        .section("cache: {mode: numa, size-per-node: 32M, block-size: 64K}")
                        .section("numa: {pretend-nodes: 2}")
                        .daemonArgs("--metrics", "127.0.0.1:" + metricsPort));
        // warm up: the first sessions start Netty's and the store's threads
        for (int i = 0; i < 4; i++) {
            writeAndReadBack(i);
        }
        baseline = settledStats();
    }

    @AfterEach
    void daemonStillServes() throws Exception {
        TestConnection.assertFreshSessionWorks(daemon);
        writeAndReadBack(7);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            RawIo.ProcStats after = settledStats();
            double pinned = PromText.settled(metricsPort, "cache_pinned_blocks", 0, Duration.ofSeconds(10));
            double inPlace = PromText.fetch(metricsPort).sum("cache_in_place_bytes_total");
            String tail = daemon.logTail();
            int exit = daemon.stop();
            System.out.println("DisconnectTest: " + 4 * ROUNDS + " disconnects; before " + baseline + ", after " + after
                    + "; " + (long) inPlace + " bytes sent from pinned cache blocks, " + (long) pinned
                    + " still pinned");
            assertTrue(inPlace > 0, "the large READs did not leave from the cache blocks\n" + tail);
            assertEquals(0, pinned, "cache blocks stayed pinned after the initiators vanished\n" + tail);
            assertTrue(
                    after.fds() <= baseline.fds() + 2,
                    "file descriptors leaked: before " + baseline + ", after " + after + "\n" + tail);
            assertTrue(
                    after.threads() <= baseline.threads() + 2,
                    "threads leaked: before " + baseline + ", after " + after + "\n" + tail);
            assertEquals(0, exit, "clean shutdown after the disconnects\n" + daemon.logTail());
        }
    }

    /** /proc figures once connections closed by the other side have been reaped (up to 10 s). */
    private RawIo.ProcStats settledStats() throws Exception {
        RawIo.ProcStats s = RawIo.ProcStats.of(daemon.pid());
        for (int i = 0; i < 20 && baseline != null && s.fds() > baseline.fds(); i++) {
            Thread.sleep(500);
            s = RawIo.ProcStats.of(daemon.pid());
        }
        return s;
    }

    private void writeAndReadBack(int seed) throws IOException {
        byte[] data = ScsiCdb.pattern(WRITE_BYTES, seed);
        try (TestConnection c = session(false, true)) {
            ScsiResult w = RawIo.write(c, 0, 2048, data, false, ANSWER);
            assertEquals(ScsiResult.GOOD, w.status(), "WRITE " + w + "\n" + daemon.logTail());
            ScsiResult r = RawIo.read(c, 0, 2048, WRITE_BYTES / RawIo.BLOCK, ANSWER);
            assertEquals(ScsiResult.GOOD, r.status(), "READ " + r);
            assertArrayEquals(data, r.data(), "data read back");
            assertTrue(RawIo.logout(c, ANSWER), "logout");
        }
    }

    private TestConnection session(boolean immediateData, boolean initialR2T) throws IOException {
        Map<String, String> keys = new LinkedHashMap<>(TestConnection.loginKeys(daemon.target()));
        keys.put("ImmediateData", immediateData ? "Yes" : "No");
        keys.put("InitialR2T", initialR2T ? "Yes" : "No");
        return TestConnection.loggedIn(daemon.target(), keys, TestConnection.newIsidQualifier());
    }

    private TestPdu sendWriteAndAwaitR2t(TestConnection c, int itt, long lba) throws IOException {
        c.send(c.scsiCommand(
                0, itt, ScsiCdb.write10(lba, WRITE_BYTES / RawIo.BLOCK), WRITE_BYTES, TestConnection.WRITE_BIT, true));
        TestPdu r2t = RawIo.readFor(c, itt, System.nanoTime() + ANSWER.toNanos());
        assertEquals(TestPdu.R2T, r2t.opcode(), "answer to a WRITE without immediate data: " + r2t);
        return r2t;
    }

    @Test
    void disconnectAfterTheWriteCommand() throws Exception {
        for (int i = 0; i < ROUNDS; i++) {
            TestConnection c = session(false, true);
            sendWriteAndAwaitR2t(c, c.newItt(), 4096 + i * 512L);
            c.close();
        }
    }

    @Test
    void disconnectDuringSolicitedDataOut() throws Exception {
        byte[] data = ScsiCdb.pattern(WRITE_BYTES, 3);
        for (int i = 0; i < ROUNDS; i++) {
            TestConnection c = session(false, true);
            int itt = c.newItt();
            TestPdu r2t = sendWriteAndAwaitR2t(c, itt, 8192 + i * 512L);
            int sent = RawIo.answerR2t(c, 0, r2t, data, 0, r2t.int32(44) / 2);
            assertTrue(sent > 0 && sent < r2t.int32(44), "sent " + sent + " of " + r2t.int32(44));
            c.close();
        }
    }

    @Test
    void disconnectDuringDataIn() throws Exception {
        for (int i = 0; i < ROUNDS; i++) {
            TestConnection c = session(true, false);
            int itt = c.newItt();
            c.send(c.scsiCommand(
                    0, itt, ScsiCdb.read10(0, READ_BLOCKS), READ_BLOCKS * RawIo.BLOCK, TestConnection.READ_BIT, true));
            for (int pdus = 0; pdus < 3; pdus++) {
                TestPdu p = RawIo.readFor(c, itt, System.nanoTime() + ANSWER.toNanos());
                assertNotNull(p);
                assertEquals(TestPdu.DATA_IN, p.opcode(), "Data-In expected: " + p);
            }
            c.close(); // with megabytes still to come: the target writes into a reset socket
        }
    }

    @Test
    void disconnectWithCommandsOfEveryKindInFlight() throws Exception {
        byte[] data = ScsiCdb.pattern(WRITE_BYTES, 5);
        for (int i = 0; i < ROUNDS; i++) {
            TestConnection c = session(false, true);
            int write = c.newItt();
            TestPdu r2t = sendWriteAndAwaitR2t(c, write, 16384 + i * 512L);
            RawIo.answerR2t(c, 0, r2t, data, 0, 4096);
            c.send(c.scsiCommand(
                    0,
                    c.newItt(),
                    ScsiCdb.read10(0, READ_BLOCKS),
                    READ_BLOCKS * RawIo.BLOCK,
                    TestConnection.READ_BIT,
                    true));
            c.send(c.scsiCommand(0, c.newItt(), ScsiCdb.testUnitReady(), 0, 0, true));
            c.close();
        }
    }
}
