package io.numaiscsi.fiotests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A file LUN grown through {@code numa-iscsi-admin lun-resize} while two sessions use it: each hears CAPACITY DATA
 * HAS CHANGED (2Ah/09h), then READ CAPACITY (10) and (16) and libiscsi's iscsi-readcapacity16 report the new size,
 * the data before the old end is kept and blocks past it are written and read; a shrink, a size that is not a
 * multiple of the block size, an unknown LUN and a size that is not a number are refused with the field named, and
 * change nothing.
 */
@Tag("it")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LunResizeTest {
    static final long OLD_BYTES = 16L << 20;
    static final long NEW_BYTES = 32L << 20;
    static final long OLD_BLOCKS = OLD_BYTES / 512;
    static final long NEW_BLOCKS = NEW_BYTES / 512;

    private DaemonProcess daemon;
    private Path socket;
    private AdminCliRun cli;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(System.getProperty("it.external.url", "").isBlank(), "needs its own daemon");
        daemon = DaemonProcess.start("LunResizeTest", DaemonProcess.Setup.fileLun(OLD_BYTES));
        socket = daemon.dataDir().resolve("admin.sock");
        cli = new AdminCliRun("LunResizeTest", socket);
    }

    @AfterAll
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    private ToolRun admin(String... args) throws Exception {
        return cli.run(args);
    }

    private ToolRun resize(String id, String size) throws Exception {
        return admin("lun-resize", daemon.target().iqn(), "--id", id, "--size", size);
    }

    /** A refused resize: exit 1 with the JSON-RPC error naming {@code field}, and every {@code words}. */
    private void assertRefused(ToolRun r, String field, String... words) throws IOException {
        assertEquals(1, r.exitCode(), r.describe(10));
        String out = r.output();
        assertTrue(out.contains("lun.resize: params." + field), "names params." + field + ": " + out);
        for (String w : words) {
            assertTrue(out.contains(w), "'" + w + "' in: " + out);
        }
    }

    private static long lastLba16(TestConnection c) throws IOException {
        ScsiResult r = LunChecks.command(c, 0, ScsiCdb.readCapacity16(), 32);
        assertEquals(ScsiResult.GOOD, r.status(), "READ CAPACITY (16): " + r);
        assertEquals(512, ByteBuffer.wrap(r.data()).getInt(8), "block length");
        return ByteBuffer.wrap(r.data()).getLong(0);
    }

    private static long lastLba10(TestConnection c) throws IOException {
        ScsiResult r = LunChecks.command(c, 0, ScsiCdb.readCapacity10(), 8);
        assertEquals(ScsiResult.GOOD, r.status(), "READ CAPACITY (10): " + r);
        return Integer.toUnsignedLong(ByteBuffer.wrap(r.data()).getInt(0));
    }

    private long listedSize() throws Exception {
        ToolRun r = admin("--json", "ls");
        assertEquals(0, r.exitCode(), r.describe(20));
        JsonNode listing = new ObjectMapper().readTree(r.output());
        return listing.path("targets").get(0).path("luns").get(0).path("size").asLong();
    }

    private void assertUnchanged(TestConnection c, String after) throws Exception {
        assertEquals(
                ScsiResult.GOOD,
                LunChecks.command(c, 0, ScsiCdb.testUnitReady(), 0).status(),
                "no unit attention after " + after);
        assertEquals(OLD_BLOCKS - 1, lastLba16(c), "READ CAPACITY after " + after);
        assertEquals(OLD_BYTES, listedSize(), "target.list after " + after);
        assertEquals(OLD_BYTES, Files.size(daemon.dataDir().resolve("lun0.img")), "backing file after " + after);
    }

    @Test
    void aFileLunGrownThroughTheCliWhileTwoSessionsUseIt() throws Exception {
        String iqn = daemon.target().iqn();
        byte[] lastOld = ScsiCdb.pattern(4096, 11);
        try (TestConnection a = TestConnection.loggedIn(daemon.target());
                TestConnection b = TestConnection.loggedIn(daemon.target())) {
            assertEquals(
                    ScsiResult.GOOD,
                    LunChecks.write(a, 0, OLD_BLOCKS - 8, lastOld).status(),
                    "WRITE before the end");
            assertEquals(
                    ScsiResult.GOOD,
                    LunChecks.command(b, 0, ScsiCdb.testUnitReady(), 0).status());
            assertEquals(OLD_BLOCKS - 1, lastLba16(a));
            ScsiResult pastEnd = LunChecks.write(a, 0, OLD_BLOCKS, ScsiCdb.pattern(512, 1));
            assertEquals(0x21, pastEnd.asc(), "LBA OUT OF RANGE before the resize: " + pastEnd);

            assertRefused(resize("0", "8M"), "size", "not larger than the LUN's 16777216 bytes", "only grows");
            assertUnchanged(a, "a shrink");
            assertRefused(resize("0", "33554688"), "size", "33554688 bytes is not a multiple of block-size 512");
            assertUnchanged(a, "a size not a multiple of the block size");
            assertRefused(resize("7", "32M"), "id", "has no LUN 7");
            assertUnchanged(a, "an unknown LUN");
            assertRefused(resize("0", "lots"), "size", "\"lots\" is not a size");
            assertUnchanged(a, "a size that is not a number");

            ToolRun grown = resize("0", "32M");
            assertEquals(0, grown.exitCode(), grown.describe(20));
            assertTrue(
                    grown.output().contains("resized LUN 0 of " + iqn + " to " + NEW_BYTES + " bytes"), grown.output());

            LunChecks.assertUnitAttention(
                    LunChecks.command(a, 0, ScsiCdb.testUnitReady(), 0),
                    0x2A,
                    0x09,
                    "session A after the resize (CAPACITY DATA HAS CHANGED)");
            LunChecks.assertUnitAttention(
                    LunChecks.command(b, 0, ScsiCdb.readCapacity16(), 32),
                    0x2A,
                    0x09,
                    "session B's READ CAPACITY after the resize hears of it first");
            assertEquals(
                    ScsiResult.GOOD,
                    LunChecks.command(a, 0, ScsiCdb.testUnitReady(), 0).status(),
                    "the attention is reported once");
            assertEquals(NEW_BLOCKS - 1, lastLba16(a), "READ CAPACITY (16), session A");
            assertEquals(NEW_BLOCKS - 1, lastLba10(b), "READ CAPACITY (10), session B");

            assertArrayEquals(
                    lastOld,
                    LunChecks.command(b, 0, ScsiCdb.read10(OLD_BLOCKS - 8, 8), 4096)
                            .data(),
                    "data written before the resize");
            byte[] across = ScsiCdb.pattern(8192, 12);
            assertEquals(
                    ScsiResult.GOOD,
                    LunChecks.write(a, 0, OLD_BLOCKS - 8, across).status(),
                    "WRITE across the old end");
            byte[] atEnd = ScsiCdb.pattern(4096, 13);
            assertEquals(
                    ScsiResult.GOOD,
                    LunChecks.write(b, 0, NEW_BLOCKS - 8, atEnd).status(),
                    "WRITE at the new end");
            assertArrayEquals(
                    across,
                    LunChecks.command(b, 0, ScsiCdb.read10(OLD_BLOCKS - 8, 16), 8192)
                            .data());
            assertArrayEquals(
                    atEnd,
                    LunChecks.command(a, 0, ScsiCdb.read10(NEW_BLOCKS - 8, 8), 4096)
                            .data());
            ScsiResult pastNewEnd = LunChecks.write(a, 0, NEW_BLOCKS - 1, ScsiCdb.pattern(1024, 2));
            assertEquals(0x21, pastNewEnd.asc(), "LBA OUT OF RANGE past the new end: " + pastNewEnd);
            a.ping();
            b.ping();
        }

        ToolRun rc16 = ToolRun.run(
                DaemonProcess.logDir().resolve("LunResizeTest-readcapacity16.log"),
                AdminCliTest.CLI_LIMIT,
                List.of("iscsi-readcapacity16", daemon.target().lunUrl()));
        assertEquals(0, rc16.exitCode(), rc16.describe(20));
        assertTrue(
                rc16.output().contains("RETURNED LOGICAL BLOCK ADDRESS:" + (NEW_BLOCKS - 1))
                        && rc16.output().contains("Total size:" + NEW_BYTES),
                "libiscsi sees the new size: " + rc16.output());
        assertEquals(NEW_BYTES, listedSize(), "target.list shows the new size");
        assertEquals(NEW_BYTES, Files.size(daemon.dataDir().resolve("lun0.img")), "the backing file grew");
        String log = Files.readString(daemon.log(), StandardCharsets.ISO_8859_1);
        assertEquals(
                1,
                log.lines()
                        .filter(l -> l.contains("admin: resize LUN 0 of " + iqn + " to " + NEW_BYTES + " bytes"))
                        .count(),
                "one audit line\n" + daemon.logTail());
        TestConnection.assertFreshSessionWorks(daemon);
    }

    @Test
    void aRamLunIsNotGrownAndKeepsServing() throws Exception {
        String iqn = daemon.target().iqn();
        ToolRun add = admin("lun-add", iqn, "--id", "5", "--backing", "ram", "--size", "8M");
        assertEquals(0, add.exitCode(), add.describe(10));
        try {
            ToolRun r = resize("5", "16M");
            assertEquals(1, r.exitCode(), r.describe(10));
            assertTrue(r.output().contains("RAM disk cannot grow"), r.output());
            try (TestConnection c = TestConnection.loggedIn(daemon.target())) {
                ScsiResult rc = LunChecks.command(c, 5, ScsiCdb.readCapacity16(), 32);
                assertEquals(ScsiResult.GOOD, rc.status(), "no attention for a resize that failed: " + rc);
                assertEquals((8L << 20) / 512 - 1, ByteBuffer.wrap(rc.data()).getLong(0));
            }
        } finally {
            admin("lun-remove", iqn, "--id", "5");
        }
        daemon.assertAlive();
    }
}
